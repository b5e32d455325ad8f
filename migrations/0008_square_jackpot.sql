CREATE TABLE `run_key_values` (
	`team_id` text NOT NULL,
	`task` text NOT NULL,
	`key` text NOT NULL,
	`value` text NOT NULL,
	`claim_id` text DEFAULT '' NOT NULL,
	`first_id` integer NOT NULL,
	`last_run_id` text NOT NULL,
	`text` text NOT NULL,
	`last_created_at` text NOT NULL,
	PRIMARY KEY(`team_id`, `task`, `key`, `value`, `claim_id`)
);
--> statement-breakpoint
CREATE INDEX `run_key_values_team_task_key_first_idx` ON `run_key_values` (`team_id`,`task`,`key`,`first_id`);
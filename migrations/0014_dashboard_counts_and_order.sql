CREATE TABLE `violation_counts` (
	`team_id` text NOT NULL,
	`code` text NOT NULL,
	`crossings` integer NOT NULL,
	PRIMARY KEY(`team_id`, `code`)
);
--> statement-breakpoint
DROP INDEX `crossings_team_tool_idx`;--> statement-breakpoint
CREATE INDEX `crossings_team_code_idx` ON `crossings` (`team_id`,`violation`,`id`) WHERE violation IS NOT NULL;--> statement-breakpoint
CREATE INDEX `crossings_team_tool_idx` ON `crossings` (`team_id`,`tool`,`id`);--> statement-breakpoint
DROP INDEX `run_claims_team_key_idx`;--> statement-breakpoint
CREATE INDEX `run_claims_team_key_idx` ON `run_claims` (`team_id`,`key`,`created_at`,`id`);
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_claim_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`team_id` text NOT NULL,
	`claim_id` text NOT NULL,
	`kind` text NOT NULL,
	`status` text NOT NULL,
	`reason` text,
	`demoted_by` text,
	`watch` text,
	`superseded_by` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`team_id`,`claim_id`) REFERENCES `claims`(`team_id`,`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
INSERT INTO `__new_claim_events`("id", "team_id", "claim_id", "kind", "status", "reason", "demoted_by", "watch", "superseded_by", "created_at") SELECT "id", "team_id", "claim_id", "kind", "status", "reason", "demoted_by", "watch", "superseded_by", "created_at" FROM `claim_events`;--> statement-breakpoint
DROP TABLE `claim_events`;--> statement-breakpoint
ALTER TABLE `__new_claim_events` RENAME TO `claim_events`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `claim_events_team_claim_idx` ON `claim_events` (`team_id`,`claim_id`,`id`);--> statement-breakpoint
CREATE INDEX `claim_events_team_status_idx` ON `claim_events` (`team_id`,`status`);--> statement-breakpoint
CREATE TABLE `__new_claims` (
	`id` text NOT NULL,
	`team_id` text NOT NULL,
	`text` text NOT NULL,
	`key` text,
	`value` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	PRIMARY KEY(`team_id`, `id`)
);
--> statement-breakpoint
INSERT INTO `__new_claims`("id", "team_id", "text", "key", "value", "created_at") SELECT "id", "team_id", "text", "key", "value", "created_at" FROM `claims`;--> statement-breakpoint
DROP TABLE `claims`;--> statement-breakpoint
ALTER TABLE `__new_claims` RENAME TO `claims`;--> statement-breakpoint
CREATE INDEX `claims_team_key_idx` ON `claims` (`team_id`,`key`);--> statement-breakpoint
CREATE INDEX `claims_team_created_idx` ON `claims` (`team_id`,`created_at`,`id`);--> statement-breakpoint
ALTER TABLE `run_claims` ADD `claim_id` text;--> statement-breakpoint
ALTER TABLE `run_claims` ADD `run_index` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE `run_claims` ADD `released` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `run_claims` ADD `supersedes` text;--> statement-breakpoint
ALTER TABLE `runs` ADD `settings` text;
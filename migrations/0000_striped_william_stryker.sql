CREATE TABLE `audit_items` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`audit_id` text NOT NULL,
	`team_id` text NOT NULL,
	`position` integer NOT NULL,
	`text` text NOT NULL,
	`value` real NOT NULL,
	`unit` text,
	`status` text NOT NULL,
	`source_call_id` text,
	`source` text,
	`explanation` text NOT NULL,
	FOREIGN KEY (`audit_id`) REFERENCES `audits`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `audit_items_audit_idx` ON `audit_items` (`audit_id`);--> statement-breakpoint
CREATE INDEX `audit_items_team_status_idx` ON `audit_items` (`team_id`,`status`);--> statement-breakpoint
CREATE TABLE `audits` (
	`id` text PRIMARY KEY NOT NULL,
	`team_id` text NOT NULL,
	`session_id` text NOT NULL,
	`answer` text NOT NULL,
	`context` text DEFAULT '' NOT NULL,
	`ok` integer NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `audits_session_idx` ON `audits` (`session_id`);--> statement-breakpoint
CREATE TABLE `calls` (
	`id` text PRIMARY KEY NOT NULL,
	`team_id` text NOT NULL,
	`session_id` text NOT NULL,
	`seq` integer NOT NULL,
	`tool` text NOT NULL,
	`tool_version` integer,
	`guarded` integer NOT NULL,
	`args_raw` text NOT NULL,
	`ok` integer NOT NULL,
	`violations` text DEFAULT '[]' NOT NULL,
	`result_raw` text,
	`result_ok` integer,
	`result_violations` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`result_at` text,
	FOREIGN KEY (`session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `calls_session_seq_idx` ON `calls` (`session_id`,`seq`);--> statement-breakpoint
CREATE INDEX `calls_team_tool_idx` ON `calls` (`team_id`,`tool`);--> statement-breakpoint
CREATE TABLE `claim_events` (
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
	FOREIGN KEY (`claim_id`) REFERENCES `claims`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `claim_events_claim_idx` ON `claim_events` (`claim_id`,`id`);--> statement-breakpoint
CREATE INDEX `claim_events_team_status_idx` ON `claim_events` (`team_id`,`status`);--> statement-breakpoint
CREATE TABLE `claims` (
	`id` text PRIMARY KEY NOT NULL,
	`team_id` text NOT NULL,
	`text` text NOT NULL,
	`key` text,
	`value` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `claims_team_key_idx` ON `claims` (`team_id`,`key`);--> statement-breakpoint
CREATE TABLE `crossings` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`team_id` text NOT NULL,
	`session_id` text NOT NULL,
	`call_id` text NOT NULL,
	`seq` integer NOT NULL,
	`tool` text NOT NULL,
	`direction` text NOT NULL,
	`param` text NOT NULL,
	`raw` text NOT NULL,
	`value` real,
	`unit` text,
	`value_si` real,
	`dimension` text,
	`is_series` integer DEFAULT false NOT NULL,
	`datum` text,
	`crs` text,
	`tz` text,
	`quality` text,
	`source` text,
	`outcome` text NOT NULL,
	`violation` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `crossings_session_dir_value_idx` ON `crossings` (`session_id`,`direction`,`value`);--> statement-breakpoint
CREATE INDEX `crossings_session_dir_dim_si_idx` ON `crossings` (`session_id`,`direction`,`dimension`,`value_si`);--> statement-breakpoint
CREATE INDEX `crossings_team_dim_si_idx` ON `crossings` (`team_id`,`dimension`,`value_si`);--> statement-breakpoint
CREATE INDEX `crossings_call_idx` ON `crossings` (`call_id`);--> statement-breakpoint
CREATE INDEX `crossings_team_violation_idx` ON `crossings` (`team_id`,`violation`);--> statement-breakpoint
CREATE TABLE `datums` (
	`id` text PRIMARY KEY NOT NULL,
	`team_id` text NOT NULL,
	`name` text NOT NULL,
	`kind` text DEFAULT 'vertical' NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `datums_team_name_idx` ON `datums` (`team_id`,`name`);--> statement-breakpoint
CREATE TABLE `run_claims` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`run_id` text NOT NULL,
	`team_id` text NOT NULL,
	`task` text NOT NULL,
	`key` text NOT NULL,
	`value` text,
	`text` text DEFAULT '' NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`run_id`) REFERENCES `runs`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `run_claims_team_task_key_idx` ON `run_claims` (`team_id`,`task`,`key`);--> statement-breakpoint
CREATE TABLE `runs` (
	`id` text PRIMARY KEY NOT NULL,
	`team_id` text NOT NULL,
	`task` text,
	`status` text NOT NULL,
	`overall_score` real NOT NULL,
	`report` text NOT NULL,
	`input` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `runs_team_task_created_idx` ON `runs` (`team_id`,`task`,`created_at`);--> statement-breakpoint
CREATE INDEX `runs_team_created_idx` ON `runs` (`team_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `session_labels` (
	`session_id` text NOT NULL,
	`team_id` text NOT NULL,
	`key` text NOT NULL,
	`value` text NOT NULL,
	FOREIGN KEY (`session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `session_labels_team_kv_idx` ON `session_labels` (`team_id`,`key`,`value`);--> statement-breakpoint
CREATE UNIQUE INDEX `session_labels_session_key_idx` ON `session_labels` (`session_id`,`key`);--> statement-breakpoint
CREATE TABLE `sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`team_id` text NOT NULL,
	`context` text DEFAULT '' NOT NULL,
	`enforcement` text DEFAULT 'enforce' NOT NULL,
	`labels` text DEFAULT '{}' NOT NULL,
	`call_count` integer DEFAULT 0 NOT NULL,
	`violation_count` integer DEFAULT 0 NOT NULL,
	`blocked_count` integer DEFAULT 0 NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `sessions_team_created_idx` ON `sessions` (`team_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `station_offsets` (
	`id` text PRIMARY KEY NOT NULL,
	`team_id` text NOT NULL,
	`from_datum` text NOT NULL,
	`to_datum` text NOT NULL,
	`offset_m` real NOT NULL,
	`offset_value` real NOT NULL,
	`offset_unit` text NOT NULL,
	`source` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `station_offsets_team_from_to_idx` ON `station_offsets` (`team_id`,`from_datum`,`to_datum`);--> statement-breakpoint
CREATE TABLE `teams` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `teams_name_idx` ON `teams` (`name`);--> statement-breakpoint
CREATE TABLE `tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`team_id` text NOT NULL,
	`name` text DEFAULT '' NOT NULL,
	`hash` text NOT NULL,
	`is_admin` integer DEFAULT false NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`revoked_at` text,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tokens_hash_idx` ON `tokens` (`hash`);--> statement-breakpoint
CREATE INDEX `tokens_team_idx` ON `tokens` (`team_id`);--> statement-breakpoint
CREATE TABLE `tools` (
	`id` text PRIMARY KEY NOT NULL,
	`team_id` text NOT NULL,
	`name` text NOT NULL,
	`version` integer NOT NULL,
	`declaration` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tools_team_name_version_idx` ON `tools` (`team_id`,`name`,`version`);
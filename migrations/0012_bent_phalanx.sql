CREATE TABLE `evaluation_sources` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`run_id` text NOT NULL,
	`team_id` text NOT NULL,
	`task` text,
	`run_index` integer DEFAULT 1 NOT NULL,
	`claim_id` text,
	`claim_text` text DEFAULT '' NOT NULL,
	`locator` text NOT NULL,
	`status` text NOT NULL,
	`crossing_id` integer,
	`session_id` text,
	`seq` integer,
	`tool` text,
	`value` real,
	`unit` text,
	`quality` text,
	`observed_at` text,
	`match` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`run_id`) REFERENCES `runs`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `evaluation_sources_run_idx` ON `evaluation_sources` (`run_id`);--> statement-breakpoint
CREATE INDEX `evaluation_sources_team_crossing_idx` ON `evaluation_sources` (`team_id`,`crossing_id`) WHERE crossing_id IS NOT NULL;--> statement-breakpoint
CREATE TABLE `revisions` (
	`id` text PRIMARY KEY NOT NULL,
	`team_id` text NOT NULL,
	`kind` text NOT NULL,
	`source` text,
	`observed_at` text,
	`reason` text NOT NULL,
	`revised_by` text NOT NULL,
	`before_crossing_id` integer NOT NULL,
	`before_session_id` text NOT NULL,
	`before_value` real NOT NULL,
	`before_unit` text NOT NULL,
	`before_quality` text,
	`after_crossing_id` integer,
	`after_session_id` text,
	`after_value` real NOT NULL,
	`after_unit` text NOT NULL,
	`after_quality` text,
	`detected_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `revisions_team_detected_idx` ON `revisions` (`team_id`,`detected_at`,`id`);--> statement-breakpoint
CREATE INDEX `revisions_team_source_detected_idx` ON `revisions` (`team_id`,`source`,`detected_at`,`id`);--> statement-breakpoint
CREATE INDEX `revisions_before_idx` ON `revisions` (`before_crossing_id`,`id`);--> statement-breakpoint
ALTER TABLE `crossings` ADD `observed_at` text;--> statement-breakpoint
ALTER TABLE `crossings` ADD `observed_utc` text;--> statement-breakpoint
CREATE INDEX `crossings_team_reading_idx` ON `crossings` (`team_id`,`source`,`observed_utc`) WHERE source IS NOT NULL AND observed_utc IS NOT NULL;
CREATE TABLE `upstream_drifts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`team_id` text NOT NULL,
	`upstream` text NOT NULL,
	`tool` text NOT NULL,
	`kind` text NOT NULL,
	`before` text,
	`after` text,
	`detected_at` text NOT NULL,
	`approved_at` text
);
--> statement-breakpoint
CREATE INDEX `upstream_drifts_team_upstream_idx` ON `upstream_drifts` (`team_id`,`upstream`,`approved_at`);--> statement-breakpoint
CREATE TABLE `upstream_pins` (
	`team_id` text NOT NULL,
	`upstream` text NOT NULL,
	`tool` text NOT NULL,
	`definition` text NOT NULL,
	`digest` text NOT NULL,
	`pinned_at` text NOT NULL,
	PRIMARY KEY(`team_id`, `upstream`, `tool`)
);
--> statement-breakpoint
ALTER TABLE `calls` ADD `tool_digest` text;
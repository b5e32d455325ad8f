CREATE TABLE `bench_runs` (
	`session_id` text PRIMARY KEY NOT NULL,
	`team_id` text NOT NULL,
	`batch` text NOT NULL,
	`suite` text NOT NULL,
	`task` text NOT NULL,
	`condition` text NOT NULL,
	`model` text NOT NULL,
	`replicate` integer NOT NULL,
	`recorded_id` text,
	`outcome` text NOT NULL,
	`stated` text,
	`detail` text DEFAULT '' NOT NULL,
	`violations` integer DEFAULT 0 NOT NULL,
	`audit_unsourced` integer DEFAULT 0 NOT NULL,
	`audit_mislabelled` integer DEFAULT 0 NOT NULL,
	`audit_flagged` integer DEFAULT false NOT NULL,
	`undetected` integer DEFAULT false NOT NULL,
	`silent_error` integer DEFAULT false NOT NULL,
	`tool_calls` integer DEFAULT 0 NOT NULL,
	`turns` integer DEFAULT 0 NOT NULL,
	`prompt_tokens` integer,
	`completion_tokens` integer,
	`derived` text NOT NULL,
	`answer` text,
	`error` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `bench_runs_team_batch_idx` ON `bench_runs` (`team_id`,`batch`,`task`,`condition`,`model`,`replicate`);--> statement-breakpoint
CREATE INDEX `bench_runs_team_created_idx` ON `bench_runs` (`team_id`,`created_at`);
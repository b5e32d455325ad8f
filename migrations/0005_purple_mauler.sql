CREATE TABLE `dashboard_sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`team_id` text NOT NULL,
	`token_id` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`expires_at` text NOT NULL,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`token_id`) REFERENCES `tokens`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `dashboard_sessions_token_idx` ON `dashboard_sessions` (`token_id`);--> statement-breakpoint
CREATE INDEX `dashboard_sessions_expires_idx` ON `dashboard_sessions` (`expires_at`);--> statement-breakpoint
CREATE INDEX `audits_team_created_idx` ON `audits` (`team_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `calls_team_created_idx` ON `calls` (`team_id`,`created_at`,`ok`);--> statement-breakpoint
CREATE INDEX `crossings_team_created_violation_idx` ON `crossings` (`team_id`,`created_at`,`violation`,`outcome`) WHERE violation IS NOT NULL;--> statement-breakpoint
CREATE INDEX `crossings_team_converted_idx` ON `crossings` (`team_id`,`created_at`,`call_id`) WHERE outcome = 'converted' AND direction = 'param';--> statement-breakpoint
CREATE INDEX `crossings_team_tool_idx` ON `crossings` (`team_id`,`tool`);--> statement-breakpoint
CREATE INDEX `run_claims_team_key_idx` ON `run_claims` (`team_id`,`key`);
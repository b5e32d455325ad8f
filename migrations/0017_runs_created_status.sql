DROP INDEX `runs_team_created_idx`;--> statement-breakpoint
CREATE INDEX `runs_team_created_idx` ON `runs` (`team_id`,`created_at`,`status`);
DROP INDEX `crossings_session_dir_idx`;--> statement-breakpoint
DROP INDEX `crossings_session_dir_value_idx`;--> statement-breakpoint
DROP INDEX `crossings_session_dir_dim_si_idx`;--> statement-breakpoint
DROP INDEX `crossings_call_idx`;--> statement-breakpoint
DROP INDEX `crossings_team_dim_si_idx`;--> statement-breakpoint
DROP INDEX `crossings_team_violation_idx`;--> statement-breakpoint
CREATE INDEX `crossings_session_seq_idx` ON `crossings` (`session_id`,`seq`);--> statement-breakpoint
CREATE INDEX `crossings_outputs_idx` ON `crossings` (`session_id`) WHERE direction = 'return' AND value IS NOT NULL AND unit IS NOT NULL;--> statement-breakpoint
CREATE INDEX `crossings_outputs_value_idx` ON `crossings` (`session_id`,`value`) WHERE direction = 'return' AND value IS NOT NULL AND unit IS NOT NULL;--> statement-breakpoint
CREATE INDEX `crossings_outputs_si_idx` ON `crossings` (`session_id`,`dimension`,`value_si`) WHERE direction = 'return' AND value IS NOT NULL AND unit IS NOT NULL;--> statement-breakpoint
CREATE INDEX `crossings_team_dim_si_idx` ON `crossings` (`team_id`,`dimension`,`value_si`) WHERE value_si IS NOT NULL;--> statement-breakpoint
CREATE INDEX `crossings_team_violation_idx` ON `crossings` (`team_id`,`violation`) WHERE violation IS NOT NULL;
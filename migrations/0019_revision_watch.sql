CREATE TABLE `revision_watch` (
	`team_id` text NOT NULL,
	`series_key` text NOT NULL,
	`site` text NOT NULL,
	`collection` text NOT NULL,
	`parameter` text NOT NULL,
	`statistic` text,
	`session_id` text NOT NULL,
	`last_look` text,
	`last_run` text,
	`next_run` text,
	`requests` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`team_id`, `series_key`)
);

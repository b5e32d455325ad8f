CREATE TABLE `team_versions` (
	`team_id` text NOT NULL,
	`kind` text NOT NULL,
	`version` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`team_id`, `kind`)
);

PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_ledger_entries` (
	`team_id` text NOT NULL,
	`seq` integer NOT NULL,
	`tbl` text NOT NULL,
	`row_id` text NOT NULL,
	`row_digest` blob NOT NULL,
	`prev` blob NOT NULL,
	`digest` blob NOT NULL,
	`fp` blob NOT NULL,
	`at` text NOT NULL,
	PRIMARY KEY(`team_id`, `seq`)
);
--> statement-breakpoint
INSERT INTO `__new_ledger_entries`("team_id", "seq", "tbl", "row_id", "row_digest", "prev", "digest", "fp", "at") SELECT "team_id", "seq", "tbl", "row_id", "row_digest", "prev", "digest", "fp", "at" FROM `ledger_entries`;--> statement-breakpoint
DROP TABLE `ledger_entries`;--> statement-breakpoint
ALTER TABLE `__new_ledger_entries` RENAME TO `ledger_entries`;--> statement-breakpoint
PRAGMA foreign_keys=ON;
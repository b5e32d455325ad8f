CREATE TABLE `ledger_entries` (
	`team_id` text NOT NULL,
	`seq` integer NOT NULL,
	`tbl` text NOT NULL,
	`row_id` text NOT NULL,
	`row_digest` text NOT NULL,
	`prev` text NOT NULL,
	`digest` text NOT NULL,
	`fp` text NOT NULL,
	`at` text NOT NULL,
	PRIMARY KEY(`team_id`, `seq`)
);
--> statement-breakpoint
CREATE TABLE `ledger_heads` (
	`team_id` text PRIMARY KEY NOT NULL,
	`seq` integer NOT NULL,
	`digest` text NOT NULL,
	`at` text NOT NULL,
	`backfilled` integer DEFAULT 0 NOT NULL,
	`began_at` text,
	`base_seq` integer DEFAULT 0 NOT NULL,
	`base_digest` text DEFAULT '0000000000000000000000000000000000000000000000000000000000000000' NOT NULL
);

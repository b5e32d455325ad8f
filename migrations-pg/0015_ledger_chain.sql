CREATE TABLE "ledger_entries" (
	"team_id" text NOT NULL,
	"seq" bigint NOT NULL,
	"tbl" text NOT NULL,
	"row_id" text NOT NULL,
	"row_digest" text NOT NULL,
	"prev" text NOT NULL,
	"digest" text NOT NULL,
	"fp" text NOT NULL,
	"at" text NOT NULL,
	CONSTRAINT "ledger_entries_team_id_seq_pk" PRIMARY KEY("team_id","seq")
);
--> statement-breakpoint
CREATE TABLE "ledger_heads" (
	"team_id" text PRIMARY KEY NOT NULL,
	"seq" bigint NOT NULL,
	"digest" text NOT NULL,
	"at" text NOT NULL,
	"backfilled" bigint DEFAULT 0 NOT NULL,
	"began_at" text,
	"base_seq" bigint DEFAULT 0 NOT NULL,
	"base_digest" text DEFAULT '0000000000000000000000000000000000000000000000000000000000000000' NOT NULL
);

CREATE TABLE "revision_watch" (
	"team_id" text NOT NULL,
	"series_key" text NOT NULL,
	"site" text NOT NULL,
	"collection" text NOT NULL,
	"parameter" text NOT NULL,
	"statistic" text,
	"session_id" text NOT NULL,
	"last_look" text,
	"last_run" text,
	"next_run" text,
	"requests" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "revision_watch_team_id_series_key_pk" PRIMARY KEY("team_id","series_key")
);

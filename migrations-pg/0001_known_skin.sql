CREATE TABLE "bench_runs" (
	"session_id" text PRIMARY KEY NOT NULL,
	"team_id" text NOT NULL,
	"batch" text NOT NULL,
	"suite" text NOT NULL,
	"task" text NOT NULL,
	"condition" text NOT NULL,
	"model" text NOT NULL,
	"replicate" integer NOT NULL,
	"recorded_id" text,
	"outcome" text NOT NULL,
	"stated" text,
	"detail" text DEFAULT '' NOT NULL,
	"violations" integer DEFAULT 0 NOT NULL,
	"audit_unsourced" integer DEFAULT 0 NOT NULL,
	"audit_mislabelled" integer DEFAULT 0 NOT NULL,
	"audit_flagged" boolean DEFAULT false NOT NULL,
	"undetected" boolean DEFAULT false NOT NULL,
	"silent_error" boolean DEFAULT false NOT NULL,
	"tool_calls" integer DEFAULT 0 NOT NULL,
	"turns" integer DEFAULT 0 NOT NULL,
	"prompt_tokens" integer,
	"completion_tokens" integer,
	"derived" text NOT NULL,
	"answer" text,
	"error" text,
	"created_at" text DEFAULT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') NOT NULL
);
--> statement-breakpoint
ALTER TABLE "bench_runs" ADD CONSTRAINT "bench_runs_session_id_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."sessions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "bench_runs_team_batch_idx" ON "bench_runs" USING btree ("team_id","batch","task","condition","model","replicate");--> statement-breakpoint
CREATE INDEX "bench_runs_team_created_idx" ON "bench_runs" USING btree ("team_id","created_at");
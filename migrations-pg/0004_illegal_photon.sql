DROP INDEX "calls_team_tool_idx";--> statement-breakpoint
DROP INDEX "crossings_team_violation_idx";--> statement-breakpoint
DROP INDEX "session_labels_team_kv_idx";--> statement-breakpoint
CREATE INDEX "calls_team_tool_session_idx" ON "calls" USING btree ("team_id","tool","session_id");--> statement-breakpoint
CREATE INDEX "crossings_team_violation_session_idx" ON "crossings" USING btree ("team_id","violation","session_id") WHERE violation IS NOT NULL;--> statement-breakpoint
CREATE INDEX "session_labels_team_kv_session_idx" ON "session_labels" USING btree ("team_id","key","value","session_id");
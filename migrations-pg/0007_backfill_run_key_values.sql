-- Custom data migration: the stability summary of the released runs already stored, by the rule the history query
-- applies (a key's history starts at its latest released run that names a claim in supersedes). Until this migration
-- the PostgreSQL store did not maintain the table (a copy from SQLite carried rows that later evaluations left
-- behind), so it is computed afresh from run_claims.
DELETE FROM "run_key_values";
--> statement-breakpoint
INSERT INTO "run_key_values" ("team_id", "task", "key", "value", "claim_id", "first_id", "last_run_id", "text", "last_created_at")
SELECT c."team_id", c."task", c."key", coalesce(c."value", 'null'), coalesce(c."claim_id", ''), min(c."id"), max(c."run_id"), min(c."text"), max(c."created_at")
FROM "run_claims" c
WHERE c."released" AND c."id" >= coalesce((
  SELECT min(x."id") FROM "run_claims" x
  WHERE x."team_id" = c."team_id" AND x."task" = c."task" AND x."key" = c."key" AND x."run_id" = (
    SELECT s."run_id" FROM "run_claims" s
    WHERE s."team_id" = c."team_id" AND s."task" = c."task" AND s."key" = c."key" AND s."released" AND s."supersedes" IS NOT NULL
    ORDER BY s."id" DESC LIMIT 1)), 0)
GROUP BY c."team_id", c."task", c."key", coalesce(c."value", 'null'), coalesce(c."claim_id", '');

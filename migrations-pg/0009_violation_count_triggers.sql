-- Custom migration: violation_counts is kept by triggers on crossings, so every write path (a call, a result, a copy)
-- keeps the dashboard's code facet exact in its own transaction. The triggers come first: creating them locks
-- crossings against writers until this migration commits, so the fill below sees every row written before, and every
-- row written after fires a trigger. A code whose count falls to zero loses its row.
CREATE FUNCTION "violation_counts_add"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "violation_counts" ("team_id", "code", "crossings") VALUES (NEW."team_id", NEW."violation", 1)
  ON CONFLICT ("team_id", "code") DO UPDATE SET "crossings" = "violation_counts"."crossings" + 1;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE FUNCTION "violation_counts_remove"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "violation_counts" SET "crossings" = "crossings" - 1 WHERE "team_id" = OLD."team_id" AND "code" = OLD."violation";
  DELETE FROM "violation_counts" WHERE "team_id" = OLD."team_id" AND "code" = OLD."violation" AND "crossings" <= 0;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "crossings_violation_count_insert" AFTER INSERT ON "crossings"
FOR EACH ROW WHEN (NEW."violation" IS NOT NULL) EXECUTE FUNCTION "violation_counts_add"();
--> statement-breakpoint
CREATE TRIGGER "crossings_violation_count_delete" AFTER DELETE ON "crossings"
FOR EACH ROW WHEN (OLD."violation" IS NOT NULL) EXECUTE FUNCTION "violation_counts_remove"();
--> statement-breakpoint
CREATE TRIGGER "crossings_violation_count_update_old" AFTER UPDATE OF "team_id", "violation" ON "crossings"
FOR EACH ROW WHEN (OLD."violation" IS NOT NULL) EXECUTE FUNCTION "violation_counts_remove"();
--> statement-breakpoint
CREATE TRIGGER "crossings_violation_count_update_new" AFTER UPDATE OF "team_id", "violation" ON "crossings"
FOR EACH ROW WHEN (NEW."violation" IS NOT NULL) EXECUTE FUNCTION "violation_counts_add"();
--> statement-breakpoint
INSERT INTO "violation_counts" ("team_id", "code", "crossings")
SELECT "team_id", "violation", count(*) FROM "crossings" WHERE "violation" IS NOT NULL GROUP BY "team_id", "violation";

-- Custom migration: violation_counts is kept by triggers on crossings, so every write path (a call, a result, the
-- archive's delete) keeps the dashboard's code facet exact in its own transaction. Then the table is filled from the
-- crossings already stored. A code whose count falls to zero loses its row, so the table holds the codes present.
CREATE TRIGGER `crossings_violation_count_insert` AFTER INSERT ON `crossings` WHEN NEW.`violation` IS NOT NULL
BEGIN
  INSERT INTO `violation_counts` (`team_id`, `code`, `crossings`) VALUES (NEW.`team_id`, NEW.`violation`, 1)
  ON CONFLICT (`team_id`, `code`) DO UPDATE SET `crossings` = `crossings` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `crossings_violation_count_delete` AFTER DELETE ON `crossings` WHEN OLD.`violation` IS NOT NULL
BEGIN
  UPDATE `violation_counts` SET `crossings` = `crossings` - 1 WHERE `team_id` = OLD.`team_id` AND `code` = OLD.`violation`;
  DELETE FROM `violation_counts` WHERE `team_id` = OLD.`team_id` AND `code` = OLD.`violation` AND `crossings` <= 0;
END;
--> statement-breakpoint
CREATE TRIGGER `crossings_violation_count_update` AFTER UPDATE OF `team_id`, `violation` ON `crossings`
BEGIN
  UPDATE `violation_counts` SET `crossings` = `crossings` - 1
  WHERE OLD.`violation` IS NOT NULL AND `team_id` = OLD.`team_id` AND `code` = OLD.`violation`;
  DELETE FROM `violation_counts` WHERE `team_id` = OLD.`team_id` AND `code` = OLD.`violation` AND `crossings` <= 0;
  INSERT INTO `violation_counts` (`team_id`, `code`, `crossings`) SELECT NEW.`team_id`, NEW.`violation`, 1
  WHERE NEW.`violation` IS NOT NULL
  ON CONFLICT (`team_id`, `code`) DO UPDATE SET `crossings` = `crossings` + 1;
END;
--> statement-breakpoint
INSERT INTO `violation_counts` (`team_id`, `code`, `crossings`)
SELECT `team_id`, `violation`, count(*) FROM `crossings` WHERE `violation` IS NOT NULL GROUP BY `team_id`, `violation`;

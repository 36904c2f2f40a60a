-- The persons list's property filters read an index instead of every person's JSON: one row per person
-- and top-level property (JSON nulls left out, as no filter but is_not_set matches them), holding the
-- value as the text the filter compiler compares (src/shared/filters/compile.ts: booleans as
-- true/false, numbers as SQLite writes them, objects and arrays as JSON), cut to its first 100
-- characters so long values (URLs) keep the index small. An `exact`/`in` filter on a value under 100
-- characters is then answered, and counted, by the index alone; `is_set` by the key; anything else
-- still reads the JSON of the candidates. Triggers keep it in step with every write of a person's
-- properties, in the writing transaction, as they keep the search index (0007).
-- One b-tree, keyed for the lookups: a person's rows are found (to delete them) from the person's own
-- JSON through the same view, so no second index by person is needed.
CREATE TABLE `person_property_values` (
  `project_id` integer NOT NULL,
  `key` text NOT NULL,
  `value` text NOT NULL,
  `person_id` integer NOT NULL,
  PRIMARY KEY (`project_id`, `key`, `value`, `person_id`)
) WITHOUT ROWID;
--> statement-breakpoint
-- A person's indexed values: the one definition the triggers and the backfill read. The triggers find
-- a person's old rows by computing them again, so a change to this definition must rebuild the table.
CREATE VIEW `person_property_text` AS SELECT p.`project_id` AS `project_id`, j.`key` AS `key`,
  substr(CASE j.`type` WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' ELSE CAST(j.`value` AS TEXT) END, 1, 100) AS `value`,
  p.`id` AS `person_id`
FROM `persons` p, json_each(p.`properties`) j
WHERE j.`type` <> 'null';
--> statement-breakpoint
CREATE TRIGGER `person_property_values_added` AFTER INSERT ON `persons` BEGIN
  INSERT OR IGNORE INTO `person_property_values` SELECT * FROM `person_property_text` WHERE `person_id` = new.`id`;
END;
--> statement-breakpoint
-- A change of properties: the old rows go before the update (the view still reads the old JSON),
-- the new ones come after it.
CREATE TRIGGER `person_property_values_changing` BEFORE UPDATE OF `properties` ON `persons`
WHEN old.`properties` IS NOT new.`properties` BEGIN
  DELETE FROM `person_property_values` WHERE `project_id` = old.`project_id` AND `person_id` = old.`id`
    AND (`key`, `value`) IN (SELECT `key`, `value` FROM `person_property_text` WHERE `person_id` = old.`id`);
END;
--> statement-breakpoint
CREATE TRIGGER `person_property_values_changed` AFTER UPDATE OF `properties` ON `persons`
WHEN old.`properties` IS NOT new.`properties` BEGIN
  INSERT OR IGNORE INTO `person_property_values` SELECT * FROM `person_property_text` WHERE `person_id` = new.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `person_property_values_removed` BEFORE DELETE ON `persons` BEGIN
  DELETE FROM `person_property_values` WHERE `project_id` = old.`project_id` AND `person_id` = old.`id`
    AND (`key`, `value`) IN (SELECT `key`, `value` FROM `person_property_text` WHERE `person_id` = old.`id`);
END;
--> statement-breakpoint
-- Each project's number of persons, for the unfiltered list's `count` and the list's choice of plan,
-- without counting a million index entries on every page.
CREATE TABLE `person_counts` (
  `project_id` integer PRIMARY KEY NOT NULL,
  `persons` integer NOT NULL
);
--> statement-breakpoint
CREATE TRIGGER `person_counts_added` AFTER INSERT ON `persons` BEGIN
  INSERT INTO `person_counts` (`project_id`, `persons`) VALUES (new.`project_id`, 1)
    ON CONFLICT (`project_id`) DO UPDATE SET `persons` = `persons` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `person_counts_removed` AFTER DELETE ON `persons` BEGIN
  UPDATE `person_counts` SET `persons` = `persons` - 1 WHERE `project_id` = old.`project_id`;
END;
--> statement-breakpoint
-- The persons already there, once the triggers exist: a row a trigger wrote first is kept, and the
-- count is taken afresh, so a write landing meanwhile is neither lost nor counted twice.
INSERT OR IGNORE INTO `person_property_values` SELECT * FROM `person_property_text`;
--> statement-breakpoint
INSERT OR REPLACE INTO `person_counts` (`project_id`, `persons`) SELECT `project_id`, count(*) FROM `persons` GROUP BY `project_id`;

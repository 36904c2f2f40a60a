-- The persons list's `search` (a substring of the email, the name, the uuid or a distinct id, ignoring
-- ASCII case) reads a trigram index instead of every person: one row per person (rowid = persons.id)
-- whose text is those fields, one per line. Triggers keep it in step with every write in the write's
-- own transaction (capture, merges, splits, property updates, deletions), so no code path can forget
-- it. Only rowids are indexed (detail='none'): LIKE '%term%' finds the candidates, which the list then
-- checks against the fields themselves. A person's row is written when their first distinct id is
-- (capture makes the person, then the id, in one batch), and rewritten whole (delete, insert) when
-- what it holds changes: writing it once per new person keeps capture's cost down.
CREATE VIRTUAL TABLE `person_search` USING fts5(`terms`, tokenize = 'trigram', detail = 'none');
--> statement-breakpoint
-- A person's searchable text, one field per line.
CREATE VIEW `person_search_text` AS SELECT p.`id` AS `id`,
  coalesce(json_extract(p.`properties`, '$.email'), '') || char(10) || coalesce(json_extract(p.`properties`, '$.name'), '')
    || char(10) || p.`uuid` || char(10)
    || coalesce((SELECT group_concat(d.`distinct_id`, char(10)) FROM `person_distinct_ids` d WHERE d.`person_id` = p.`id`), '') AS `terms`
FROM `persons` p;
--> statement-breakpoint
CREATE TRIGGER `person_search_person_renamed` AFTER UPDATE OF `properties` ON `persons`
WHEN json_extract(old.`properties`, '$.email') IS NOT json_extract(new.`properties`, '$.email')
  OR json_extract(old.`properties`, '$.name') IS NOT json_extract(new.`properties`, '$.name')
BEGIN
  DELETE FROM `person_search` WHERE `rowid` = new.`id`;
  INSERT INTO `person_search` (`rowid`, `terms`) SELECT `id`, `terms` FROM `person_search_text` WHERE `id` = new.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `person_search_person_deleted` AFTER DELETE ON `persons` BEGIN
  DELETE FROM `person_search` WHERE `rowid` = old.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `person_search_id_added` AFTER INSERT ON `person_distinct_ids` BEGIN
  DELETE FROM `person_search` WHERE `rowid` = new.`person_id`;
  INSERT INTO `person_search` (`rowid`, `terms`) SELECT `id`, `terms` FROM `person_search_text` WHERE `id` = new.`person_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `person_search_id_removed` AFTER DELETE ON `person_distinct_ids` BEGIN
  DELETE FROM `person_search` WHERE `rowid` = old.`person_id`;
  INSERT INTO `person_search` (`rowid`, `terms`) SELECT `id`, `terms` FROM `person_search_text` WHERE `id` = old.`person_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `person_search_id_moved` AFTER UPDATE OF `person_id`, `distinct_id` ON `person_distinct_ids` BEGIN
  DELETE FROM `person_search` WHERE `rowid` = old.`person_id`;
  INSERT INTO `person_search` (`rowid`, `terms`) SELECT `id`, `terms` FROM `person_search_text` WHERE `id` = old.`person_id`;
  DELETE FROM `person_search` WHERE `rowid` = new.`person_id`;
  INSERT INTO `person_search` (`rowid`, `terms`) SELECT `id`, `terms` FROM `person_search_text` WHERE `id` = new.`person_id`;
END;
--> statement-breakpoint
-- The persons already there, after the triggers exist (a rebuild on a live database misses no write).
INSERT INTO `person_search` (`rowid`, `terms`)
  SELECT `id`, `terms` FROM `person_search_text` WHERE `id` NOT IN (SELECT `rowid` FROM `person_search`);

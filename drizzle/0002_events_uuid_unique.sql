-- Events stored twice with one uuid (concurrent retries before this index existed) keep their
-- first copy; the lookup walks the existing (project_id, uuid) index, dropped only afterwards.
DELETE FROM `events` WHERE EXISTS (
  SELECT 1 FROM `events` e2 WHERE e2.`project_id` = `events`.`project_id` AND e2.`uuid` = `events`.`uuid` AND e2.`id` < `events`.`id`
);--> statement-breakpoint
DROP INDEX `events_project_uuid_idx`;--> statement-breakpoint
CREATE UNIQUE INDEX `events_project_uuid_unique` ON `events` (`project_id`,`uuid`);

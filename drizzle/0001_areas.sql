CREATE TABLE `cohort_people` (
	`cohort_id` integer NOT NULL,
	`person_id` integer NOT NULL,
	PRIMARY KEY(`cohort_id`, `person_id`),
	FOREIGN KEY (`cohort_id`) REFERENCES `cohorts`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`person_id`) REFERENCES `persons`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `cohort_people_person_idx` ON `cohort_people` (`person_id`);--> statement-breakpoint
CREATE TABLE `cohorts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`project_id` integer NOT NULL,
	`name` text DEFAULT '' NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`filters` text DEFAULT '{}' NOT NULL,
	`is_static` integer DEFAULT false NOT NULL,
	`deleted` integer DEFAULT false NOT NULL,
	`created_by` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`updated_at` text,
	`version` integer DEFAULT 1 NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `cohorts_project_idx` ON `cohorts` (`project_id`,`deleted`);--> statement-breakpoint
CREATE TABLE `endpoint_versions` (
	`id` text PRIMARY KEY NOT NULL,
	`endpoint_id` text NOT NULL,
	`version` integer NOT NULL,
	`query` text NOT NULL,
	`compiled` text,
	`description` text DEFAULT '' NOT NULL,
	`cache_age_seconds` integer,
	`is_materialized` integer DEFAULT false NOT NULL,
	`sync_frequency` text,
	`is_active` integer DEFAULT true NOT NULL,
	`created_by` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	FOREIGN KEY (`endpoint_id`) REFERENCES `endpoints`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `endpoint_versions_unique` ON `endpoint_versions` (`endpoint_id`,`version`);--> statement-breakpoint
CREATE TABLE `endpoints` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` integer NOT NULL,
	`name` text NOT NULL,
	`derived_from_insight` text,
	`is_active` integer DEFAULT true NOT NULL,
	`current_version` integer DEFAULT 1 NOT NULL,
	`created_by` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`updated_at` text,
	`last_executed_at` text,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `endpoints_name_unique` ON `endpoints` (`project_id`,`name`);--> statement-breakpoint
CREATE TABLE `events` (
	`id` integer PRIMARY KEY NOT NULL,
	`project_id` integer NOT NULL,
	`uuid` text NOT NULL,
	`event` text NOT NULL,
	`distinct_id` text NOT NULL,
	`person_id` integer,
	`properties` text DEFAULT '{}' NOT NULL,
	`timestamp` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `events_project_timestamp_idx` ON `events` (`project_id`,`timestamp`);--> statement-breakpoint
CREATE INDEX `events_project_event_timestamp_idx` ON `events` (`project_id`,`event`,`timestamp`);--> statement-breakpoint
CREATE INDEX `events_project_person_timestamp_idx` ON `events` (`project_id`,`person_id`,`timestamp`);--> statement-breakpoint
CREATE INDEX `events_project_uuid_idx` ON `events` (`project_id`,`uuid`);--> statement-breakpoint
CREATE TABLE `feature_flags` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`project_id` integer NOT NULL,
	`key` text NOT NULL,
	`name` text DEFAULT '' NOT NULL,
	`filters` text DEFAULT '{}' NOT NULL,
	`active` integer DEFAULT true NOT NULL,
	`deleted` integer DEFAULT false NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`ensure_experience_continuity` integer,
	`rollback_conditions` text,
	`performed_rollback` integer,
	`tags` text DEFAULT '[]' NOT NULL,
	`evaluation_tags` text DEFAULT '[]' NOT NULL,
	`analytics_dashboards` text DEFAULT '[]' NOT NULL,
	`has_enriched_analytics` integer,
	`is_remote_configuration` integer,
	`has_encrypted_payloads` integer,
	`evaluation_runtime` text,
	`bucketing_identifier` text,
	`creation_context` text,
	`created_by` text,
	`last_modified_by` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`updated_at` text,
	`last_called_at` text,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `feature_flags_live_key_unique` ON `feature_flags` (`project_id`,`key`) WHERE "feature_flags"."deleted" = 0;--> statement-breakpoint
CREATE INDEX `feature_flags_project_idx` ON `feature_flags` (`project_id`,`deleted`,`created_at`);--> statement-breakpoint
CREATE TABLE `flag_hash_key_overrides` (
	`project_id` integer NOT NULL,
	`person_id` integer NOT NULL,
	`feature_flag_key` text NOT NULL,
	`hash_key` text NOT NULL,
	PRIMARY KEY(`project_id`, `person_id`, `feature_flag_key`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`person_id`) REFERENCES `persons`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `group_type_mappings` (
	`project_id` integer NOT NULL,
	`group_type` text NOT NULL,
	`group_type_index` integer NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `group_type_mappings_type_unique` ON `group_type_mappings` (`project_id`,`group_type`);--> statement-breakpoint
CREATE UNIQUE INDEX `group_type_mappings_index_unique` ON `group_type_mappings` (`project_id`,`group_type_index`);--> statement-breakpoint
CREATE TABLE `groups` (
	`project_id` integer NOT NULL,
	`group_type_index` integer NOT NULL,
	`group_key` text NOT NULL,
	`properties` text DEFAULT '{}' NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`version` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `groups_key_unique` ON `groups` (`project_id`,`group_type_index`,`group_key`);--> statement-breakpoint
CREATE TABLE `person_distinct_ids` (
	`project_id` integer NOT NULL,
	`distinct_id` text NOT NULL,
	`person_id` integer NOT NULL,
	`version` integer DEFAULT 0 NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`person_id`) REFERENCES `persons`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `person_distinct_ids_unique` ON `person_distinct_ids` (`project_id`,`distinct_id`);--> statement-breakpoint
CREATE INDEX `person_distinct_ids_person_idx` ON `person_distinct_ids` (`person_id`);--> statement-breakpoint
CREATE TABLE `persons` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`project_id` integer NOT NULL,
	`uuid` text NOT NULL,
	`properties` text DEFAULT '{}' NOT NULL,
	`is_identified` integer DEFAULT false NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`version` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `persons_uuid_unique` ON `persons` (`project_id`,`uuid`);--> statement-breakpoint
CREATE INDEX `persons_project_created_idx` ON `persons` (`project_id`,`created_at`,`id`);
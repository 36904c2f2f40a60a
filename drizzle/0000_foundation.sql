CREATE TABLE `activity_log` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` integer NOT NULL,
	`scope` text NOT NULL,
	`item_id` text NOT NULL,
	`activity` text NOT NULL,
	`actor` text NOT NULL,
	`detail` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `activity_log_scope_item_idx` ON `activity_log` (`project_id`,`scope`,`item_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `personal_api_keys` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`label` text NOT NULL,
	`secure_value` text NOT NULL,
	`mask_value` text NOT NULL,
	`scopes` text NOT NULL,
	`scoped_projects` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`last_used_at` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `personal_api_keys_secure_value_unique` ON `personal_api_keys` (`secure_value`);--> statement-breakpoint
CREATE TABLE `projects` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`api_token` text NOT NULL,
	`timezone` text DEFAULT 'UTC' NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `projects_api_token_unique` ON `projects` (`api_token`);
CREATE TABLE `deployment` (
	`one` integer PRIMARY KEY DEFAULT 1 NOT NULL,
	`id` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	CONSTRAINT "deployment_one_row" CHECK("deployment"."one" = 1)
);
--> statement-breakpoint
-- The identity itself, a random UUID (version 4), made by whichever migration run creates the table:
-- on an existing deployment the next `migrations apply`, on a new one its first.
INSERT INTO `deployment` (`one`, `id`) VALUES (1,
	lower(hex(randomblob(4))) || '-' || lower(hex(randomblob(2))) || '-4' || substr(lower(hex(randomblob(2))), 2) || '-' ||
	substr('89ab', 1 + (abs(random()) % 4), 1) || substr(lower(hex(randomblob(2))), 2) || '-' || lower(hex(randomblob(6))));

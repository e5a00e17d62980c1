CREATE TABLE `dev_sandbox_pages` (
	`host` text NOT NULL,
	`path` text NOT NULL,
	`content_type` text NOT NULL,
	`body` text NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`host`, `path`)
);
--> statement-breakpoint
CREATE TABLE `dev_sandbox_requests` (
	`id` text PRIMARY KEY NOT NULL,
	`method` text NOT NULL,
	`url` text NOT NULL,
	`status` integer NOT NULL,
	`at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `dev_sandbox_requests_at_idx` ON `dev_sandbox_requests` (`at`);--> statement-breakpoint
ALTER TABLE `sites` ADD `verification_checked_at` integer;--> statement-breakpoint
ALTER TABLE `sites` ADD `verification_error` text;--> statement-breakpoint
ALTER TABLE `sites` ADD `verification_failures` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `sites` ADD `verification_due_at` integer;--> statement-breakpoint
CREATE INDEX `sites_verification_due_idx` ON `sites` (`verification_due_at`);
ALTER TABLE `email_outbox` ADD `dedupe_key` text;--> statement-breakpoint
CREATE UNIQUE INDEX `email_outbox_dedupe_unique` ON `email_outbox` (`dedupe_key`);
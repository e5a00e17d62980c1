ALTER TABLE `offer_entries` ADD `link_status` text;--> statement-breakpoint
ALTER TABLE `offer_entries` ADD `link_checked_at` integer;--> statement-breakpoint
ALTER TABLE `offer_entries` ADD `link_due_at` integer;--> statement-breakpoint
ALTER TABLE `offer_entries` ADD `link_watch_until` integer;--> statement-breakpoint
CREATE INDEX `offer_entries_link_due_idx` ON `offer_entries` (`link_due_at`);--> statement-breakpoint
-- Sides completed before this migration are watched too: first checked within a day, for a year after delivery.
UPDATE `offer_entries` SET `link_due_at` = `updated_at` + 86400000, `link_watch_until` = `updated_at` + 31536000000
WHERE `status` = 'completed' AND `content_url` IS NOT NULL AND `link_due_at` IS NULL;

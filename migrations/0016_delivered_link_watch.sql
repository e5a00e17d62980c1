ALTER TABLE `offer_entries` ADD `link_status` text;--> statement-breakpoint
ALTER TABLE `offer_entries` ADD `link_checked_at` integer;--> statement-breakpoint
ALTER TABLE `offer_entries` ADD `link_due_at` integer;--> statement-breakpoint
ALTER TABLE `offer_entries` ADD `link_watch_until` integer;--> statement-breakpoint
CREATE INDEX `offer_entries_link_due_idx` ON `offer_entries` (`link_due_at`);
ALTER TABLE `payment_events` ADD `outcome` text DEFAULT 'ignored' NOT NULL;--> statement-breakpoint
ALTER TABLE `payment_events` ADD `note` text;--> statement-breakpoint
ALTER TABLE `payment_events` ADD `payment_intent_id` text;--> statement-breakpoint
ALTER TABLE `payment_events` ADD `lot_id` text;--> statement-breakpoint
ALTER TABLE `payment_events` ADD `amount_total` integer;--> statement-breakpoint
ALTER TABLE `payment_events` ADD `currency` text;--> statement-breakpoint
ALTER TABLE `payment_events` ADD `connects_revoked` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `payment_events` ADD `claim` text;--> statement-breakpoint
CREATE INDEX `payment_events_intent_idx` ON `payment_events` (`payment_intent_id`);
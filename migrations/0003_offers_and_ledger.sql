CREATE TABLE `connect_hold_parts` (
	`offer_id` text NOT NULL,
	`lot_id` text NOT NULL,
	`amount` integer NOT NULL,
	PRIMARY KEY(`offer_id`, `lot_id`),
	FOREIGN KEY (`offer_id`) REFERENCES `offers`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`lot_id`) REFERENCES `connect_lots`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `connect_ledger` ADD `held` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `offers_pending_unique` ON `offers` (`sender_site_id`,`listing_id`) WHERE status = 'pending';
CREATE TABLE `known_devices` (
	`id` text NOT NULL,
	`user_id` text NOT NULL,
	`expires_at` integer NOT NULL,
	PRIMARY KEY(`id`, `user_id`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `known_devices_expires_idx` ON `known_devices` (`expires_at`);
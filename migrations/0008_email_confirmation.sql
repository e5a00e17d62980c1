CREATE TABLE `email_confirmation_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`expires_at` integer NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `email_confirmation_tokens_user_idx` ON `email_confirmation_tokens` (`user_id`);--> statement-breakpoint
CREATE INDEX `email_confirmation_tokens_expires_idx` ON `email_confirmation_tokens` (`expires_at`);
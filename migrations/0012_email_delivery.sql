ALTER TABLE `email_outbox` ADD `transport` text;--> statement-breakpoint
ALTER TABLE `email_outbox` ADD `provider_message_id` text;--> statement-breakpoint
ALTER TABLE `users` ADD `notification_emails` integer DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE `users` ADD `unsubscribe_token` text;--> statement-breakpoint
CREATE UNIQUE INDEX `users_unsubscribe_token_unique` ON `users` (`unsubscribe_token`);
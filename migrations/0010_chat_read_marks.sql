ALTER TABLE `chats` ADD `last_message_id` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `chats` ADD `user_a_read_id` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `chats` ADD `user_b_read_id` integer DEFAULT 0 NOT NULL;
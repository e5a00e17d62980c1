CREATE TABLE `beta_signups` (
	`id` text PRIMARY KEY NOT NULL,
	`email` text,
	`url` text NOT NULL,
	`host` text NOT NULL,
	`category` text NOT NULL,
	`description` text NOT NULL,
	`source` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `beta_signups_email_idx` ON `beta_signups` (`email`);--> statement-breakpoint
CREATE INDEX `beta_signups_created_idx` ON `beta_signups` (`created_at`);--> statement-breakpoint
CREATE TABLE `chats` (
	`id` text PRIMARY KEY NOT NULL,
	`user_a_id` text NOT NULL,
	`user_b_id` text NOT NULL,
	`site_a_id` text,
	`site_b_id` text,
	`last_message` text,
	`last_sender_id` text,
	`last_updated` integer NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`user_a_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_b_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`site_a_id`) REFERENCES `sites`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`site_b_id`) REFERENCES `sites`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `chats_pair_unique` ON `chats` (`user_a_id`,`user_b_id`);--> statement-breakpoint
CREATE INDEX `chats_user_b_idx` ON `chats` (`user_b_id`,`last_updated`);--> statement-breakpoint
CREATE INDEX `chats_user_a_idx` ON `chats` (`user_a_id`,`last_updated`);--> statement-breakpoint
CREATE TABLE `connect_ledger` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`kind` text NOT NULL,
	`amount` integer NOT NULL,
	`lot_id` text,
	`offer_id` text,
	`payment_event_id` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `connect_ledger_user_idx` ON `connect_ledger` (`user_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `connect_ledger_offer_idx` ON `connect_ledger` (`offer_id`);--> statement-breakpoint
CREATE TABLE `connect_lots` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`source` text NOT NULL,
	`amount` integer NOT NULL,
	`remaining` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`payment_event_id` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `connect_lots_user_expires_idx` ON `connect_lots` (`user_id`,`expires_at`);--> statement-breakpoint
CREATE TABLE `email_outbox` (
	`id` text PRIMARY KEY NOT NULL,
	`to_address` text NOT NULL,
	`subject` text NOT NULL,
	`text_body` text NOT NULL,
	`kind` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`last_error` text,
	`next_attempt_at` integer NOT NULL,
	`sent_at` integer,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `email_outbox_status_next_idx` ON `email_outbox` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `email_outbox_created_idx` ON `email_outbox` (`created_at`);--> statement-breakpoint
CREATE TABLE `feedback` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text,
	`site_id` text,
	`text` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`site_id`) REFERENCES `sites`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `feedback_created_idx` ON `feedback` (`created_at`);--> statement-breakpoint
CREATE TABLE `link_checks` (
	`id` text PRIMARY KEY NOT NULL,
	`offer_id` text NOT NULL,
	`user_id` text NOT NULL,
	`content_url` text NOT NULL,
	`target_host` text NOT NULL,
	`state` text NOT NULL,
	`rel` text,
	`anchor_text` text,
	`error` text,
	`checked_at` integer NOT NULL,
	FOREIGN KEY (`offer_id`) REFERENCES `offers`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `link_checks_offer_idx` ON `link_checks` (`offer_id`,`checked_at`);--> statement-breakpoint
CREATE INDEX `link_checks_checked_idx` ON `link_checks` (`checked_at`);--> statement-breakpoint
CREATE TABLE `listings` (
	`id` text PRIMARY KEY NOT NULL,
	`site_id` text NOT NULL,
	`user_id` text NOT NULL,
	`connects` integer NOT NULL,
	`content_types` text DEFAULT '[]' NOT NULL,
	`materials` text DEFAULT '[]' NOT NULL,
	`active` integer DEFAULT true NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`site_id`) REFERENCES `sites`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `listings_site_unique` ON `listings` (`site_id`);--> statement-breakpoint
CREATE INDEX `listings_active_created_idx` ON `listings` (`active`,`created_at`);--> statement-breakpoint
CREATE INDEX `listings_user_idx` ON `listings` (`user_id`);--> statement-breakpoint
CREATE TABLE `oauth_accounts` (
	`provider` text NOT NULL,
	`provider_user_id` text NOT NULL,
	`user_id` text NOT NULL,
	`email` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	PRIMARY KEY(`provider`, `provider_user_id`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `oauth_accounts_user_idx` ON `oauth_accounts` (`user_id`);--> statement-breakpoint
CREATE TABLE `offer_entries` (
	`offer_id` text NOT NULL,
	`user_id` text NOT NULL,
	`site_id` text NOT NULL,
	`role` text NOT NULL,
	`create_content_type` text NOT NULL,
	`provide_materials` text DEFAULT '[]' NOT NULL,
	`status` text DEFAULT 'not_started' NOT NULL,
	`content_url` text,
	`trashed_at` integer,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`offer_id`, `user_id`),
	FOREIGN KEY (`offer_id`) REFERENCES `offers`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`site_id`) REFERENCES `sites`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `offer_entries_user_idx` ON `offer_entries` (`user_id`);--> statement-breakpoint
CREATE TABLE `offers` (
	`id` text PRIMARY KEY NOT NULL,
	`listing_id` text,
	`sender_user_id` text NOT NULL,
	`sender_site_id` text NOT NULL,
	`receiver_user_id` text NOT NULL,
	`receiver_site_id` text NOT NULL,
	`connects` integer NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`answer_by` integer NOT NULL,
	`answered_at` integer,
	`expired_at` integer,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`listing_id`) REFERENCES `listings`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`sender_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`sender_site_id`) REFERENCES `sites`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`receiver_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`receiver_site_id`) REFERENCES `sites`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `offers_sender_site_idx` ON `offers` (`sender_site_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `offers_receiver_site_idx` ON `offers` (`receiver_site_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `offers_status_answer_by_idx` ON `offers` (`status`,`answer_by`);--> statement-breakpoint
CREATE TABLE `password_credentials` (
	`user_id` text PRIMARY KEY NOT NULL,
	`password_hash` text NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `password_reset_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `password_reset_tokens_user_idx` ON `password_reset_tokens` (`user_id`);--> statement-breakpoint
CREATE INDEX `password_reset_tokens_expires_idx` ON `password_reset_tokens` (`expires_at`);--> statement-breakpoint
CREATE TABLE `payment_events` (
	`id` text PRIMARY KEY NOT NULL,
	`type` text NOT NULL,
	`checkout_session_id` text,
	`user_id` text,
	`connects` integer,
	`processed_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `payment_events_checkout_unique` ON `payment_events` (`checkout_session_id`);--> statement-breakpoint
CREATE TABLE `rate_limits` (
	`key` text NOT NULL,
	`window_start` integer NOT NULL,
	`count` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`key`, `window_start`)
);
--> statement-breakpoint
CREATE INDEX `rate_limits_window_idx` ON `rate_limits` (`window_start`);--> statement-breakpoint
CREATE TABLE `score_runs` (
	`id` text PRIMARY KEY NOT NULL,
	`site_id` text NOT NULL,
	`status` text NOT NULL,
	`score` integer,
	`details` text,
	`error` text,
	`started_at` integer NOT NULL,
	`finished_at` integer,
	FOREIGN KEY (`site_id`) REFERENCES `sites`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `score_runs_site_idx` ON `score_runs` (`site_id`,`started_at`);--> statement-breakpoint
CREATE TABLE `sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`active_site_id` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`expires_at` integer NOT NULL,
	`absolute_expires_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `sessions_user_idx` ON `sessions` (`user_id`);--> statement-breakpoint
CREATE INDEX `sessions_expires_idx` ON `sessions` (`expires_at`);--> statement-breakpoint
CREATE TABLE `sites` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`url` text NOT NULL,
	`host` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`category` text DEFAULT 'blog' NOT NULL,
	`icon` text,
	`verified` integer DEFAULT false NOT NULL,
	`verification_token` text NOT NULL,
	`verified_at` integer,
	`score` integer,
	`score_run_at` integer,
	`domain_authority` integer,
	`on_page_seo` integer,
	`technical_seo` integer,
	`links` integer,
	`speed` integer,
	`ssl` integer,
	`tags` text DEFAULT '[]' NOT NULL,
	`materials` text DEFAULT '[]' NOT NULL,
	`content_types` text DEFAULT '[]' NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `sites_user_idx` ON `sites` (`user_id`,`created_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `sites_user_host_unique` ON `sites` (`user_id`,`host`);--> statement-breakpoint
CREATE INDEX `sites_host_idx` ON `sites` (`host`);--> statement-breakpoint
CREATE INDEX `sites_score_idx` ON `sites` (`score`);--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`email_verified` integer DEFAULT false NOT NULL,
	`connects` integer DEFAULT 0 NOT NULL,
	`connects_held` integer DEFAULT 0 NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_email_unique` ON `users` (`email`);
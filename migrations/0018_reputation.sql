ALTER TABLE `sites` ADD `rep_completed` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `sites` ADD `rep_settled` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `sites` ADD `rep_answered` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `sites` ADD `rep_answer_ms` integer;--> statement-breakpoint
ALTER TABLE `sites` ADD `rep_links_30` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `sites` ADD `rep_live_30` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `sites` ADD `rep_links_90` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `sites` ADD `rep_live_90` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `sites` ADD `rep_sort` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
CREATE INDEX `sites_rep_sort_idx` ON `sites` (`rep_sort`,`id`);
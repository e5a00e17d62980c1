ALTER TABLE `sites` ADD `search_rowid` integer;--> statement-breakpoint
CREATE UNIQUE INDEX `sites_search_rowid_unique` ON `sites` (`search_rowid`);
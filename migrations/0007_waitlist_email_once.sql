DROP INDEX `beta_signups_email_idx`;--> statement-breakpoint
-- Keep the latest entry of each email before the index makes them unique.
DELETE FROM `beta_signups` WHERE `email` IS NOT NULL AND rowid NOT IN (SELECT max(rowid) FROM `beta_signups` WHERE `email` IS NOT NULL GROUP BY `email`);--> statement-breakpoint
CREATE UNIQUE INDEX `beta_signups_email_unique` ON `beta_signups` (`email`);

-- Sorted by record, sites with the same record key now come newest indexed first (`sites.search_rowid`, descending),
-- where the site's id decided before (0027): the order every other search and the market's newest-first list already
-- read their indexes in. Every site has the no-record key (1) until its first counted trade, so in a market where most
-- sites have no record, a search sorted by record is the good records (a few sites, walked) and then the search newest
-- first, read from its own index with each entry's key checked (`sites_tradable_idx` holds it, 0023). Ordered by site
-- id, those sites came in an order no search index shares: "shop" sorted by record read its 15,400 matches at a million
-- sites and sorted them (89 to 111 ms p95 with 8 clients, against 30 to 35 newest first).
-- The record indexes of `sites`, `site_tags` and `site_tag_pairs` are made again on (key, search_rowid), and the
-- site's id leaves both tag tables, where only the old order used it.
DROP INDEX `sites_rep_sort_idx`;
--> statement-breakpoint
DROP INDEX `sites_tradable_record_idx`;
--> statement-breakpoint
-- Verified sites in record order, with what a walk checks on the entry (the owner) and needs for the listing (the id).
-- The market sorted by record reads it too (its sites are verified), in place of `sites_rep_sort_idx` (0018).
CREATE INDEX `sites_tradable_record_idx` ON `sites` (`rep_sort`, `search_rowid`, `id`, `user_id`) WHERE `verified` = 1;
--> statement-breakpoint
DROP TRIGGER `sites_tags_update`;
--> statement-breakpoint
DROP TRIGGER `sites_tag_pairs_update`;
--> statement-breakpoint
DROP INDEX `site_tags_record_idx`;
--> statement-breakpoint
DROP INDEX `site_tag_pairs_record_idx`;
--> statement-breakpoint
ALTER TABLE `site_tags` DROP COLUMN `site_id`;
--> statement-breakpoint
ALTER TABLE `site_tag_pairs` DROP COLUMN `site_id`;
--> statement-breakpoint
-- A tag's, or a pair's, sites best record first and newest first among equal records, read backwards.
CREATE INDEX `site_tags_record_idx` ON `site_tags` (`tag`, `rep_sort`, `search_rowid`);
--> statement-breakpoint
CREATE INDEX `site_tag_pairs_record_idx` ON `site_tag_pairs` (`pair`, `rep_sort`, `search_rowid`);
--> statement-breakpoint
-- 0027's triggers without the site's id.
CREATE TRIGGER `sites_tags_update` AFTER UPDATE OF `search_rowid`, `tags` ON `sites` BEGIN
  DELETE FROM `site_tags` WHERE `search_rowid` = OLD.`search_rowid`;
  INSERT OR IGNORE INTO `site_tags` (`tag`, `search_rowid`, `rep_sort`)
  SELECT `value`, NEW.`search_rowid`, NEW.`rep_sort` FROM json_each(NEW.`tags`) WHERE NEW.`search_rowid` IS NOT NULL;
END;
--> statement-breakpoint
CREATE TRIGGER `sites_tag_pairs_update` AFTER UPDATE OF `search_rowid`, `tags` ON `sites` BEGIN
  DELETE FROM `site_tag_pairs` WHERE `search_rowid` = OLD.`search_rowid`;
  INSERT OR IGNORE INTO `site_tag_pairs` (`pair`, `search_rowid`, `rep_sort`)
  SELECT a.`value` || ' ' || b.`value`, NEW.`search_rowid`, NEW.`rep_sort` FROM json_each(NEW.`tags`) AS a, json_each(NEW.`tags`) AS b
  WHERE NEW.`search_rowid` IS NOT NULL AND a.`value` < b.`value`;
END;

-- Each site's tags, one row per tag, in the order of `sites.search_rowid`: the dashboard's 'Try these sites about
-- {tag}' walks a tag's sites from a random point. It read them from the trigram index (0002) as the phrase '#tag#',
-- nine trigrams' entries merged and checked for position (about 2 ms of a /mysite request at 100,000 sites); here
-- the walk is a range of one index. Triggers keep the rows in step with `sites`, as 0020's do for `site_grams`.
CREATE TABLE `site_tags` (
  `tag` text NOT NULL,
  `search_rowid` integer NOT NULL,
  PRIMARY KEY (`tag`, `search_rowid`)
) WITHOUT ROWID;
--> statement-breakpoint
INSERT OR IGNORE INTO `site_tags` (`tag`, `search_rowid`)
SELECT `value`, `search_rowid` FROM `sites`, json_each(`sites`.`tags`) WHERE `search_rowid` IS NOT NULL;
--> statement-breakpoint
-- A new site gets its search_rowid from the 0002 insert trigger; its tags follow from that update, as do changed tags.
CREATE TRIGGER `sites_tags_update` AFTER UPDATE OF `search_rowid`, `tags` ON `sites` BEGIN
  DELETE FROM `site_tags` WHERE `search_rowid` = OLD.`search_rowid`;
  INSERT OR IGNORE INTO `site_tags` (`tag`, `search_rowid`)
  SELECT `value`, NEW.`search_rowid` FROM json_each(NEW.`tags`) WHERE NEW.`search_rowid` IS NOT NULL;
END;
--> statement-breakpoint
CREATE TRIGGER `sites_tags_delete` AFTER DELETE ON `sites` BEGIN
  DELETE FROM `site_tags` WHERE `search_rowid` = OLD.`search_rowid`;
END;

-- A term with tags: the trigram index of the sites that have a tag, or a pair of tags, each set of sites apart. The
-- whole index (0002) matched a term with tags as one AND of phrases, checking the term's positions on every site that
-- has the tags, or the tags on every site with the term: at a million sites, a term one site in seven has with two
-- tags (0.2% of the sites) took 6 to 9 ms of SQLite, and a rarer term with two tags 20 to 25 ms, reading the whole
-- intersection. Here each tag (`'ai'`) and each pair of tags (`'ai seo'`, the ids in order, as `site_tag_pairs` keys
-- them) is a group, and a site has one row per group it belongs to. The row id puts each group in a range of its own
-- (the group's id times 2^32), newest site first (2^32 - 1 minus `sites.search_rowid`): a search reads its group's
-- range upwards, the direction FTS5 seeks quickly (downwards from the middle of a doclist it steps back through its
-- index: 21 ms against 0.3 ms for a term every site matches). The same searches take 0.1 to 0.3 ms.
-- Contentless (the text is in `site_search`), and `contentless_delete` so a site's rows can be deleted by row id.
-- The cost: a row per tag and per pair, so a site with k tags has k + k(k - 1)/2 rows (two tags: 3; every one of the
-- 13: 91). At a million sites with one to three tags: 3.3 million rows, about 2 GB.
CREATE TABLE `search_tag_groups` (
  `id` integer PRIMARY KEY NOT NULL,
  `tags` text NOT NULL UNIQUE
);
--> statement-breakpoint
CREATE VIRTUAL TABLE `site_tag_search` USING fts5(`body`, tokenize = 'trigram', content = '', contentless_delete = 1);
--> statement-breakpoint
INSERT INTO `search_tag_groups` (`tags`)
SELECT `tags` FROM (SELECT `tag` AS `tags` FROM `site_tags` UNION SELECT `pair` FROM `site_tag_pairs`) ORDER BY `tags`;
--> statement-breakpoint
-- The text is 0002's, so a term matches here exactly what it matches there.
INSERT INTO `site_tag_search` (`rowid`, `body`)
SELECT DISTINCT g.`id` * 4294967296 + 4294967295 - s.`search_rowid`,
  s.`url` || ' ' || s.`description` || ' ' || s.`category` || ' ' ||
  coalesce((SELECT group_concat('#' || `value` || '#', ' ') FROM json_each(s.`tags`)), '')
FROM `sites` AS s, json_each(s.`tags`) AS t, `search_tag_groups` AS g
WHERE s.`search_rowid` IS NOT NULL AND g.`tags` = t.`value`;
--> statement-breakpoint
INSERT INTO `site_tag_search` (`rowid`, `body`)
SELECT DISTINCT g.`id` * 4294967296 + 4294967295 - s.`search_rowid`,
  s.`url` || ' ' || s.`description` || ' ' || s.`category` || ' ' ||
  coalesce((SELECT group_concat('#' || `value` || '#', ' ') FROM json_each(s.`tags`)), '')
FROM `sites` AS s, json_each(s.`tags`) AS a, json_each(s.`tags`) AS b, `search_tag_groups` AS g
WHERE s.`search_rowid` IS NOT NULL AND a.`value` < b.`value` AND g.`tags` = a.`value` || ' ' || b.`value`;
--> statement-breakpoint
-- A new site gets its search_rowid from the 0002 insert trigger; its rows follow from that update, as do a changed
-- text or tags: the old rows go, and the new ones are written (a group no site had before gets its id here).
CREATE TRIGGER `sites_tag_search_update` AFTER UPDATE OF `search_rowid`, `url`, `description`, `category`, `tags` ON `sites` BEGIN
  DELETE FROM `site_tag_search` WHERE `rowid` IN (
    SELECT g.`id` * 4294967296 + 4294967295 - OLD.`search_rowid` FROM `search_tag_groups` AS g WHERE g.`tags` IN (
      SELECT `value` FROM json_each(OLD.`tags`)
      UNION SELECT a.`value` || ' ' || b.`value` FROM json_each(OLD.`tags`) AS a, json_each(OLD.`tags`) AS b WHERE a.`value` < b.`value`));
  INSERT OR IGNORE INTO `search_tag_groups` (`tags`)
  SELECT `value` FROM json_each(NEW.`tags`) WHERE NEW.`search_rowid` IS NOT NULL
  UNION SELECT a.`value` || ' ' || b.`value` FROM json_each(NEW.`tags`) AS a, json_each(NEW.`tags`) AS b
  WHERE NEW.`search_rowid` IS NOT NULL AND a.`value` < b.`value`;
  INSERT INTO `site_tag_search` (`rowid`, `body`)
  SELECT g.`id` * 4294967296 + 4294967295 - NEW.`search_rowid`,
    NEW.`url` || ' ' || NEW.`description` || ' ' || NEW.`category` || ' ' ||
    coalesce((SELECT group_concat('#' || `value` || '#', ' ') FROM json_each(NEW.`tags`)), '')
  FROM `search_tag_groups` AS g WHERE NEW.`search_rowid` IS NOT NULL AND g.`tags` IN (
    SELECT `value` FROM json_each(NEW.`tags`)
    UNION SELECT a.`value` || ' ' || b.`value` FROM json_each(NEW.`tags`) AS a, json_each(NEW.`tags`) AS b WHERE a.`value` < b.`value`);
END;
--> statement-breakpoint
CREATE TRIGGER `sites_tag_search_delete` AFTER DELETE ON `sites` BEGIN
  DELETE FROM `site_tag_search` WHERE `rowid` IN (
    SELECT g.`id` * 4294967296 + 4294967295 - OLD.`search_rowid` FROM `search_tag_groups` AS g WHERE g.`tags` IN (
      SELECT `value` FROM json_each(OLD.`tags`)
      UNION SELECT a.`value` || ' ' || b.`value` FROM json_each(OLD.`tags`) AS a, json_each(OLD.`tags`) AS b WHERE a.`value` < b.`value`));
END;

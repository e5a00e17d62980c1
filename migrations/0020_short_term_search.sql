-- Search for one- and two-character terms: the trigram index (0002) cannot match fewer than three characters, and
-- walking every listing with LIKE took 250 ms for a rare pair at 100,000 sites. `site_grams` indexes each site's
-- distinct characters ('u' + hex of the UTF-8 bytes) and pairs of characters ('b' + hex) over the same fields the
-- short-term LIKE reads, lower-cased as SQLite's LIKE compares them; a short term's gram finds the candidates and the
-- LIKE still decides. Rows share their rowid with `site_search` (`sites.search_rowid`). `detail=none`: only which
-- sites hold a gram is stored, not where.
CREATE VIRTUAL TABLE `site_grams` USING fts5(`grams`, detail = none, tokenize = 'ascii');
--> statement-breakpoint
-- Character positions 1..4096, for splitting a text into grams without a recursive query (triggers cannot have one).
CREATE TABLE `gram_positions` (`n` integer PRIMARY KEY NOT NULL);
--> statement-breakpoint
INSERT INTO `gram_positions` (`n`)
WITH RECURSIVE `seq`(`n`) AS (SELECT 1 UNION ALL SELECT `n` + 1 FROM `seq` WHERE `n` < 4096) SELECT `n` FROM `seq`;
--> statement-breakpoint
INSERT INTO `site_grams` (`rowid`, `grams`)
SELECT `search_rowid`, (SELECT group_concat(`gram`, ' ') FROM (
    SELECT 'u' || hex(substr(`t`, `n`, 1)) AS `gram` FROM `gram_positions`, (SELECT lower(`sites`.`url` || ' ' || `sites`.`description` || ' ' || `sites`.`category` || ' ' || `sites`.`tags`) AS `t`) WHERE `n` <= length(`t`)
    UNION
    SELECT 'b' || hex(substr(`t`, `n`, 2)) FROM `gram_positions`, (SELECT lower(`sites`.`url` || ' ' || `sites`.`description` || ' ' || `sites`.`category` || ' ' || `sites`.`tags`) AS `t`) WHERE `n` < length(`t`)
  )) FROM `sites` WHERE `search_rowid` IS NOT NULL;
--> statement-breakpoint
-- A new site gets its search_rowid from the 0002 insert trigger; its grams follow from that update.
CREATE TRIGGER `sites_grams_rowid` AFTER UPDATE OF `search_rowid` ON `sites` BEGIN
  DELETE FROM `site_grams` WHERE `rowid` = OLD.`search_rowid`;
  INSERT INTO `site_grams` (`rowid`, `grams`) VALUES (NEW.`search_rowid`, (SELECT group_concat(`gram`, ' ') FROM (
    SELECT 'u' || hex(substr(`t`, `n`, 1)) AS `gram` FROM `gram_positions`, (SELECT lower(NEW.`url` || ' ' || NEW.`description` || ' ' || NEW.`category` || ' ' || NEW.`tags`) AS `t`) WHERE `n` <= length(`t`)
    UNION
    SELECT 'b' || hex(substr(`t`, `n`, 2)) FROM `gram_positions`, (SELECT lower(NEW.`url` || ' ' || NEW.`description` || ' ' || NEW.`category` || ' ' || NEW.`tags`) AS `t`) WHERE `n` < length(`t`)
  )));
END;
--> statement-breakpoint
CREATE TRIGGER `sites_grams_update` AFTER UPDATE OF `url`, `description`, `category`, `tags` ON `sites` BEGIN
  UPDATE `site_grams` SET `grams` = (SELECT group_concat(`gram`, ' ') FROM (
    SELECT 'u' || hex(substr(`t`, `n`, 1)) AS `gram` FROM `gram_positions`, (SELECT lower(NEW.`url` || ' ' || NEW.`description` || ' ' || NEW.`category` || ' ' || NEW.`tags`) AS `t`) WHERE `n` <= length(`t`)
    UNION
    SELECT 'b' || hex(substr(`t`, `n`, 2)) FROM `gram_positions`, (SELECT lower(NEW.`url` || ' ' || NEW.`description` || ' ' || NEW.`category` || ' ' || NEW.`tags`) AS `t`) WHERE `n` < length(`t`)
  )) WHERE `rowid` = NEW.`search_rowid`;
END;
--> statement-breakpoint
CREATE TRIGGER `sites_grams_delete` AFTER DELETE ON `sites` BEGIN
  DELETE FROM `site_grams` WHERE `rowid` = OLD.`search_rowid`;
END;

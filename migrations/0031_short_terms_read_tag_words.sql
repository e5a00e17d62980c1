-- Short terms (one or two characters) matched the tags' stored form, a JSON array: '[', ']', '"' or ',' found every
-- site. The tags now count as their words ("seo blog"), in the grams that find a short term's candidates (0020) as in
-- the check that decides (termCondition in app/services/search.server.ts); the grams of every site are made again.
DROP TRIGGER `sites_grams_rowid`;
--> statement-breakpoint
DROP TRIGGER `sites_grams_update`;
--> statement-breakpoint
CREATE TRIGGER `sites_grams_rowid` AFTER UPDATE OF `search_rowid` ON `sites` BEGIN
  DELETE FROM `site_grams` WHERE `rowid` = OLD.`search_rowid`;
  INSERT INTO `site_grams` (`rowid`, `grams`) VALUES (NEW.`search_rowid`, (SELECT group_concat(`gram`, ' ') FROM (
    SELECT 'u' || hex(substr(`t`, `n`, 1)) AS `gram` FROM `gram_positions`, (SELECT lower(NEW.`url` || ' ' || NEW.`description` || ' ' || NEW.`category` || ' ' || replace(replace(replace(replace(NEW.`tags`, '[]', ''), '["', ''), '","', ' '), '"]', '')) AS `t`) WHERE `n` <= length(`t`)
    UNION
    SELECT 'b' || hex(substr(`t`, `n`, 2)) FROM `gram_positions`, (SELECT lower(NEW.`url` || ' ' || NEW.`description` || ' ' || NEW.`category` || ' ' || replace(replace(replace(replace(NEW.`tags`, '[]', ''), '["', ''), '","', ' '), '"]', '')) AS `t`) WHERE `n` < length(`t`)
  )));
END;
--> statement-breakpoint
CREATE TRIGGER `sites_grams_update` AFTER UPDATE OF `url`, `description`, `category`, `tags` ON `sites` BEGIN
  UPDATE `site_grams` SET `grams` = (SELECT group_concat(`gram`, ' ') FROM (
    SELECT 'u' || hex(substr(`t`, `n`, 1)) AS `gram` FROM `gram_positions`, (SELECT lower(NEW.`url` || ' ' || NEW.`description` || ' ' || NEW.`category` || ' ' || replace(replace(replace(replace(NEW.`tags`, '[]', ''), '["', ''), '","', ' '), '"]', '')) AS `t`) WHERE `n` <= length(`t`)
    UNION
    SELECT 'b' || hex(substr(`t`, `n`, 2)) FROM `gram_positions`, (SELECT lower(NEW.`url` || ' ' || NEW.`description` || ' ' || NEW.`category` || ' ' || replace(replace(replace(replace(NEW.`tags`, '[]', ''), '["', ''), '","', ' '), '"]', '')) AS `t`) WHERE `n` < length(`t`)
  )) WHERE `rowid` = NEW.`search_rowid`;
END;
--> statement-breakpoint
DELETE FROM `site_grams`;
--> statement-breakpoint
INSERT INTO `site_grams` (`rowid`, `grams`)
SELECT `search_rowid`, (SELECT group_concat(`gram`, ' ') FROM (
    SELECT 'u' || hex(substr(`t`, `n`, 1)) AS `gram` FROM `gram_positions`, (SELECT lower(`sites`.`url` || ' ' || `sites`.`description` || ' ' || `sites`.`category` || ' ' || replace(replace(replace(replace(`sites`.`tags`, '[]', ''), '["', ''), '","', ' '), '"]', '')) AS `t`) WHERE `n` <= length(`t`)
    UNION
    SELECT 'b' || hex(substr(`t`, `n`, 2)) FROM `gram_positions`, (SELECT lower(`sites`.`url` || ' ' || `sites`.`description` || ' ' || `sites`.`category` || ' ' || replace(replace(replace(replace(`sites`.`tags`, '[]', ''), '["', ''), '","', ' '), '"]', '')) AS `t`) WHERE `n` < length(`t`)
  )) FROM `sites` WHERE `search_rowid` IS NOT NULL;

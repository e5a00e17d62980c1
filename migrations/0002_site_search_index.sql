-- Full-text search over listings' sites: address, description, category and tags, case-insensitive,
-- matching anywhere in the text (trigram tokenizer). Tags are written as #tag# so a category filter matches the
-- tag exactly. Triggers keep the index in step with `sites`; `sites.search_rowid` links a site to its row.
CREATE VIRTUAL TABLE `site_search` USING fts5(`body`, tokenize = 'trigram');
--> statement-breakpoint
INSERT INTO `site_search` (`rowid`, `body`)
SELECT `rowid`, `url` || ' ' || `description` || ' ' || `category` || ' ' ||
  coalesce((SELECT group_concat('#' || `value` || '#', ' ') FROM json_each(`sites`.`tags`)), '')
FROM `sites`;
--> statement-breakpoint
UPDATE `sites` SET `search_rowid` = `rowid`;
--> statement-breakpoint
CREATE TRIGGER `sites_search_insert` AFTER INSERT ON `sites` BEGIN
  INSERT INTO `site_search` (`body`) VALUES (
    NEW.`url` || ' ' || NEW.`description` || ' ' || NEW.`category` || ' ' ||
    coalesce((SELECT group_concat('#' || `value` || '#', ' ') FROM json_each(NEW.`tags`)), '')
  );
  UPDATE `sites` SET `search_rowid` = last_insert_rowid() WHERE `id` = NEW.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `sites_search_update` AFTER UPDATE OF `url`, `description`, `category`, `tags` ON `sites` BEGIN
  UPDATE `site_search` SET `body` =
    NEW.`url` || ' ' || NEW.`description` || ' ' || NEW.`category` || ' ' ||
    coalesce((SELECT group_concat('#' || `value` || '#', ' ') FROM json_each(NEW.`tags`)), '')
  WHERE `rowid` = NEW.`search_rowid`;
END;
--> statement-breakpoint
CREATE TRIGGER `sites_search_delete` AFTER DELETE ON `sites` BEGIN
  DELETE FROM `site_search` WHERE `rowid` = OLD.`search_rowid`;
END;

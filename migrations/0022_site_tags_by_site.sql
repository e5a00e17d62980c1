-- `site_tags` (0021) is keyed by tag first, so its triggers' "every row of this site" (DELETE … WHERE search_rowid =)
-- read the whole table: each new site, tags saved or site removed scanned every site's tags (two million rows at a
-- million sites; seeding a million sites stalled on it). This index finds a site's rows directly.
CREATE INDEX `site_tags_search_rowid_idx` ON `site_tags` (`search_rowid`);

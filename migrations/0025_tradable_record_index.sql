-- A search sorted by record walks the sites best record first (app/services/search.server.ts) and checks each one:
-- its owner and tags, and its text or score where the search has a term or bands. Walked through `sites_rep_sort_idx`
-- (0018), each site was a row read out of order: two tags, which one site in sixty has together, read 1,500 rows for a
-- page (15 ms at a million sites). This partial index of verified sites in record order holds the owner and the tags'
-- key, so a site without the tags, or the viewer's own, costs an index entry and a lookup in a small index.
CREATE INDEX `sites_tradable_record_idx` ON `sites` (`rep_sort`, `id`, `search_rowid`, `user_id`) WHERE `verified` = 1;

-- A search counts up to a hundred of its matches (the count line, "100+ sites available"), and each one is checked
-- for being tradable: a verified site that is not the viewer's, with an active listing. Read from the sites and
-- listings themselves, that is two rows read out of order per match (about 1.8 ms of a search's 4.5 at a million
-- sites). These two partial indexes hold what the check needs, so it reads index entries only: the site's index row
-- id, owner, id, record and score, and the listing's site.
CREATE INDEX `sites_tradable_idx` ON `sites` (`search_rowid`, `user_id`, `id`, `rep_sort`, `score`, `placeholder_score`) WHERE `verified` = 1;--> statement-breakpoint
CREATE INDEX `listings_active_site_idx` ON `listings` (`site_id`) WHERE `active` = 1;

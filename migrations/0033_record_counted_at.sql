-- When a site's record was counted, so that of two refreshes that overlap the one that counted later is kept
-- (app/services/reputation.server.ts). A constant default: adding it rewrites no row.
ALTER TABLE `sites` ADD `rep_counted_at` integer DEFAULT 0 NOT NULL;
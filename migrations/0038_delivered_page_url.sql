-- The delivered page itself (where it was read after redirects, less the query string its canonical address drops):
-- a page reached by a second address (a query string, a short link) is the same delivery, and counts once.
ALTER TABLE `offer_entries` ADD `page_url` text;
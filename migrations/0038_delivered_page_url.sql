-- The delivered page itself (its canonical address on the deliverer's site, else where it was read after redirects):
-- a page reached by a second address (a query string, a short link) is the same delivery, and counts once.
ALTER TABLE `offer_entries` ADD `page_url` text;
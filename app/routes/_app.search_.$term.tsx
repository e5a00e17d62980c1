// /search/{term}: the same results page as /search?term={term} (both address shapes are supported).
export { action, default, loader, meta, shouldRevalidate } from "./_app.search";

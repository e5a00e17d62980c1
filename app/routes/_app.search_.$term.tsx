// /search/{term}: the same results page as /search?term={term} (both address shapes are supported).
export { default, loader, meta } from "./_app.search";

// /search/{term}: the same results page as /search?term={term} (spec 2 names both shapes).
export { default, loader, meta } from "./_app.search";

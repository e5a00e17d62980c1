import type { Plugin } from "vite";

/** React Router's matching code, which Remix 2 runs on the server (`@remix-run/router` 1.x). */
const ROUTER_MODULE = /[\\/]node_modules[\\/]@remix-run[\\/]router[\\/]dist[\\/]router\.js$/;

/** The two places the plugin changes; a router whose code no longer reads so fails the build, so nothing goes unseen. */
const FLATTEN_AND_RANK = /let branches = flattenRoutes\(routes\);\s*rankRouteBranches\(branches\);/;
const COMPILE_PATH = /function compilePath\(path, caseSensitive, end\) \{/;

/** Compiled path patterns kept at most: route definitions are a few dozen; the bound is for `matchPath` callers. */
export const COMPILED_PATHS_KEPT = 1000;

const helpers = `
const rankedBranchesByRoutes = new WeakMap();
/** A route tree's branches, flattened and ranked once: the server's route trees do not change once made. */
function rankedBranches(routes) {
  let branches = rankedBranchesByRoutes.get(routes);
  if (!branches) {
    branches = flattenRoutes(routes);
    rankRouteBranches(branches);
    rankedBranchesByRoutes.set(routes, branches);
  }
  return branches;
}
const compiledPaths = new Map();
/** A path pattern's regular expression and parameters, made once (they are only read). */
function compilePath(path, caseSensitive, end) {
  const key = (caseSensitive === true ? "1" : "0") + (end === false ? "0" : "1") + path;
  let compiled = compiledPaths.get(key);
  if (!compiled) {
    if (compiledPaths.size >= ${COMPILED_PATHS_KEPT}) compiledPaths.clear();
    compiled = compilePathEachTime(path, caseSensitive, end);
    compiledPaths.set(key, compiled);
  }
  return compiled;
}
function compilePathEachTime(path, caseSensitive, end) {`;

/** React Router's route matching with its route branches and path patterns made once, not on every call. */
export function cacheRouteMatching(code: string): string {
  if (!FLATTEN_AND_RANK.test(code) || !COMPILE_PATH.test(code)) {
    throw new Error(
      "route-matching-cache: @remix-run/router's matchRoutesImpl or compilePath changed; check the plugin against the new version (vite/route-matching-cache.ts)",
    );
  }
  return code.replace(FLATTEN_AND_RANK, "let branches = rankedBranches(routes);").replace(COMPILE_PATH, helpers);
}

/**
 * Remix 2's router (`@remix-run/router` 1.x) flattens and ranks every route and compiles each route's path into a
 * regular expression on every `matchRoutes` call: three calls a page, about 2 ms of the Worker's CPU per page with
 * this app's forty routes. React Router 7 now computes the branches once (remix-run/react-router#14967 and #14971);
 * Remix 2 will not get that release, so this plugin brings the same caching to the server build. Only the server's:
 * in the browser, lazy route discovery adds routes to the trees it has already matched.
 */
export function routeMatchingCache(): Plugin {
  return {
    name: "route-matching-cache",
    enforce: "pre",
    transform(code, id, options) {
      if (!options?.ssr || !ROUTER_MODULE.test(id)) return undefined;
      return { code: cacheRouteMatching(code), map: null };
    },
  };
}

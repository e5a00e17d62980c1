import type { Plugin } from "vite";

/**
 * Changes to dependencies' code in the server build, each for CPU the Worker spent on every page (decisions 31, 33
 * and 39: docs/decisions/0031-one-server-bundle-and-dependency-patches.md, 0033-react-output-encoded-once.md and
 * 0039-route-trees-and-matches-made-once.md). Each fails the build when the code it changes no longer reads as it
 * expects, so an upgrade cannot drop it unseen.
 */

/** The build's error when a dependency's code no longer reads as its patch expects. */
function changedUpstream(what: string): Error {
  return new Error(`server-dependency-patches: ${what}; check the patch against the new version (vite/server-dependency-patches.ts)`);
}

/** The code with what `pattern` finds replaced by `replacement` of its groups; the build's error when it finds nothing. */
function replaceFound(code: string, pattern: RegExp, what: string, replacement: (...groups: string[]) => string): string {
  const found = code.match(pattern);
  if (!found) throw changedUpstream(what);
  return code.replace(pattern, () => replacement(...found.slice(1)));
}

/** React Router's matching code, which Remix 2 runs on the server (`@remix-run/router` 1.x). */
const ROUTER_MODULE = /[\\/]node_modules[\\/]@remix-run[\\/]router[\\/]dist[\\/]router\.js$/;
const FLATTEN_AND_RANK = /let branches = flattenRoutes\(routes\);\s*rankRouteBranches\(branches\);/;
const MATCH_IMPL = /function matchRoutesImpl\(routes, locationArg, basename, allowPartial\) \{/;
const MATCH_IMPL_BRANCH_LOOP =
  /let matches = null;\s*let decoded = decodePath\(pathname\);\s*for \(let i = 0; matches == null && i < branches\.length; \+\+i\) \{[^}]*matches = matchRouteBranch\(branches\[i\], decoded, allowPartial\);\s*\}\s*return matches;/;
const COMPILE_PATH = /function compilePath\(path, caseSensitive, end\) \{/;

/** Compiled path patterns kept at most: route definitions are a few dozen; the bound is for `matchPath` callers. */
export const COMPILED_PATHS_KEPT = 1000;

/**
 * Matches kept per route tree, by path, and the longest path kept: paths come from requests (anyone's, a search term
 * is one), so the bounds hold what they can keep to a few megabytes (three trees a page). Longer paths are matched
 * each time.
 */
export const MATCHED_PATHS_KEPT = 500;
export const MATCHED_PATH_LONGEST = 200;

const routeMatchingHelpers = `
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
const matchesByBranches = new WeakMap();
/**
 * The matches of a decoded path among a route tree's ranked branches, worked out once per path (each page matches its
 * path three times, against about forty branches). Every call gets matches of its own, with params of its own shared
 * by them as React Router shares them, so a caller that changes them changes nothing for the next.
 */
function matchRankedBranches(branches, decoded, allowPartial) {
  let byPath = matchesByBranches.get(branches);
  if (!byPath) matchesByBranches.set(branches, (byPath = new Map()));
  const kept = decoded.length <= ${MATCHED_PATH_LONGEST};
  const key = (allowPartial ? "1" : "0") + decoded;
  let matches = kept ? byPath.get(key) : undefined;
  if (matches === undefined) {
    matches = null;
    for (let i = 0; matches == null && i < branches.length; ++i) matches = matchRouteBranch(branches[i], decoded, allowPartial);
    if (kept) {
      if (byPath.size >= ${MATCHED_PATHS_KEPT}) byPath.clear();
      byPath.set(key, matches);
    }
  }
  if (!matches) return null;
  const params = Object.assign({}, matches[matches.length - 1].params);
  return matches.map((match) => ({ params, pathname: match.pathname, pathnameBase: match.pathnameBase, route: match.route }));
}
const compiledPaths = new Map();
/** A path pattern's regular expression and parameters, made once (they are only read). */
function compilePath(path, caseSensitive, end) {
  const key = (caseSensitive ? "1" : "0") + (end === undefined || end ? "1" : "0") + path;
  let compiled = compiledPaths.get(key);
  if (!compiled) {
    if (compiledPaths.size >= ${COMPILED_PATHS_KEPT}) compiledPaths.clear();
    compiled = compilePathEachTime(path, caseSensitive, end);
    compiledPaths.set(key, compiled);
  }
  return compiled;
}
function compilePathEachTime(path, caseSensitive, end) {`;

/**
 * Remix 2's router flattens and ranks every route, and compiles each route's path into a regular expression, on every
 * `matchRoutes` call: three calls a page. React Router 7 now computes the branches once (remix-run/react-router#14967
 * and #14971); Remix 2 will not get that release, so the server build does the same here, and matches each path once
 * per tree too. (Not the browser's: there, lazy route discovery adds routes to the trees it has already matched.)
 */
export function cacheRouteMatching(code: string): string {
  if (!FLATTEN_AND_RANK.test(code) || !COMPILE_PATH.test(code) || !MATCH_IMPL.test(code) || !MATCH_IMPL_BRANCH_LOOP.test(code)) {
    throw changedUpstream("@remix-run/router's matchRoutesImpl or compilePath changed");
  }
  return code
    .replace(FLATTEN_AND_RANK, "let branches = rankedBranches(routes);")
    .replace(MATCH_IMPL_BRANCH_LOOP, "return matchRankedBranches(branches, decodePath(pathname), allowPartial);")
    .replace(COMPILE_PATH, routeMatchingHelpers);
}

/** drizzle's `is()`, its check of what kind of object a piece of a query is. */
const DRIZZLE_ENTITY_MODULE = /[\\/]node_modules[\\/]drizzle-orm[\\/]entity\.js$/;
const CLASS_WALK =
  /let cls = Object\.getPrototypeOf\(value\)\.constructor;\s*if \(cls\) \{\s*while \(cls\) \{\s*if \(entityKind in cls && cls\[entityKind\] === type\[entityKind\]\) \{\s*return true;\s*\}\s*cls = Object\.getPrototypeOf\(cls\);\s*\}\s*\}\s*return false;/;
const IS_FUNCTION = /function is\(value, type\) \{/;

/**
 * drizzle builds a statement's SQL by asking of each piece, in turn, whether it is a string, a name, SQL, a table, a
 * column, a parameter…; when `instanceof` says no, `is()` walks the piece's class chain comparing each class's kind.
 * The kinds along a class's chain never change, so they are gathered once per class: the same answers, and building a
 * page's statements takes about a third less time (the dashboard's six and the market's one: 1.6 ms to 1.05 ms in Node).
 */
export function cacheEntityKinds(code: string): string {
  if (!CLASS_WALK.test(code) || !IS_FUNCTION.test(code)) {
    throw changedUpstream("drizzle-orm's is() changed");
  }
  return code
    .replace(
      CLASS_WALK,
      `const cls = Object.getPrototypeOf(value).constructor;
  if (!cls) return false;
  let kinds = kindsOfClass.get(cls);
  if (!kinds) {
    kinds = new Set();
    for (let c = cls; c; c = Object.getPrototypeOf(c)) if (entityKind in c) kinds.add(c[entityKind]);
    kindsOfClass.set(cls, kinds);
  }
  return kinds.has(type[entityKind]);`,
    )
    .replace(IS_FUNCTION, "/** The entity kinds along each class's chain. */\nconst kindsOfClass = new WeakMap();\nfunction is(value, type) {");
}

/** React 18's streaming server renderer for web streams (`react-dom/server` in a Worker), as published minified. */
const REACT_SERVER_MODULE = /[\\/]node_modules[\\/]react-dom[\\/]cjs[\\/]react-dom-server\.browser\.production\.min\.js$/;
/** Its writing of chunks: `p` writes a chunk, `t` writes one and goes on, `ba` ends a flush, `u` and `w` make chunks. */
const REACT_CHUNK_WRITING =
  "function p(a,b){if(0!==b.length)if(512<b.length)0<n&&(a.enqueue(new Uint8Array(l.buffer,0,n)),l=new Uint8Array(512),n=0),a.enqueue(b);else{var c=l.length-n;c<b.length&&(0===c?a.enqueue(l):(l.set(b.subarray(0,c),n),a.enqueue(l),b=b.subarray(c)),l=new Uint8Array(512),n=0);l.set(b,n);n+=b.length}}function t(a,b){p(a,b);return!0}function ba(a){l&&0<n&&(a.enqueue(new Uint8Array(l.buffer,0,n)),l=null,n=0)}var ca=new TextEncoder;function u(a){return ca.encode(a)}function w(a){return ca.encode(a)}";
/** Where a flush begins (and, after its first part, goes on): a new 512-byte view. */
const REACT_VIEW_RESET = /l=new Uint8Array\(512\);n=0/g;

/**
 * React 18's renderer encodes every piece of a page to bytes as it writes it (each tag's parts, each attribute's value,
 * each text) and copies them into 512-byte chunks, each handed to the response's stream: thousands of calls into the
 * runtime's encoder and about eighty stream chunks for the market's 39 KB. Here a flush gathers its text and encodes it
 * once, as one chunk. React's flushes are synchronous, as its own shared view already assumes, so one pending text
 * serves every render; the bytes are the same. Each flush begins by clearing it, as React starts a new view: a flush
 * to a stream whose reader has gone throws before it sends, and leaves its text behind.
 */
export function encodeReactOutputOnce(code: string): string {
  const resets = code.match(REACT_VIEW_RESET)?.length ?? 0;
  if (!code.includes(REACT_CHUNK_WRITING) || resets !== 2) {
    throw changedUpstream("react-dom's server renderer writes chunks differently");
  }
  return code
    .replace(
      REACT_CHUNK_WRITING,
      'var pendingText="";function p(a,b){pendingText+=b}function t(a,b){pendingText+=b;return!0}function ba(a){pendingText&&(a.enqueue(ca.encode(pendingText)),pendingText="")}var ca=new TextEncoder;function u(a){return a}function w(a){return a}',
    )
    .replace(REACT_VIEW_RESET, 'pendingText=""');
}

/** React Router DOM's server rendering (`react-router-dom/server`), which Remix's `RemixServer` renders with. */
const STATIC_ROUTER_MODULE = /[\\/]node_modules[\\/]react-router-dom[\\/]server\.m?js$/;
const STATIC_ROUTER_DATA_ROUTES =
  /function createStaticRouter\(routes, context, opts = \{\}\) \{\s*let manifest = \{\};\s*let dataRoutes = ([\w$.]*convertRoutesToDataRoutes)\(routes, ([\w$.]*mapRouteProperties), undefined, manifest\);/;

/**
 * `createStaticRouter` turns the routes it is given into data routes (with ids and a map of them by id) on every
 * render. Given the same routes (`RemixServer`'s, made once below), the data routes are the same too; made once, the
 * route matching above also finds their ranked branches and matches already worked out.
 */
export function cacheStaticDataRoutes(code: string): string {
  return replaceFound(
    code,
    STATIC_ROUTER_DATA_ROUTES,
    "react-router-dom's createStaticRouter changed",
    (convert, mapProperties) => `const dataRoutesByRoutes = new WeakMap();
function createStaticRouter(routes, context, opts = {}) {
  let made = dataRoutesByRoutes.get(routes);
  if (!made) {
    const manifest = {};
    made = { manifest, dataRoutes: ${convert}(routes, ${mapProperties}, undefined, manifest) };
    dataRoutesByRoutes.set(routes, made);
  }
  let { manifest, dataRoutes } = made;`,
  );
}

/** Remix's `RemixServer` (`@remix-run/react`'s server entry). */
const REMIX_SERVER_MODULE = /[\\/]node_modules[\\/]@remix-run[\\/]react[\\/]dist[\\/](esm[\\/])?server\.js$/;
const REMIX_SERVER_ROUTES =
  /let (routes(?:\$1)?) = ((?:routes\.)?createServerRoutes)\(manifest\.routes, routeModules, context\.future, context\.isSpaMode\);/;

/**
 * `RemixServer` builds the render's route tree from the build's manifest and route modules on every render: the same
 * tree each time, as both are the build's (the route modules' object is made per request, its modules are not). Made
 * once per manifest and kept while the modules, future flags and SPA mode are the same ones.
 */
export function cacheServerRoutes(code: string): string {
  return replaceFound(
    code,
    REMIX_SERVER_ROUTES,
    "@remix-run/react's RemixServer changed",
    (name, create) => `let ${name} = serverRoutesOf(${create}, manifest.routes, routeModules, context.future, context.isSpaMode);`,
  ).concat(`
const serverRoutesByManifest = new WeakMap();
/** The render's route tree, made once for the same manifest, route modules, future flags and SPA mode. */
function serverRoutesOf(create, manifestRoutes, routeModules, future, isSpaMode) {
  const made = serverRoutesByManifest.get(manifestRoutes);
  if (made && made.future === future && made.isSpaMode === isSpaMode && sameModules(made.routeModules, routeModules)) return made.routes;
  const routes = create(manifestRoutes, routeModules, future, isSpaMode);
  serverRoutesByManifest.set(manifestRoutes, { routes, routeModules: { ...routeModules }, future, isSpaMode });
  return routes;
}
function sameModules(a, b) {
  const keys = Object.keys(b);
  if (keys.length !== Object.keys(a).length) return false;
  for (const key of keys) if (a[key] !== b[key]) return false;
  return true;
}
`);
}

/** React Router's hooks and components (`react-router` 6), which Remix's links and forms use. */
const REACT_ROUTER_MODULE = /[\\/]node_modules[\\/]react-router[\\/]dist[\\/]index\.js$/;
const RESOLVED_PATH_ROUTES =
  /let routePathnamesJson = JSON\.stringify\(([\w$]*getResolveToMatches)\(matches, future\.v7_relativeSplatPath\)\);(\s*return React\.useMemo\(\(\) => resolveTo\(to, JSON\.parse\(routePathnamesJson\), locationPathname, relative === "path"\))/;

/**
 * `useResolvedPath` gathers the matched routes' paths as JSON (and reads them back) for every link and form on the
 * page, three times a link (Remix's `Link`, React Router's, and its click handler), though a path that starts with "/"
 * resolves the same from any route: `resolveTo` takes the routes' paths only to start a relative path from. Such a
 * path skips them.
 */
export function resolveAbsolutePathsDirectly(code: string): string {
  return replaceFound(
    code,
    RESOLVED_PATH_ROUTES,
    "react-router's useResolvedPath changed",
    (
      getMatches,
      memo,
    ) => `let absolute = typeof to === "string" ? to.startsWith("/") : typeof to?.pathname === "string" && to.pathname.startsWith("/");
  let routePathnamesJson = absolute ? "[]" : JSON.stringify(${getMatches}(matches, future.v7_relativeSplatPath));${memo}`,
  );
}

const patches = [
  { name: "@remix-run/router's route matching", module: ROUTER_MODULE, apply: cacheRouteMatching },
  { name: "drizzle-orm's is()", module: DRIZZLE_ENTITY_MODULE, apply: cacheEntityKinds },
  { name: "react-dom's server renderer", module: REACT_SERVER_MODULE, apply: encodeReactOutputOnce },
  { name: "react-router-dom's static router", module: STATIC_ROUTER_MODULE, apply: cacheStaticDataRoutes },
  { name: "Remix's RemixServer", module: REMIX_SERVER_MODULE, apply: cacheServerRoutes },
  { name: "react-router's useResolvedPath", module: REACT_ROUTER_MODULE, apply: resolveAbsolutePathsDirectly },
];

/**
 * The patches above, applied to the server build's copy of each module. A server build in which a patch found no
 * module to change (a dependency that moved its code) fails too.
 */
export function serverDependencyPatches(): Plugin {
  let serverBuild = false;
  const applied = new Set<string>();
  return {
    name: "server-dependency-patches",
    enforce: "pre",
    configResolved(config) {
      serverBuild = config.command === "build" && Boolean(config.build.ssr);
    },
    transform(code, id, options) {
      // A module with a query is one Vite or Rollup made from the file (a CommonJS module's `?commonjs-exports`).
      if (!options?.ssr || id.includes("?")) return undefined;
      const patch = patches.find(({ module }) => module.test(id));
      if (!patch) return undefined;
      applied.add(patch.name);
      return { code: patch.apply(code), map: null };
    },
    buildEnd(error) {
      const missing = patches.filter(({ name }) => !applied.has(name)).map(({ name }) => name);
      if (serverBuild && !error && missing.length) {
        this.error(`server-dependency-patches: no module found to patch for ${missing.join(" and ")} (vite/server-dependency-patches.ts)`);
      }
    },
  };
}

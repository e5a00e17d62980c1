import type { Plugin } from "vite";

/**
 * Three changes to dependencies' code in the server build, each for CPU the Worker spent on every page (decisions 31
 * and 33, docs/decisions/0031-one-server-bundle-and-dependency-patches.md and 0033-react-output-encoded-once.md). Each
 * fails the build when the code it changes no longer reads as it expects, so an upgrade cannot drop it unseen.
 */

/** The build's error when a dependency's code no longer reads as its patch expects. */
function changedUpstream(what: string): Error {
  return new Error(`server-dependency-patches: ${what}; check the patch against the new version (vite/server-dependency-patches.ts)`);
}

/** React Router's matching code, which Remix 2 runs on the server (`@remix-run/router` 1.x). */
const ROUTER_MODULE = /[\\/]node_modules[\\/]@remix-run[\\/]router[\\/]dist[\\/]router\.js$/;
const FLATTEN_AND_RANK = /let branches = flattenRoutes\(routes\);\s*rankRouteBranches\(branches\);/;
const COMPILE_PATH = /function compilePath\(path, caseSensitive, end\) \{/;

/** Compiled path patterns kept at most: route definitions are a few dozen; the bound is for `matchPath` callers. */
export const COMPILED_PATHS_KEPT = 1000;

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
 * and #14971); Remix 2 will not get that release, so the server build does the same here. (Not the browser's: there,
 * lazy route discovery adds routes to the trees it has already matched.)
 */
export function cacheRouteMatching(code: string): string {
  if (!FLATTEN_AND_RANK.test(code) || !COMPILE_PATH.test(code)) {
    throw changedUpstream("@remix-run/router's matchRoutesImpl or compilePath changed");
  }
  return code.replace(FLATTEN_AND_RANK, "let branches = rankedBranches(routes);").replace(COMPILE_PATH, routeMatchingHelpers);
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

const patches = [
  { name: "@remix-run/router's route matching", module: ROUTER_MODULE, apply: cacheRouteMatching },
  { name: "drizzle-orm's is()", module: DRIZZLE_ENTITY_MODULE, apply: cacheEntityKinds },
  { name: "react-dom's server renderer", module: REACT_SERVER_MODULE, apply: encodeReactOutputOnce },
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

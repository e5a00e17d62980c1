import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createElement, Suspense } from "react";
import { afterAll, describe, expect, it } from "vitest";
import { renderToString } from "react-dom/server";
import {
  cacheEntityKinds,
  cacheRouteMatching,
  cacheServerRoutes,
  cacheStaticDataRoutes,
  encodeReactOutputOnce,
  MATCHED_PATH_LONGEST,
  MATCHED_PATHS_KEPT,
  resolveAbsolutePathsDirectly,
} from "../../vite/server-dependency-patches";

type Route = { id: string; path?: string; index?: boolean; caseSensitive?: boolean; children?: Route[] };
type Match = { params: Record<string, string | undefined>; pathname: string; pathnameBase: string; route: Route };
type Router = {
  matchRoutes(routes: Route[], location: string): Match[] | null;
  matchPath(pattern: { path: string; caseSensitive?: boolean; end?: boolean }, pathname: string): unknown;
};

const routerFile = createRequire(import.meta.url)
  .resolve("@remix-run/router")
  .replace(/router\.cjs\.js$/, "router.js");
const source = readFileSync(routerFile, "utf8");

async function load(code: string): Promise<Router> {
  const file = join(mkdtempSync(join(tmpdir(), "router-")), "router.mjs");
  writeFileSync(file, code.replace(/\/\/# sourceMappingURL=.*$/m, ""));
  return (await import(/* @vite-ignore */ pathToFileURL(file).href)) as Router;
}

// The shapes this app's routes have (pathless layouts, index routes, params, a splat), and optional segments.
const routes: Route[] = [
  {
    id: "root",
    path: "",
    children: [
      {
        id: "landing",
        children: [
          { id: "landing-index", index: true },
          { id: "login", path: "login" },
          { id: "briefs", path: "briefs" },
        ],
      },
      {
        id: "app",
        children: [
          { id: "market", path: "market" },
          { id: "search", path: "search" },
          { id: "search-term", path: "search/:term" },
          // After the dynamic segment it outranks: only ranking finds it.
          { id: "search-help", path: "search/help" },
          {
            id: "mysite",
            path: "mysite",
            children: [
              { id: "mysite-index", index: true },
              { id: "offers", path: "offers" },
              { id: "mysite-rest", path: "*" },
            ],
          },
        ],
      },
      { id: "provider", path: "auth/:provider", children: [{ id: "callback", path: "callback" }] },
      { id: "optional", path: "docs/:lang?/guide" },
      { id: "Case", path: "CaseSensitive", caseSensitive: true },
    ],
  },
];

const paths = [
  "/",
  "/login",
  "/market",
  "/MARKET",
  "/market/",
  "/search",
  "/search/blog%20posts",
  "/search/help",
  "/mysite",
  "/mysite/offers",
  "/mysite/anything/else",
  "/auth/github/callback",
  "/auth/github",
  "/docs/guide",
  "/docs/en/guide",
  "/CaseSensitive",
  "/casesensitive",
  "/nothing-here/at/all",
];

const summary = (matches: Match[] | null) =>
  matches?.map((match) => ({ id: match.route.id, params: match.params, pathname: match.pathname, base: match.pathnameBase })) ?? null;

describe("React Router's route matching with its branches and patterns made once", () => {
  it("matches every path as React Router's own code does, the first time and every time after", async () => {
    const upstream = await load(source);
    const cached = await load(cacheRouteMatching(source));
    for (const path of paths) {
      const expected = summary(upstream.matchRoutes(routes, path));
      expect(summary(cached.matchRoutes(routes, path)), path).toEqual(expected);
      expect(summary(cached.matchRoutes(routes, path)), `${path}, again`).toEqual(expected);
    }
    expect(summary(cached.matchRoutes(routes, "/mysite/offers"))?.map((match) => match.id)).toEqual(["root", "app", "mysite", "offers"]);
    expect(cached.matchRoutes(routes, "/search/help")?.at(-1)?.route.id).toBe("search-help");
    expect(cached.matchRoutes(routes, "/casesensitive")).toBeNull();
  });

  it("gives each caller its own matches and params, so a caller that changes them changes no other request's", async () => {
    const cached = await load(cacheRouteMatching(source));
    const first = cached.matchRoutes(routes, "/search/one");
    first![0]!.params.term = "changed";
    expect(cached.matchRoutes(routes, "/search/two")?.at(-1)?.params).toEqual({ term: "two" });
    // The same path again: worked out once, handed out afresh.
    const again = cached.matchRoutes(routes, "/search/one")!;
    expect(again.at(-1)?.params).toEqual({ term: "one" });
    again.at(-1)!.pathname = "/changed";
    again.pop();
    expect(summary(cached.matchRoutes(routes, "/search/one"))?.map((match) => match.pathname)).toEqual(["/", "/", "/search/one"]);
    // One params object for all of a path's matches, as React Router gives it.
    const [root, , term] = cached.matchRoutes(routes, "/search/three")!;
    expect(root!.params).toBe(term!.params);
  });

  it("matches a route tree made afresh, after more paths than it keeps, and paths too long to keep, as React Router does", async () => {
    const upstream = await load(source);
    const cached = await load(cacheRouteMatching(source));
    for (let i = 0; i < MATCHED_PATHS_KEPT + 10; i++) cached.matchRoutes(routes, `/search/term-${i}`);
    for (const path of paths) expect(summary(cached.matchRoutes(routes, path)), path).toEqual(summary(upstream.matchRoutes(routes, path)));
    for (const path of [`/search/${"x".repeat(MATCHED_PATH_LONGEST)}`, `/mysite/${"a/".repeat(MATCHED_PATH_LONGEST)}`]) {
      const expected = summary(upstream.matchRoutes(routes, path));
      expect(summary(cached.matchRoutes(routes, path))).toEqual(expected);
      expect(summary(cached.matchRoutes(routes, path))).toEqual(expected);
    }
    const copy = structuredClone(routes);
    expect(cached.matchRoutes(copy, "/mysite/offers")?.at(-1)?.route).toBe(copy[0]!.children![1]!.children![4]!.children![1]);
  });

  it("tells patterns apart by their options as React Router does, whatever values the options are given", async () => {
    const upstream = await load(source);
    const cached = await load(cacheRouteMatching(source));
    const options = [undefined, true, false, 1, 0, null, ""] as unknown as boolean[];
    for (const caseSensitive of options) {
      for (const end of options) {
        for (const pathname of ["/Orders/7", "/orders/7/lines"]) {
          const pattern = { path: "/orders/:id", caseSensitive, end };
          expect(cached.matchPath(pattern, pathname), JSON.stringify({ caseSensitive, end, pathname })).toEqual(
            upstream.matchPath(pattern, pathname),
          );
        }
      }
    }
  });

  it("still matches patterns past the bound of its cache", async () => {
    const cached = await load(cacheRouteMatching(source));
    for (let i = 0; i < 1500; i++) expect(cached.matchPath({ path: `/p${i}/:id` }, `/p${i}/7`)).toMatchObject({ params: { id: "7" } });
    expect(cached.matchPath({ path: "/p3/:id" }, "/p4/7")).toBeNull();
  });

  it("fails the build when React Router's code no longer reads as the plugin expects", () => {
    expect(() => cacheRouteMatching(source.replace("rankRouteBranches(branches);", "rankBranches(branches);"))).toThrow(/server-dependency-patches/);
  });
});

const require = createRequire(import.meta.url);
const entityFile = join(require.resolve("drizzle-orm").replace(/index\.cjs$/, ""), "entity.js");
const entitySource = readFileSync(entityFile, "utf8");

describe("drizzle's is() with each class's kinds gathered once", () => {
  type Entity = { entityKind: symbol; is(value: unknown, type: unknown): boolean };
  const kind = Symbol.for("drizzle:entityKind");
  // A chain as drizzle's classes make one: each class names its kind in a static property.
  class Piece {
    static [kind] = "Piece";
  }
  class Column extends Piece {
    static [kind] = "Column";
  }
  class TextColumn extends Column {
    static [kind] = "TextColumn";
  }
  class Sql {
    static [kind] = "SQL";
  }
  // The same kinds from another copy of the classes (another bundle of drizzle), where instanceof says no.
  class OtherCopyColumn {
    static [kind] = "Column";
  }
  class OtherCopyText extends OtherCopyColumn {
    static [kind] = "TextColumn";
  }
  class NotAnEntity {}

  it("answers as drizzle's own is() does, the first time and every time after", async () => {
    const upstream = (await load(entitySource)) as unknown as Entity;
    const cached = (await load(cacheEntityKinds(entitySource))) as unknown as Entity;
    const values = [new TextColumn(), new Column(), new Piece(), new Sql(), new OtherCopyText(), {}, [], null, "text", 3];
    for (const type of [Piece, Column, TextColumn, Sql, OtherCopyColumn]) {
      for (const value of values) {
        const expected = upstream.is(value, type);
        expect(cached.is(value, type), `${String(value?.constructor?.name)} is ${type.name}`).toBe(expected);
        expect(cached.is(value, type), `${String(value?.constructor?.name)} is ${type.name}, again`).toBe(expected);
      }
    }
    // An object without a prototype, or whose prototype has no constructor: the same answer, or the same error.
    const orphan = Object.create(Object.create(null, { constructor: { value: undefined } })) as object;
    const outcome = (entity: Entity, value: unknown) => {
      try {
        return entity.is(value, Column);
      } catch (error) {
        return (error as Error).constructor.name;
      }
    };
    for (const value of [orphan, Object.create(null)]) expect(outcome(cached, value)).toBe(outcome(upstream, value));
    expect(cached.is(new OtherCopyText(), Column)).toBe(true);
    expect(cached.is(new Sql(), Column)).toBe(false);
    expect(() => cached.is(new Sql(), NotAnEntity)).toThrow(/doesn't look like a Drizzle entity/);
  });

  it("fails the build when drizzle's is() no longer reads as the patch expects", () => {
    expect(() => cacheEntityKinds(entitySource.replace("cls = Object.getPrototypeOf(cls);", "cls = parentOf(cls);"))).toThrow(
      /server-dependency-patches/,
    );
  });
});

const reactServerFile = join(
  require.resolve("react-dom/package.json").replace(/package\.json$/, ""),
  "cjs",
  "react-dom-server.browser.production.min.js",
);
const reactServerSource = readFileSync(reactServerFile, "utf8");

describe("React's server renderer with each flush encoded once", () => {
  type Renderer = {
    renderToReadableStream(element: unknown, options?: Record<string, unknown>): Promise<ReadableStream<Uint8Array> & { allReady: Promise<void> }>;
  };
  // The published CommonJS module, run with this test's React.
  const loadRenderer = (code: string) => {
    const module = { exports: {} as Renderer };
    new Function("module", "exports", "require", code)(module, module.exports, require);
    return module.exports;
  };
  const h = createElement;

  /** A part of the page that waits `ms` before it can render (its own promise per page). */
  function later(text: string, ms: number) {
    let done = false;
    const ready = new Promise<void>((resolve) =>
      setTimeout(() => {
        done = true;
        resolve();
      }, ms),
    );
    return function Later() {
      if (!done) throw ready;
      return h("p", { className: "later" }, text);
    };
  }

  // Text and attributes to escape, characters of two to four bytes, a text longer than React's 512-byte chunks, many
  // small pieces, and a part that streams in after the shell (a second flush).
  function page(name: string) {
    const Later = later(`${name}: arrived — ünïcödé 日本 🎉`, 15);
    return h(
      "html",
      { lang: "en" },
      h("head", null, h("title", null, `${name} & <friends>`)),
      h(
        "body",
        null,
        h("h1", { title: `"${name}" & 'co'`, "data-x": "ü" }, "Café — 日本語 🎉"),
        h("p", null, "long ".repeat(400) + "🎉"),
        h(
          "ul",
          null,
          ...Array.from({ length: 300 }, (_, i) =>
            h("li", { key: i, className: `item-${i}` }, `${name} ${i} ✓`, h("a", { href: `/x?i=${i}&n=${name}` }, "link")),
          ),
        ),
        h(Suspense, { fallback: h("p", null, "waiting…") }, h(Later)),
      ),
    );
  }

  async function render(renderer: Renderer, name: string) {
    const stream = await renderer.renderToReadableStream(page(name), {
      nonce: "n0nce",
      bootstrapScriptContent: "window.started = true;",
      bootstrapModules: ["/entry.js"],
    });
    const chunks: Uint8Array[] = [];
    const reader = stream.getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read()) chunks.push(read.value);
    return { bytes: Buffer.concat(chunks), chunks: chunks.length };
  }

  it("writes the same bytes as React's own renderer, in fewer chunks, with two pages rendering at once", async () => {
    const upstream = loadRenderer(reactServerSource);
    const patched = loadRenderer(encodeReactOutputOnce(reactServerSource));
    const [a, b] = await Promise.all([render(upstream, "first"), render(upstream, "second")]);
    const [patchedA, patchedB] = await Promise.all([render(patched, "first"), render(patched, "second")]);
    expect(patchedA.bytes.equals(a.bytes)).toBe(true);
    expect(patchedB.bytes.equals(b.bytes)).toBe(true);
    const html = patchedA.bytes.toString("utf8");
    expect(html).toContain("Café — 日本語 🎉");
    expect(html).toContain("first: arrived — ünïcödé 日本 🎉");
    expect(html).toContain("first 299 ✓");
    expect(html).not.toContain("second");
    expect(patchedA.chunks).toBeLessThan(a.chunks / 4);
  });

  // A part that fails (rendered in the browser instead), and parts nested in parts that arrive at different times.
  function failingAndNested(name: string) {
    const Outer = later(`${name}: outer`, 10);
    const Inner = later(`${name}: inner`, 25);
    const Fails = () => {
      throw new Error(`${name} failed`);
    };
    return h(
      "div",
      null,
      h(Suspense, { fallback: h("p", null, "failing…") }, h(Fails)),
      h(Suspense, { fallback: h("p", null, "outer…") }, h(Outer), h(Suspense, { fallback: h("p", null, "inner…") }, h(Inner))),
    );
  }

  async function bytesOf(stream: ReadableStream<Uint8Array>) {
    return Buffer.from(await new Response(stream).arrayBuffer());
  }

  it("writes the same bytes as React's own renderer when a part fails and when parts arrive nested and late", async () => {
    const upstream = loadRenderer(reactServerSource);
    const patched = loadRenderer(encodeReactOutputOnce(reactServerSource));
    const quiet = { onError: () => undefined };
    const expected = await bytesOf(await upstream.renderToReadableStream(failingAndNested("page"), quiet));
    const written = await bytesOf(await patched.renderToReadableStream(failingAndNested("page"), quiet));
    expect(written.equals(expected)).toBe(true);
    expect(written.toString("utf8")).toContain("page: inner");
  });

  it("leaves nothing of a page whose reader went away in the next page", async () => {
    // The first page's reader cancels after the shell: the part that arrives later is written to a closed stream, and
    // what React had gathered of it is never sent. The next page must start clean.
    const renderOnceCancelled = async (renderer: Renderer) => {
      const cancelled = await renderer.renderToReadableStream(page("cancelled"), { onError: () => undefined });
      const reader = cancelled.getReader();
      await reader.read();
      await reader.cancel();
      await new Promise((resolve) => setTimeout(resolve, 40));
      return (await render(renderer, "next")).bytes;
    };
    const expected = await renderOnceCancelled(loadRenderer(reactServerSource));
    const written = await renderOnceCancelled(loadRenderer(encodeReactOutputOnce(reactServerSource)));
    expect(written.toString("utf8")).not.toContain("cancelled");
    expect(written.equals(expected)).toBe(true);
  });

  it("fails the build when React's writing of chunks no longer reads as the patch expects", () => {
    expect(() => encodeReactOutputOnce(reactServerSource.replace("function ba(a){", "function bb(a){"))).toThrow(/server-dependency-patches/);
    expect(() => encodeReactOutputOnce(reactServerSource.replace("l=new Uint8Array(512);n=0", "l=new Uint8Array(2048);n=0"))).toThrow(
      /server-dependency-patches/,
    );
  });
});

// Patched copies of modules that import others by name load from inside node_modules, where those names resolve.
const besideFolder = join(process.cwd(), "node_modules", ".cache", "server-dependency-patches");
afterAll(() => rmSync(besideFolder, { recursive: true, force: true }));
function loadBeside(code: string, name: string): Promise<unknown> {
  const folder = besideFolder;
  mkdirSync(folder, { recursive: true });
  const file = join(mkdtempSync(join(folder, "t-")), name);
  writeFileSync(file, code.replace(/\/\/# sourceMappingURL=.*$/m, ""));
  return import(/* @vite-ignore */ pathToFileURL(file).href);
}

const staticRouterFile = join(require.resolve("react-router-dom/package.json").replace(/package\.json$/, ""), "server.mjs");
const staticRouterSource = readFileSync(staticRouterFile, "utf8");

describe("React Router's static router with its data routes made once", () => {
  type DataRoute = { id: string; path?: string; index?: boolean; children?: DataRoute[]; loader?: () => unknown; element?: unknown };
  type StaticServer = {
    createStaticHandler(routes: DataRoute[]): { query(request: Request): Promise<unknown> };
    createStaticRouter(routes: DataRoute[], context: unknown): { routes: DataRoute[]; state: { matches: { route: DataRoute }[] } };
    StaticRouterProvider: (props: { router: unknown; context: unknown; hydrate?: boolean }) => unknown;
  };
  const h = createElement;
  // What a page renders: its route's id, its data, and its params, through React Router's hooks.
  const routesOf = async (server: StaticServer) => {
    const { Outlet, useLoaderData, useParams } = (await loadBeside("export * from 'react-router';", "hooks.mjs")) as {
      Outlet: () => unknown;
      useLoaderData: () => unknown;
      useParams: () => Record<string, string>;
    };
    const Page = ({ id }: { id: string }) => h("p", null, `${id} ${JSON.stringify(useLoaderData())} ${JSON.stringify(useParams())}`);
    const tree: DataRoute[] = [
      {
        id: "root",
        path: "/",
        element: h("main", null, h(Outlet as never)),
        children: [
          { id: "home", index: true, loader: () => "home data", element: h(Page, { id: "home" }) },
          { id: "search", path: "search/:term", loader: () => "search data", element: h(Page, { id: "search" }) },
        ],
      },
    ];
    void server;
    return tree;
  };
  const page = async (server: StaticServer, tree: DataRoute[], path: string) => {
    const context = await server.createStaticHandler(tree).query(new Request(`http://x${path}`));
    const router = server.createStaticRouter(tree, context);
    return { router, html: renderToString(h(server.StaticRouterProvider as never, { router, context, hydrate: false })) };
  };

  it("renders each page as React Router's own code does, with the same data routes for the same routes", async () => {
    const upstream = (await loadBeside(staticRouterSource, "upstream.mjs")) as StaticServer;
    const patched = (await loadBeside(cacheStaticDataRoutes(staticRouterSource), "patched.mjs")) as StaticServer;
    const tree = await routesOf(patched);
    const first = await page(patched, tree, "/search/one");
    const home = await page(patched, tree, "/");
    const second = await page(patched, tree, "/search/two");
    expect(first.html).toBe((await page(upstream, tree, "/search/one")).html);
    expect(second.html).toBe((await page(upstream, tree, "/search/two")).html);
    expect(home.html).toBe((await page(upstream, tree, "/")).html);
    expect(second.html).toContain("search &quot;search data&quot; {&quot;term&quot;:&quot;two&quot;}");
    expect(home.html).toContain("home &quot;home data&quot;");
    // Made once: the same data routes, and each page's matches point into them.
    expect(second.router.routes).toBe(first.router.routes);
    expect(second.router.state.matches.at(-1)?.route).toBe(first.router.routes[0]!.children![1]);
    // Other routes get data routes of their own.
    const otherTree = await routesOf(patched);
    expect((await page(patched, otherTree, "/search/one")).router.routes).not.toBe(first.router.routes);
  });

  it("fails the build when createStaticRouter no longer reads as the patch expects", () => {
    expect(() => cacheStaticDataRoutes(staticRouterSource.replace("let manifest = {};", "const manifest = {};"))).toThrow(
      /server-dependency-patches/,
    );
  });
});

const remixServerFolder = join(require.resolve("@remix-run/react/package.json").replace(/package\.json$/, ""), "dist");

describe("Remix's RemixServer with its route tree made once", () => {
  type Render = (
    create: (...args: unknown[]) => unknown,
    manifest: { routes: object },
    routeModules: Record<string, unknown>,
    context: { future: object; isSpaMode: boolean },
  ) => unknown;
  // RemixServer's statement, in a module of its own (the module's helpers are kept between renders, as in the build).
  const statement = "let routes = createServerRoutes(manifest.routes, routeModules, context.future, context.isSpaMode);";
  const renderer = async () =>
    (
      (await load(
        cacheServerRoutes(`export function render(createServerRoutes, manifest, routeModules, context) {\n  ${statement}\n  return routes;\n}`),
      )) as unknown as { render: Render }
    ).render;

  it("makes the tree once for the same manifest, modules, future flags and SPA mode, and again when any differs", async () => {
    const render = await renderer();
    let made = 0;
    const create = (...args: unknown[]) => ({ tree: ++made, args });
    const manifest = { routes: { root: {}, market: {} } };
    const modules = { root: { default: "Root" }, market: { default: "Market" } };
    const context = { future: { v3_singleFetch: true }, isSpaMode: false };
    const first = render(create, manifest, { ...modules }, context);
    // Each request has a new object of the same route modules.
    expect(render(create, manifest, { ...modules }, context)).toBe(first);
    expect(made).toBe(1);
    expect(first).toEqual({ tree: 1, args: [manifest.routes, modules, context.future, false] });
    expect(render(create, manifest, { ...modules, market: { default: "New market" } }, context)).toMatchObject({ tree: 2 });
    expect(render(create, manifest, { root: modules.root }, context)).toMatchObject({ tree: 3 });
    expect(render(create, manifest, { ...modules, extra: {} }, context)).toMatchObject({ tree: 4 });
    expect(render(create, manifest, { ...modules }, { ...context, future: { v3_singleFetch: true } })).toMatchObject({ tree: 5 });
    expect(render(create, manifest, { ...modules }, { ...context, isSpaMode: true })).toMatchObject({ tree: 6 });
    expect(render(create, { routes: { ...manifest.routes } }, { ...modules }, context)).toMatchObject({ tree: 7 });
  });

  it("finds RemixServer's statement in both of Remix's builds, and fails the build when it no longer reads so", () => {
    const made = {
      "server.js": "let routes$1 = serverRoutesOf(routes.createServerRoutes, manifest.routes,",
      [join("esm", "server.js")]: "let routes = serverRoutesOf(createServerRoutes, manifest.routes,",
    };
    for (const [file, statement] of Object.entries(made)) {
      expect(cacheServerRoutes(readFileSync(join(remixServerFolder, file), "utf8")), file).toContain(statement);
    }
    expect(() => cacheServerRoutes(statement.replace("context.isSpaMode", "isSpaMode"))).toThrow(/server-dependency-patches/);
  });
});

const reactRouterFile = join(require.resolve("react-router/package.json").replace(/package\.json$/, ""), "dist", "index.js");
const reactRouterSource = readFileSync(reactRouterFile, "utf8");

describe("React Router's useResolvedPath with paths from the root resolved directly", () => {
  type Hooks = {
    MemoryRouter: unknown;
    Routes: unknown;
    Route: unknown;
    useResolvedPath(to: unknown, options?: { relative?: "route" | "path" }): unknown;
    useHref(to: unknown): string;
  };
  const targets: unknown[] = [
    "/market",
    "/market?post=7#terms",
    "/",
    "/?term=blog",
    "//elsewhere.example/x",
    "/search/",
    "offers",
    "offers/",
    ".",
    "..",
    "../other",
    "?sort=record",
    "#top",
    "",
    { pathname: "/mysite", search: "?feedback" },
    { pathname: "settings", hash: "#tags" },
    { search: "?after=5" },
    {},
  ];
  // Every target from a nested route, and from a splat, as a route path and as a plain path.
  const render = (hooks: Hooks, at: string) => {
    const Show = () =>
      h(
        "ul",
        null,
        ...targets.flatMap((to, i) =>
          (["route", "path"] as const).map((relative) =>
            h("li", { key: `${i}${relative}` }, JSON.stringify([to, relative, hooks.useResolvedPath(to, { relative }), hooks.useHref(to)])),
          ),
        ),
      );
    return renderToString(
      h(
        hooks.MemoryRouter as never,
        { initialEntries: [at] },
        h(
          hooks.Routes as never,
          null,
          h(
            hooks.Route as never,
            { path: "mysite" },
            h(hooks.Route as never, { path: "offers", element: h(Show) }),
            h(hooks.Route as never, { path: "*", element: h(Show) }),
          ),
          h(hooks.Route as never, { path: "*", element: h(Show) }),
        ),
      ),
    );
  };
  const h = createElement;

  it("resolves every kind of path as React Router's own code does, from a nested route and from a splat", async () => {
    const upstream = (await loadBeside(reactRouterSource, "upstream.mjs")) as Hooks;
    const patched = (await loadBeside(resolveAbsolutePathsDirectly(reactRouterSource), "patched.mjs")) as Hooks;
    for (const at of ["/mysite/offers", "/mysite/offers/", "/mysite/a/b", "/elsewhere/deep/path"]) {
      const expected = render(upstream, at);
      expect(render(patched, at), at).toBe(expected);
      // A relative path starts from the route: a check that the routes' paths were there to start from.
      if (at === "/mysite/offers") expect(expected).toContain("&quot;/mysite/offers/offers&quot;");
    }
  });

  it("fails the build when useResolvedPath no longer reads as the patch expects", () => {
    expect(() => resolveAbsolutePathsDirectly(reactRouterSource.replaceAll("JSON.parse(routePathnamesJson)", "parse(routePathnamesJson)"))).toThrow(
      /server-dependency-patches/,
    );
  });
});

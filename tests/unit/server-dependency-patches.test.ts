import { readFileSync, writeFileSync, mkdtempSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { cacheEntityKinds, cacheRouteMatching } from "../../vite/server-dependency-patches";

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

  it("gives each caller its own params, so a caller that changes them changes no other request's", async () => {
    const cached = await load(cacheRouteMatching(source));
    const first = cached.matchRoutes(routes, "/search/one");
    first![0]!.params.term = "changed";
    expect(cached.matchRoutes(routes, "/search/two")?.at(-1)?.params).toEqual({ term: "two" });
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

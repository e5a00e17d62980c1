// The JavaScript each page loads, from the built client's route manifest: the entry, React and Remix, and the
// modules of the page's routes from the root down, with what they import. Gzipped as a browser receives them.
import { readdirSync, readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";

/** 1.15x Remix and React alone (about 85 KiB gzipped), as issue 12 sets it and `npm run bench` prints it. */
const BUDGET_KIB = 98;
const CLIENT = "build/client";

interface ManifestRoute {
  id: string;
  parentId?: string;
  path?: string;
  module: string;
  imports?: string[];
}

function manifest(): { entry: { module: string; imports: string[] }; routes: Record<string, ManifestRoute> } {
  const file = readdirSync(`${CLIENT}/assets`).find((name) => /^manifest-.*\.js$/.test(name));
  if (!file) throw new Error("No route manifest in build/client/assets: build first (npx remix vite:build).");
  const source = readFileSync(`${CLIENT}/assets/${file}`, "utf8");
  return JSON.parse(source.slice(source.indexOf("{"), source.lastIndexOf("}") + 1));
}

const gzipped = (path: string) => gzipSync(readFileSync(`${CLIENT}${path}`), { level: 9 }).length;

/** The scripts a page of this route loads. */
function scriptsOf(routeId: string, { entry, routes }: ReturnType<typeof manifest>) {
  const scripts = new Set([entry.module, ...entry.imports]);
  for (let route: ManifestRoute | undefined = routes[routeId]; route; route = route.parentId ? routes[route.parentId] : undefined) {
    scripts.add(route.module);
    for (const imported of route.imports ?? []) scripts.add(imported);
  }
  return scripts;
}

describe("JavaScript per page", () => {
  const built = manifest();

  it.each(Object.keys(built.routes).filter((id) => id !== "root"))("%s loads at most the budget", (routeId) => {
    const kib = [...scriptsOf(routeId, built)].reduce((sum, script) => sum + gzipped(script), 0) / 1024;
    expect(kib, `${routeId}: ${kib.toFixed(1)} KiB`).toBeLessThanOrEqual(BUDGET_KIB);
  });

  it("sends no server code to the browser: no zod, drizzle or server modules", () => {
    for (const name of readdirSync(`${CLIENT}/assets`).filter((file) => file.endsWith(".js"))) {
      const code = readFileSync(`${CLIENT}/assets/${name}`, "utf8");
      expect(code, name).not.toMatch(/ZodError|drizzle-orm|\.server\.tsx?/);
    }
  });

  it("has no chunks that import each other, directly or through others (a page would stop before it hydrates)", () => {
    const scripts = readdirSync(`${CLIENT}/assets`).filter((file) => file.endsWith(".js"));
    const importsOf = new Map(
      scripts.map((name) => [
        name,
        [...readFileSync(`${CLIENT}/assets/${name}`, "utf8").matchAll(/(?:from|import)\s*"\.\/([\w.-]+\.js)"/g)].map((m) => m[1]!),
      ]),
    );
    const cycles: string[] = [];
    const visit = (name: string, path: string[]) => {
      if (path.includes(name)) {
        cycles.push([...path.slice(path.indexOf(name)), name].join(" -> "));
        return;
      }
      for (const imported of importsOf.get(name) ?? []) visit(imported, [...path, name]);
    };
    for (const name of scripts) visit(name, []);
    expect(cycles).toEqual([]);
  });

  it("keeps the forms' live checks out of pages without such a form", () => {
    const forms = [...scriptsOf("routes/_app.market", built)].find((script) => /\/forms-[\w-]+\.js$/.test(script));
    expect(forms, "the market's proposal form loads the forms chunk").toBeDefined();
    for (const routeId of ["routes/_app.mysite.offers", "routes/_app.mysite.messages", "routes/_app.mysite.connects", "routes/_landing._index"]) {
      expect([...scriptsOf(routeId, built)], routeId).not.toContain(forms);
    }
  });
});

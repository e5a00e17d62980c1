import { vitePlugin as remix } from "@remix-run/dev";
import { defineConfig } from "vite";
import tsconfigPaths from "vite-tsconfig-paths";
import { serverDependencyPatches } from "./vite/server-dependency-patches";

declare module "@remix-run/cloudflare" {
  interface Future {
    v3_singleFetch: true;
  }
}

type ModuleGraph = { getModuleInfo: (id: string) => { importers: readonly string[] } | null };

const ROUTE = /\/app\/(root\.tsx|routes\/[^/]+)$/;
const SIGNED_IN_ROUTE = /\/app\/(root\.tsx|routes\/_app[^/]*)$/;
/** The owner's area under /mysite (the dashboard, offers, settings and the rest). */
const OWNER_AREA_ROUTE = /\/app\/routes\/_app\.mysite[^/]*$/;
/**
 * The forms' live checks: only the pages with such a form (sign-up, add a site, a proposal, feedback, the settings' new
 * password) load them. The rules of a website's address are part of them (the website fields and the site-add form).
 */
const FORM_CHECKS = /\/app\/(components\/(use-field-checks|submit-button|feedback-dialog)\.tsx?|domain\/(form-rules|rules|site-address)\.ts)$/;
/**
 * The fields of a website and of a password, with their checks: the pages that make a site or take a password load
 * them (the sign-in page too, for the password field's show/hide button), not the feedback dialog's, nor the
 * dashboard, the offers or the messages, which are at the edge of the JavaScript budget.
 */
const SITE_AND_PASSWORD_FIELDS = /\/app\/components\/(website-fields|password-checklist|password-input)\.tsx$/;

/**
 * Hooks of a few lines that several owner's pages use: in the chunk every signed-in page loads already, not in the
 * owner's area's chunk (dates, offer rows), which a page like Settings would otherwise load for them alone.
 */
const SMALL_SIGNED_IN_HOOKS = /\/app\/components\/use-post-address\.ts$/;

/**
 * The trade terms panel and its proposal form (the market and the search results), which load the forms' checks, and
 * what those two lists of posts say around their cards.
 */
const TRADE_PANEL = /\/app\/components\/(trade-panel|proposal-form|post-list-notes)\.tsx$/;

/** The route modules that load a module, through the modules between them. */
function routesLoading(id: string, graph: ModuleGraph, seen = new Set<string>()): Set<string> {
  const routes = new Set<string>();
  for (const importer of graph.getModuleInfo(id)?.importers ?? []) {
    if (seen.has(importer)) continue;
    seen.add(importer);
    if (ROUTE.test(importer)) routes.add(importer);
    else for (const route of routesLoading(importer, graph, seen)) routes.add(route);
  }
  return routes;
}

/**
 * The browser's chunks. React and Remix are one chunk, cached across releases of the app. The app's own modules that
 * several pages load (components, rules, messages) are one chunk for the signed-in pages and one for the public
 * ones: split by default, they made a dozen chunks under 1 KB on every page, each gzipped alone, and together they
 * compress by a third, which keeps every page within the JavaScript budget (`npm run bench` prints it). The forms'
 * live checks are a third shared chunk, so that pages without such a form (offers, messages) do not carry them, and
 * the website and new-password fields a fourth, so that the dashboard's feedback dialog does not carry those. A
 * module that one page alone loads stays in that page's chunk.
 */
function browserChunk(id: string, graph: ModuleGraph) {
  if (/\/node_modules\/(react|react-dom|scheduler|@remix-run\/[\w-]+|react-router|react-router-dom|turbo-stream)\//.test(id)) return "framework";
  if (!/\/app\/(components|domain|lib)\//.test(id) || /\.server\.tsx?$/.test(id)) return undefined;
  const routes = routesLoading(id, graph);
  if (routes.size < 2) return undefined;
  if (FORM_CHECKS.test(id)) return "forms";
  if (SITE_AND_PASSWORD_FIELDS.test(id)) return "fields";
  if (TRADE_PANEL.test(id)) return "trade";
  if (SMALL_SIGNED_IN_HOOKS.test(id)) return "app";
  if ([...routes].every((route) => OWNER_AREA_ROUTE.test(route))) return "mysite";
  return [...routes].some((route) => SIGNED_IN_ROUTE.test(route)) ? "app" : "public";
}

export default defineConfig(({ isSsrBuild }) => ({
  plugins: [
    remix({
      future: {
        v3_routeConfig: true,
        v3_fetcherPersist: true,
        v3_relativeSplatPath: true,
        v3_throwAbortReason: true,
        v3_singleFetch: true,
        v3_lazyRouteDiscovery: true,
      },
    }),
    tsconfigPaths(),
    serverDependencyPatches(),
  ],
  ssr: {
    target: "webworker",
    // One self-contained server bundle: workerd (and the test runner inside it) loads no CommonJS at run time.
    noExternal: true,
    resolve: {
      conditions: ["workerd", "worker", "browser"],
      externalConditions: ["workerd", "worker"],
    },
  },
  build: {
    target: "es2022",
    // The server is one bundle; only the browser's code is split.
    // The Worker's runtime modules (`cloudflare:workers` for the Durable Object) stay imports for workerd to provide.
    rollupOptions: isSsrBuild ? { external: [/^cloudflare:/] } : { output: { manualChunks: browserChunk } },
  },
}));

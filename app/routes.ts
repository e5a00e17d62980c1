import { flatRoutes } from "@remix-run/fs-routes";
import type { RouteConfig } from "@remix-run/route-config";

// File-system routes (Remix's flat convention); route helpers and tests beside them are not routes.
export default flatRoutes({ ignoredRouteFiles: ["**/*.server.ts", "**/*.test.ts", "**/.*"] }) satisfies RouteConfig;

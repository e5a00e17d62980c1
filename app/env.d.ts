/// <reference types="@cloudflare/workers-types" />

declare module "remix-server-build" {
  import type { ServerBuild } from "@remix-run/cloudflare";
  const build: ServerBuild;
  export = build;
}

/**
 * The Worker's entry. The Remix server build carries the whole server: its entry module (`app/entry.server.tsx`)
 * exports the handlers (`app/handler.server.ts`). Importing the app's modules here as well would bundle a second
 * copy of Remix, React Router, drizzle and the app beside the build's, and objects of one copy would meet classes
 * of the other on every request (drizzle then checks each column's class by walking its prototypes).
 */
import type { ServerBuild } from "@remix-run/cloudflare";
import * as build from "remix-server-build";
import type * as serverEntry from "./entry.server";

const server = build.entry.module as unknown as typeof serverEntry;
const { handler, handleFetch } = server.createWorker(build as unknown as ServerBuild);

export const { ChatRoom, createContext } = server;
export { handleFetch };
export default handler;

/**
 * The door to a conversation's live socket: the Worker checks the upgrade's origin, the session and that the user
 * takes part in the conversation, then hands the upgrade to the conversation's Durable Object.
 */
import { CLOSE_SIGNED_OUT, SOCKET_TRUST_MS } from "~/domain/chat";
import type { AppContext } from "~/lib/context";
import { chatRoom, conversationFor } from "./chats.server";
import { readCookie, sessionCookieName, validateSessionToken } from "./sessions.server";

/** `/chats/{id}/socket` (see `chatSocketPath`) and `/chats/{id}/missed` (see `chatMissedPath`). */
const CHAT_PATH = /^\/chats\/([A-Za-z0-9_-]{1,64})\/(socket|missed)$/;

export function chatAddressOf(url: URL): { chatId: string; part: "socket" | "missed" } | null {
  const match = CHAT_PATH.exec(url.pathname);
  return match ? { chatId: match[1]!, part: match[2] as "socket" | "missed" } : null;
}

export type SocketRefusal = { status: 400 | 401 | 403 | 404 | 405 | 426; message: string };

/** A page of another site may not open a socket with the visitor's cookie: the upgrade must come from our own pages. */
function fromOwnOrigin(request: Request, appUrl: string): boolean {
  const origin = request.headers.get("Origin");
  if (!origin) return false;
  const own = new Set([new URL(request.url).origin, new URL(appUrl).origin]);
  return own.has(origin);
}

/**
 * The signed-in user and the conversation, when they take part in it. The session is read as every page reads it (an
 * expired or ended session is no session), without sliding it: an upgrade sends no cookie back, so a server-side slide
 * would outlive the browser's cookie.
 */
async function participantOf(request: Request, context: AppContext, chatId: string) {
  const token = readCookie(request, sessionCookieName(context.env));
  const auth = token ? await validateSessionToken(context.db, token, context.now(), { slide: false }) : null;
  if (!auth) return "signed-out" as const;
  const chat = await conversationFor(context.db, auth.user.id, chatId);
  return chat ? { auth, chat } : ("not-found" as const);
}

export async function openChatSocket(request: Request, context: AppContext, chatId: string): Promise<Response | SocketRefusal> {
  if (request.method !== "GET" || request.headers.get("Upgrade")?.toLowerCase() !== "websocket") {
    return { status: 426, message: "This address takes a WebSocket." };
  }
  if (!fromOwnOrigin(request, context.env.APP_URL)) return { status: 403, message: "This socket opens from the product's own pages only." };
  const found = await participantOf(request, context, chatId);
  if (found === "signed-out") return signedOutSocket();
  if (found === "not-found") return { status: 404, message: "Not found" };
  const { auth, chat } = found;
  // A fresh request: nothing the browser sent reaches the object but what was checked here.
  return chatRoom(context.env, chat.id).fetch("https://chat-room.internal/socket", {
    headers: {
      Upgrade: "websocket",
      "X-Chat-Id": chat.id,
      "X-Chat-Users": chat.ref.userIds.join(","),
      "X-Chat-User": auth.user.id,
      "X-Chat-Session": auth.session.id,
      "X-Chat-Session-Expires": String(Math.min(auth.session.expiresAt, auth.session.absoluteExpiresAt, context.now() + SOCKET_TRUST_MS)),
      // A page whose tab is hidden says so as it connects (`?hidden`): it has not seen what comes before its first sync.
      ...(new URL(request.url).searchParams.has("hidden") ? { "X-Chat-Hidden": "1" } : {}),
    },
  });
}

/**
 * No session (signed out, or it ran out while the browser slept): a socket that closes at once with the code the
 * browser stops on. A browser cannot read the status of a refused upgrade, so a plain 401 looked like a dropped
 * connection and the page tried again every 30 seconds for good, showing "Connecting…".
 */
function signedOutSocket(): Response {
  const { 0: browserEnd, 1: ourEnd } = new WebSocketPair();
  ourEnd.accept();
  ourEnd.close(CLOSE_SIGNED_OUT, "Log in to open this conversation.");
  return new Response(null, { status: 101, webSocket: browserEnd });
}

/**
 * The messages after `?after=` of a conversation the signed-in user takes part in, as the socket's "history" event:
 * for a page whose socket cannot open.
 */
export async function readMissedMessages(request: Request, context: AppContext, chatId: string): Promise<Response | SocketRefusal> {
  if (request.method !== "GET") return { status: 405, message: "Method not allowed" };
  const after = new URL(request.url).searchParams.get("after") ?? "";
  if (!/^\d{1,15}$/.test(after)) return { status: 400, message: "after: a message id" };
  const found = await participantOf(request, context, chatId);
  if (found === "signed-out") return { status: 401, message: "Log in to read this conversation." };
  if (found === "not-found") return { status: 404, message: "Not found" };
  const { auth, chat } = found;
  const missed = await chatRoom(context.env, chat.id).missed(chat.ref, auth.user.id, Number(after));
  return Response.json(missed, { headers: { "Cache-Control": "no-store" } });
}

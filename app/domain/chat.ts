/**
 * Chat: everything said on a conversation's WebSocket, as one typed union shared by the browser and the
 * conversation's Durable Object, with the rules both apply to a message.
 */
import { hasVisibleText } from "./visible-text";

/** A message as the object stores it: ids count 1, 2, 3... within a conversation, so they are its order. */
export interface ChatMessage {
  id: number;
  senderId: string;
  text: string;
  /** Epoch milliseconds. */
  createdAt: number;
  /** The sender's own id for it: a message sent twice with one id (a retry) is stored once. */
  clientId: string | null;
}

/** A conversation as one participant sees it: the other party's site, the last message, unread or not. */
export interface Conversation {
  id: string;
  otherUserId: string;
  /** The other party's site, or "A site owner" when they have none now. */
  otherHost: string;
  otherIcon: string | null;
  /** The start of the last message, or null before the first. */
  lastMessage: string | null;
  lastFromMe: boolean;
  /** Epoch milliseconds of the last message (or of the opening). */
  lastUpdated: number;
  lastMessageId: number;
  unread: boolean;
}

/** The conversation a page shows: one page of its messages (the latest ones, or those before `before`). */
export interface OpenConversation extends Pick<Conversation, "id" | "otherUserId" | "otherHost" | "otherIcon"> {
  messages: ChatMessage[];
  /** Older messages exist before the first one here. */
  more: boolean;
  before: number | null;
  /** The conversation's newest message id when the page was made: a page of older messages picks up from there. */
  latestId: number;
  /** The other participant has it open in a tab in view. */
  otherActive: boolean;
}

/** What the browser sends. */
export type ClientEvent =
  /** A new message; `clientId` lets the sender match the echo (or the refusal) to what it typed, and makes a
   * retry after a dropped connection safe: the object stores one message per sender and clientId. */
  | { type: "send"; clientId: string; text: string }
  /**
   * Everything after the last message the browser has (0 for all), on connecting and reconnecting; and whether the
   * tab is hidden, on connecting and whenever that changes (left out: as it was). A hidden tab's page receives the
   * messages, but its participant has not seen them: they stay unread and the email about them goes.
   */
  | { type: "sync"; after: number; hidden?: boolean };

export type RefusalReason = "empty" | "too-long" | "rate-limited";

/** What the object sends. */
export type ServerEvent =
  /** A stored message, to everyone in the conversation, in the order the object stored them. */
  | { type: "message"; message: ChatMessage }
  /** The answer to `sync`: missed messages in order; `more` when there were too many to send at once. */
  | { type: "history"; messages: ChatMessage[]; more: boolean }
  /** Who has the conversation open in a tab they can see (activeUsers), sent whenever it changes. */
  | { type: "presence"; activeUserIds: string[] }
  /** A message that was not stored, and why. */
  | { type: "refused"; clientId: string; reason: RefusalReason; message: string };

export const MAX_MESSAGE_LENGTH = 4000;
/** Messages one participant may send to a conversation per minute. */
export const MESSAGES_PER_MINUTE = 30;
/** Most messages sent at once in a history answer (the page shows the latest of them). */
export const HISTORY_PAGE = 200;

export const CHAT_REFUSALS: Record<RefusalReason, string> = {
  empty: "Write a message before sending.",
  "too-long": `A message can be at most ${MAX_MESSAGE_LENGTH.toLocaleString("en-US")} characters.`,
  "rate-limited": rateLimitedMessage(MESSAGES_PER_MINUTE),
};

export function rateLimitedMessage(perMinute: number): string {
  return `You can send at most ${perMinute} messages a minute. Please wait a moment.`;
}

/**
 * The text as stored (trimmed, line breaks as "\n"), or why it cannot be sent: a text with nothing to see is empty. A
 * form posted without JavaScript sends each line break as "\r\n": counted as one character, as the text box counts it.
 */
export function checkMessageText(raw: unknown): { ok: true; text: string } | { ok: false; reason: "empty" | "too-long" } {
  const text = typeof raw === "string" ? raw.replace(/\r\n?/g, "\n").trim() : "";
  if (!hasVisibleText(text)) return { ok: false, reason: "empty" };
  if (text.length > MAX_MESSAGE_LENGTH) return { ok: false, reason: "too-long" };
  return { ok: true, text };
}

/** Ids the browser makes for its messages (random UUIDs; any short token is accepted). */
export function isClientId(value: unknown): value is string {
  return typeof value === "string" && /^[A-Za-z0-9_-]{8,64}$/.test(value);
}

/** A frame from a browser, or null when it is not one of ours (frames are small: a message plus its envelope). */
export function parseClientEvent(frame: string | ArrayBuffer): ClientEvent | null {
  if (typeof frame !== "string" || frame.length > MAX_MESSAGE_LENGTH * 6 + 200) return null;
  let value: unknown;
  try {
    value = JSON.parse(frame);
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null) return null;
  const event = value as Record<string, unknown>;
  if (event.type === "send" && isClientId(event.clientId) && typeof event.text === "string") {
    return { type: "send", clientId: event.clientId, text: event.text };
  }
  if (event.type === "sync" && typeof event.after === "number" && Number.isSafeInteger(event.after) && event.after >= 0) {
    return typeof event.hidden === "boolean" ? { type: "sync", after: event.after, hidden: event.hidden } : { type: "sync", after: event.after };
  }
  return null;
}

export function parseServerEvent(frame: unknown): ServerEvent | null {
  if (typeof frame !== "string") return null;
  try {
    const value = JSON.parse(frame) as ServerEvent;
    return typeof value === "object" && value !== null && typeof value.type === "string" ? value : null;
  } catch {
    return null;
  }
}

/** The socket of a conversation, on the product's own origin. */
export function chatSocketPath(chatId: string): string {
  return `/chats/${encodeURIComponent(chatId)}/socket`;
}

/**
 * The messages of a conversation after `after`, as the socket's "history" event (JSON): read every few seconds by a
 * page whose socket cannot open (a proxy that drops WebSockets).
 */
export function chatMissedPath(chatId: string, after: number): string {
  return `/chats/${encodeURIComponent(chatId)}/missed?after=${after}`;
}

/**
 * How long a socket trusts the session it was opened with before it closes as run out and the browser reconnects,
 * which checks the session again. Sign-out, password reset and "sign out everywhere else" also tell the rooms at once;
 * this bounds what a socket of an ended session can still read or post if telling a room failed.
 */
export const SOCKET_TRUST_MS = 15 * 60_000;

/** Close codes the browser acts on: the session was ended (stop), or has run out (reconnect, which checks it again). */
export const CLOSE_SIGNED_OUT = 4401;
export const CLOSE_SESSION_EXPIRED = 4001;

/**
 * Reconnection delays: 1 s doubling to 30 s, each spread at random from half to one and a half times, so the
 * clients of a conversation (or of a whole deploy) do not come back at the same moment.
 */
export function reconnectDelay(attempt: number, random = Math.random()): number {
  const base = Math.min(30_000, 1000 * 2 ** Math.max(0, attempt));
  return Math.round(base * (0.5 + random));
}

/** Messages sorted by id without duplicates: what the browser shows after merging live and fetched messages. */
export function mergeMessages(current: readonly ChatMessage[], incoming: readonly ChatMessage[]): ChatMessage[] {
  const byId = new Map<number, ChatMessage>();
  for (const message of current) byId.set(message.id, message);
  for (const message of incoming) byId.set(message.id, message);
  return [...byId.values()].sort((a, b) => a.id - b.id);
}

let graphemes: Intl.Segmenter | undefined;

/**
 * A web address in a message: with its scheme, from "www.", or a name with a dot and a top-level domain of letters
 * ("example.com/login"); not the domain of an email address.
 */
const WEB_ADDRESS =
  /(?:https?:\/\/|www\.)\S+|(?<![@\p{L}\p{N}.-])(?:[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?\.)+\p{L}{2,}(?![\p{L}\p{N}-])(?:[/?#]\S*)?/gu;

/**
 * A message as an email quotes it: its web addresses as "[link]". The email comes from the product's own address, and
 * mail apps make any address in it a link: a stranger's "confirm your listing at …" would borrow the product's trust.
 * The conversation, one link away, shows the message whole.
 */
export function withoutWebAddresses(text: string): string {
  return text.replace(WEB_ADDRESS, "[link]");
}

/** One line of a message for the list of conversations. */
export function messagePreview(text: string, length = 80): string {
  // Counted in characters as they are seen (graphemes): a cut inside an emoji (a flag, a skin tone, a family) would
  // leave part of it.
  graphemes ??= new Intl.Segmenter("en", { granularity: "grapheme" });
  const line = Array.from(graphemes.segment(text.replace(/\s+/g, " ").trim()), (part) => part.segment);
  return line.length > length
    ? `${line
        .slice(0, length - 1)
        .join("")
        .trimEnd()}…`
    : line.join("");
}

/**
 * An address of the Messages page: the list's page (`list`, the cursor it starts after; none for the first), the
 * open conversation and, in it, the page of older messages (`before`). Each value is safe in an address as it is (an
 * id, a number, a cursor of digits, letters, "_" and "-").
 */
export function messagesAddress({ chatId, before, list }: { chatId?: string | null; before?: number | null; list?: string | null }): string {
  const query = [chatId && `chatId=${chatId}`, before && `before=${before}`, list && `conversations=${list}`].filter(Boolean).join("&");
  return query ? `/mysite/messages?${query}` : "/mysite/messages";
}

/**
 * One conversation: its messages (SQLite storage), its open WebSockets (hibernatable), and the email that tells
 * an away participant about new messages (an alarm). Reached only through the Worker, which has already checked
 * the session and that the user takes part in this conversation (`app/services/chat-socket.server.ts`).
 */
import { createHash } from "node:crypto";
import { DurableObject } from "cloudflare:workers";
import {
  CHAT_REFUSALS,
  CLOSE_SESSION_EXPIRED,
  CLOSE_SIGNED_OUT,
  HISTORY_PAGE,
  MESSAGES_PER_MINUTE,
  checkMessageText,
  parseClientEvent,
  rateLimitedMessage,
  type ChatMessage,
  type RefusalReason,
  type ServerEvent,
} from "~/domain/chat";
import { database } from "~/lib/db.server";
import { numberVar, type Env } from "~/lib/env";
import { deliverOutbox } from "~/services/email.server";
import { markReadUpTo, mirrorLastMessage, queueMessagesEmail } from "~/services/chats.server";

/** Which conversation, and its two participants (as D1 has them); the Worker sends it with every call. */
export interface ChatRef {
  chatId: string;
  userIds: [string, string];
}

/** What each socket carries through hibernation. */
interface SocketAttachment {
  userId: string;
  /** The session that opened it (its id as the sessions table has it) and when that session ends at the latest. */
  sessionId: string;
  sessionExpiresAt: number;
  /** Wall-clock time of the last sign of life: the connection, a frame, or a keep-alive ping. */
  seenAt: number;
  /**
   * The page said its tab is hidden (as it connected, or in its last "sync"): it receives the messages, but its
   * participant is not there to see them. Absent while a page has not said so (pages from before it was asked never do).
   */
  hidden?: boolean;
}

/**
 * Sessions that have ended: one, or every one but `allBut` (null: all). A `replaced` session's browser has a new one:
 * its sockets are closed too, with the code on which a page connects again (with the new cookie), not the signed-out one.
 */
export type EndedSessions = { sessionId: string } | { allBut: string | null; replaced?: string };

/** The session an upgrade comes with, as the Worker checked it. */
export interface SocketSession {
  userId: string;
  sessionId: string;
  expiresAt: number;
}

export type PostResult = { ok: true; message: ChatMessage } | { ok: false; reason: RefusalReason; message: string };

export interface History {
  messages: ChatMessage[];
  /** Older messages exist before the first one here. */
  more: boolean;
  /** The conversation's newest message id (0 when empty): where a live page picks up. */
  latestId: number;
  activeUserIds: string[];
}

/** An email about new messages waits this long for more of them, so one email covers a burst. */
export const EMAIL_COLLECT_MS = 3 * 60_000;
/** At most one email per participant per conversation in this time. */
export const EMAIL_INTERVAL_MS = 15 * 60_000;
/** Open sockets one participant may have in a conversation (tabs and devices). */
export const MAX_SOCKETS_PER_USER = 100;
/** Messages a page shows at first (older ones a page at a time). */
export const PAGE_MESSAGES = 50;
/** A socket with no sign of life for this long (the browser pings every 25 s) is gone, whatever its state says. */
export const SOCKET_SILENCE_MS = 70_000;
/**
 * Messages one participant may send to one conversation in a day: far above what two traders write, it keeps a
 * script from filling a conversation's storage (30 a minute, all day, would be 43,200).
 */
export const MESSAGES_PER_DAY = 500;
export const DAILY_LIMIT_MESSAGE = `You can send at most ${MESSAGES_PER_DAY} messages in 24 hours in one conversation. Please try again later.`;
/**
 * While both participants have sockets open, the object wakes this often to close the silent ones and tell the other
 * (a laptop that went to sleep sends no close, and its owner would stay "Active now" on the other side). With one
 * participant there is no one to tell, and the object sleeps: whoever is active is worked out afresh at each message.
 */
export const PRESENCE_SWEEP_MS = SOCKET_SILENCE_MS + 5_000;
/**
 * Frames one participant may send a conversation in a minute, over all their sockets, per message they may send in a
 * minute (30: 120 frames): a page sends one a message and one when it connects; more is a flood, and the socket it came
 * on is closed (the page reconnects after a pause, as after any drop).
 */
export const FRAMES_PER_MESSAGE_ALLOWED = 4;
/** Close code for a flood of frames (WebSocket's "policy violation"). */
const CLOSE_TOO_MANY_FRAMES = 1008;
/** A failed mirror to D1 is tried again after this long. */
const MIRROR_RETRY_MS = 30_000;
/** An email about new messages that could not be queued (D1 out of reach) is tried again after this long. */
export const EMAIL_RETRY_MS = 60_000;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS room (id INTEGER PRIMARY KEY CHECK (id = 1), chat_id TEXT NOT NULL, user_a TEXT NOT NULL, user_b TEXT NOT NULL, mirrored_id INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS messages (id INTEGER PRIMARY KEY, sender_id TEXT NOT NULL, text TEXT NOT NULL, created_at INTEGER NOT NULL, client_id TEXT);
CREATE INDEX IF NOT EXISTS messages_sender_time ON messages (sender_id, created_at);
CREATE UNIQUE INDEX IF NOT EXISTS messages_sender_client ON messages (sender_id, client_id);
CREATE TABLE IF NOT EXISTS notifications (user_id TEXT PRIMARY KEY, from_id INTEGER, last_email_at INTEGER NOT NULL DEFAULT 0);
`;

type MessageRow = { id: number; sender_id: string; text: string; created_at: number; client_id: string | null };
const MESSAGE_COLUMNS = "id, sender_id, text, created_at, client_id";

const asMessage = (row: MessageRow): ChatMessage => ({
  id: row.id,
  senderId: row.sender_id,
  text: row.text,
  createdAt: row.created_at,
  clientId: row.client_id,
});

const OPEN = 1;

const attachmentOf = (socket: WebSocket) => socket.deserializeAttachment() as SocketAttachment;

/** The participants who have one of these sockets open in a tab in view, in order. */
function watching(sockets: WebSocket[]): string[] {
  const userIds = sockets.map(attachmentOf).flatMap((attachment) => (attachment.hidden ? [] : [attachment.userId]));
  return [...new Set(userIds)].sort();
}

function closeQuietly(socket: WebSocket, code: number, reason: string): void {
  try {
    socket.close(code, reason);
  } catch {
    // Already closed.
  }
}

export class ChatRoom extends DurableObject<Env> {
  /** The object's clock, in epoch milliseconds; tests move it to exercise the email alarm. */
  now: () => number = () => Date.now();
  private readonly sql: SqlStorage;
  /** The mirror to D1 in flight, and whether another is wanted after it (mirrors are coalesced). */
  private mirroring: Promise<void> | null = null;
  private mirrorAgain = false;
  /** The newest message each participant's read mark in D1 was moved to while this object has been awake. */
  private readonly markedRead = new Map<string, number>();
  /** Each participant's frames in the current minute, while this object is awake (a flood keeps it awake). */
  private readonly framesCounted = new Map<string, { since: number; count: number }>();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sql.exec(SCHEMA);
    // Keep-alive pings are answered without waking the object.
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair("ping", "pong"));
  }

  // --- Entry points -------------------------------------------------------------------------------

  /** A WebSocket upgrade, forwarded by the Worker with the checked session and conversation. */
  async fetch(request: Request): Promise<Response> {
    if (request.headers.get("Upgrade")?.toLowerCase() !== "websocket") return new Response("Expected a WebSocket", { status: 426 });
    const session: SocketSession = {
      userId: request.headers.get("X-Chat-User") ?? "",
      sessionId: request.headers.get("X-Chat-Session") ?? "",
      expiresAt: Number(request.headers.get("X-Chat-Session-Expires")),
    };
    const [userA = "", userB = ""] = (request.headers.get("X-Chat-Users") ?? "").split(",");
    if (
      !session.sessionId ||
      !(session.expiresAt > Date.now()) ||
      !this.enter({ chatId: request.headers.get("X-Chat-Id") ?? "", userIds: [userA, userB] }, session.userId)
    ) {
      return new Response("Not found", { status: 404 });
    }
    if (this.liveSockets().filter((socket) => attachmentOf(socket).userId === session.userId).length >= MAX_SOCKETS_PER_USER) {
      return new Response("Too many open conversations", { status: 429 });
    }

    const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
    this.ctx.acceptWebSocket(server, [session.userId]);
    server.serializeAttachment({
      userId: session.userId,
      sessionId: session.sessionId,
      sessionExpiresAt: session.expiresAt,
      seenAt: Date.now(),
      ...(request.headers.get("X-Chat-Hidden") === "1" ? { hidden: true } : {}),
    } satisfies SocketAttachment);
    // What the participant has seen is marked at the page's first "sync", which says whether its tab is in view (a
    // tab reconnecting in the background has not seen what it receives).
    this.broadcastPresence();
    await this.sweepWhileBothHere(this.liveSockets());
    return new Response(null, { status: 101, webSocket: client });
  }

  /** Closes the sockets of a user's ended sessions (sign-out, "sign out everywhere else", a password reset). */
  async endSessions(userId: string, which: EndedSessions): Promise<void> {
    let closed = false;
    for (const socket of this.ctx.getWebSockets(userId)) {
      const { sessionId } = attachmentOf(socket);
      if ("sessionId" in which ? sessionId !== which.sessionId : sessionId === which.allBut) continue;
      if ("replaced" in which && sessionId === which.replaced) closeQuietly(socket, CLOSE_SESSION_EXPIRED, "Session replaced");
      else closeQuietly(socket, CLOSE_SIGNED_OUT, "Signed out");
      closed = true;
    }
    if (closed) this.broadcastPresence();
  }

  /**
   * The latest page of messages, which the reader has now seen (no email about them is due), or the page before
   * `before`: older ones, which leave the newest unseen, and their email due, as the unread mark stays.
   */
  async history(ref: ChatRef, userId: string, before?: number): Promise<History> {
    if (!this.enter(ref, userId)) throw new Error("Not a participant of this conversation");
    if (before === undefined) this.sql.exec("UPDATE notifications SET from_id = NULL WHERE user_id = ?", userId);
    const rows = this.sql
      .exec<MessageRow>(
        `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE id < ? ORDER BY id DESC LIMIT ?`,
        before ?? Number.MAX_SAFE_INTEGER,
        PAGE_MESSAGES + 1,
      )
      .toArray();
    return {
      messages: rows.slice(0, PAGE_MESSAGES).reverse().map(asMessage),
      more: rows.length > PAGE_MESSAGES,
      latestId: this.latestId(),
      activeUserIds: this.activeUserIds(),
    };
  }

  /** What a page whose socket cannot open reads every few seconds: messages after `after`, now seen, as over a socket. */
  async missed(ref: ChatRef, userId: string, after: number): Promise<ServerEvent> {
    if (!this.enter(ref, userId)) throw new Error("Not a participant of this conversation");
    const missed = this.missedSince(after);
    this.seenBy(userId);
    return missed;
  }

  /** A message posted from the page (without JavaScript): stored, broadcast and mirrored before the answer. */
  async post(ref: ChatRef, userId: string, text: string, clientId: string | null): Promise<PostResult> {
    if (!this.enter(ref, userId)) throw new Error("Not a participant of this conversation");
    // Whoever writes has the conversation in front of them.
    this.sql.exec("UPDATE notifications SET from_id = NULL WHERE user_id = ?", userId);
    const result = await this.store(userId, text, clientId);
    if (result.ok) await this.mirrored();
    return result;
  }

  async webSocketMessage(ws: WebSocket, frame: string | ArrayBuffer): Promise<void> {
    const attachment = attachmentOf(ws);
    if (attachment.sessionExpiresAt <= Date.now()) {
      closeQuietly(ws, CLOSE_SESSION_EXPIRED, "Session expired");
      this.broadcastPresence(ws);
      return;
    }
    if (this.floods(attachment.userId)) {
      closeQuietly(ws, CLOSE_TOO_MANY_FRAMES, "Too many messages");
      this.broadcastPresence(ws);
      return;
    }
    const event = parseClientEvent(frame);
    const hidden = event?.type === "sync" ? event.hidden ?? attachment.hidden : attachment.hidden;
    ws.serializeAttachment({ ...attachment, seenAt: Date.now(), hidden } satisfies SocketAttachment);
    if (!event) return;
    if (event.type === "sync") {
      this.send(ws, this.missedSince(event.after));
      // Back in view, everything the page has is seen; gone out of view, the other side sees them away.
      if (!hidden) this.seenBy(attachment.userId);
      if (Boolean(hidden) !== Boolean(attachment.hidden)) this.broadcastPresence();
      return;
    }
    await this.store(attachment.userId, event.text, event.clientId, ws);
  }

  async webSocketClose(ws: WebSocket, code: number): Promise<void> {
    closeQuietly(ws, code === 1005 || code === 1006 || code < 1000 ? 1000 : code, "Closed");
    this.broadcastPresence(ws);
  }

  async webSocketError(ws: WebSocket): Promise<void> {
    this.broadcastPresence(ws);
  }

  /**
   * Emails participants who were away when messages came, one email per burst and at most one per interval; mirrors
   * the newest message to D1 again if the last mirror failed; and sweeps the sockets that have gone silent.
   */
  async alarm(): Promise<void> {
    const room = this.room();
    if (!room) return;
    if (room.mirroredId < this.latestId()) this.mirror();
    const now = this.now();
    const db = database(this.env.DB);
    // The sweep: silent sockets are closed on the way (liveSockets), and the others told who is still there.
    const open = this.ctx.getWebSockets().filter((socket) => socket.readyState === OPEN).length;
    const live = this.liveSockets();
    if (live.length < open) this.broadcastPresence();
    await this.sweepWhileBothHere(live);
    const active = watching(live);
    let queued = false;
    let retryAt: number | undefined;
    for (const pending of this.pendingEmails()) {
      if (active.includes(pending.user_id)) {
        this.sql.exec("UPDATE notifications SET from_id = NULL WHERE user_id = ?", pending.user_id);
        continue;
      }
      if (pending.due > now) continue;
      const unseen = this.sql
        .exec<MessageRow>(`SELECT ${MESSAGE_COLUMNS} FROM messages WHERE id >= ? AND sender_id != ? ORDER BY id`, pending.from_id, pending.user_id)
        .toArray();
      const latest = unseen.at(-1);
      if (latest) {
        try {
          await queueMessagesEmail(
            db,
            this.env,
            { chatId: room.chatId, recipientId: pending.user_id, senderId: latest.sender_id, count: unseen.length, latest: asMessage(latest) },
            now,
          );
        } catch (error) {
          // D1 out of reach: the email stays due and is tried again in a minute (the runtime's own retries of a failed
          // alarm give up after a few minutes, and nothing else would wake the room for it).
          console.error("chat email not queued", error);
          retryAt = now + EMAIL_RETRY_MS;
          continue;
        }
        queued = true;
      }
      // Messages that came while the email was queued wait for the next one; if the participant opened the
      // conversation meanwhile (from_id cleared), there is nothing left to tell them.
      this.sql.exec(
        `UPDATE notifications SET last_email_at = ?,
           from_id = CASE WHEN from_id = ? THEN (SELECT min(id) FROM messages WHERE id > ? AND sender_id != ?) ELSE from_id END
         WHERE user_id = ?`,
        now,
        pending.from_id,
        latest?.id ?? Number.MAX_SAFE_INTEGER,
        pending.user_id,
        pending.user_id,
      );
    }
    await this.scheduleEmails(retryAt);
    if (queued) await deliverOutbox(db, this.env, now).catch((error) => console.error("outbox", error));
    await this.mirrored();
  }

  /** The messages a participant may send a minute (`CHAT_MESSAGES_PER_MINUTE`, 30 unless configured). */
  private messagesPerMinute(): number {
    return numberVar(this.env.CHAT_MESSAGES_PER_MINUTE, MESSAGES_PER_MINUTE);
  }

  /** Counts a frame of the participant's; true once they have sent more in a minute than `FRAMES_PER_MESSAGE_ALLOWED` allows. */
  private floods(userId: string): boolean {
    const now = Date.now();
    const counted = this.framesCounted.get(userId);
    if (!counted || counted.since <= now - 60_000) {
      this.framesCounted.set(userId, { since: now, count: 1 });
      return false;
    }
    counted.count += 1;
    return counted.count > FRAMES_PER_MESSAGE_ALLOWED * this.messagesPerMinute();
  }

  // --- Messages -----------------------------------------------------------------------------------

  /**
   * Checks, stores, then broadcasts: one message at a time, with no wait between the write and the broadcast,
   * so every socket receives the messages in the order of their ids.
   */
  private async store(userId: string, raw: string, clientId: string | null, socket?: WebSocket): Promise<PostResult> {
    const refuse = (reason: RefusalReason, message: string): PostResult => {
      if (socket && clientId) this.send(socket, { type: "refused", clientId, reason, message });
      return { ok: false, reason, message };
    };
    const checked = checkMessageText(raw);
    if (!checked.ok) return refuse(checked.reason, CHAT_REFUSALS[checked.reason]);
    let newClientId = clientId;
    if (clientId) {
      // A retry of a message this sender already stored: the same message again, to this sender only. Other text
      // under a used id (the form sent again after Back and an edit) is a new message, kept under the id and its
      // text's digest, so that form sent twice is stored once too (docs/decisions/0053-writes-that-overlap.md).
      const edited = `${clientId}.${createHash("sha256").update(checked.text).digest("hex").slice(0, 16)}`;
      const stored = this.sql
        .exec<MessageRow>(`SELECT ${MESSAGE_COLUMNS} FROM messages WHERE sender_id = ? AND client_id IN (?, ?)`, userId, clientId, edited)
        .toArray();
      const retried = stored.find((row) => row.text === checked.text);
      if (retried) {
        if (socket) this.send(socket, { type: "message", message: asMessage(retried) });
        return { ok: true, message: asMessage(retried) };
      }
      if (stored.length > 0) newClientId = edited;
    }
    const now = this.now();
    const perMinute = this.messagesPerMinute();
    const recent = this.sql
      .exec<{ minute: number | null; day: number }>(
        "SELECT sum(created_at > ?) AS minute, count(*) AS day FROM messages WHERE sender_id = ? AND created_at > ?",
        now - 60_000,
        userId,
        now - 24 * 60 * 60_000,
      )
      .one();
    if ((recent.minute ?? 0) >= perMinute) return refuse("rate-limited", rateLimitedMessage(perMinute));
    if (recent.day >= MESSAGES_PER_DAY) return refuse("rate-limited", DAILY_LIMIT_MESSAGE);

    const message = asMessage(
      this.sql
        .exec<MessageRow>(
          `INSERT INTO messages (sender_id, text, created_at, client_id) VALUES (?, ?, ?, ?) RETURNING ${MESSAGE_COLUMNS}`,
          userId,
          checked.text,
          now,
          newClientId,
        )
        .one(),
    );
    const frame = JSON.stringify({ type: "message", message } satisfies ServerEvent);
    for (const open of this.liveSockets()) this.sendFrame(open, frame);

    this.mirror();
    await this.rememberUnseen(message, this.activeUserIds());
    return { ok: true, message };
  }

  /** Messages after `after`, a page at a time, for a socket that connects or reconnects. */
  private missedSince(after: number): ServerEvent {
    const rows = this.sql
      .exec<MessageRow>(`SELECT ${MESSAGE_COLUMNS} FROM messages WHERE id > ? ORDER BY id LIMIT ?`, after, HISTORY_PAGE + 1)
      .toArray();
    return { type: "history", messages: rows.slice(0, HISTORY_PAGE).map(asMessage), more: rows.length > HISTORY_PAGE };
  }

  /**
   * Mirrors the newest message to D1 in the background: a burst of messages becomes one write, and a failure is
   * tried again by the alarm (the last mirrored id is kept in storage, so an eviction loses nothing).
   */
  private mirror(): void {
    this.mirrorAgain = true;
    if (this.mirroring) return;
    const run = async () => {
      try {
        while (this.mirrorAgain) {
          this.mirrorAgain = false;
          const room = this.room();
          const latest = this.sql.exec<MessageRow>(`SELECT ${MESSAGE_COLUMNS} FROM messages ORDER BY id DESC LIMIT 1`).toArray()[0];
          if (!room || !latest || latest.id <= room.mirroredId) continue;
          await mirrorLastMessage(database(this.env.DB), room.chatId, asMessage(latest), this.activeUserIds());
          this.sql.exec("UPDATE room SET mirrored_id = max(mirrored_id, ?) WHERE id = 1", latest.id);
        }
      } catch (error) {
        console.error("chat mirror", error);
        await this.wakeBy(Date.now() + MIRROR_RETRY_MS);
      } finally {
        this.mirroring = null;
      }
    };
    this.mirroring = run();
  }

  private async mirrored(): Promise<void> {
    while (this.mirroring) await this.mirroring;
  }

  /** The participant has seen everything so far: no email about it, and read in the list. */
  private seenBy(userId: string): void {
    this.sql.exec("UPDATE notifications SET from_id = NULL WHERE user_id = ?", userId);
    const room = this.room();
    const latestId = this.latestId();
    // A mark already there is not written again: a socket sending "sync" over and over costs D1 nothing.
    if (!room || latestId === 0 || (this.markedRead.get(userId) ?? 0) >= latestId) return;
    this.markedRead.set(userId, latestId);
    markReadUpTo(database(this.env.DB), room.chatId, userId, latestId).catch((error) => console.error("chat read mark", error));
  }

  private latestId(): number {
    return this.sql.exec<{ id: number }>("SELECT coalesce(max(id), 0) AS id FROM messages").one().id;
  }

  // --- Email to the participant who is away ----------------------------------------------------------

  private async rememberUnseen(message: ChatMessage, active: string[]): Promise<void> {
    const room = this.room();
    const recipient = room?.userIds.find((id) => id !== message.senderId);
    if (!recipient || active.includes(recipient)) return;
    this.sql.exec(
      "INSERT INTO notifications (user_id, from_id) VALUES (?, ?) ON CONFLICT (user_id) DO UPDATE SET from_id = coalesce(from_id, excluded.from_id)",
      recipient,
      message.id,
    );
    await this.scheduleEmails();
  }

  /** Who is waiting for an email, from which message, and when it is due. */
  private pendingEmails() {
    return this.sql
      .exec<{ user_id: string; from_id: number; last_email_at: number; first_at: number }>(
        `SELECT n.user_id, n.from_id, n.last_email_at, m.created_at AS first_at
         FROM notifications n JOIN messages m ON m.id = n.from_id WHERE n.from_id IS NOT NULL`,
      )
      .toArray()
      .map((row) => ({ ...row, due: Math.max(row.first_at + EMAIL_COLLECT_MS, row.last_email_at + EMAIL_INTERVAL_MS) }));
  }

  /** Sets the alarm for the next email due, or not before `notBefore` (an email that failed to queue waits for it). */
  private async scheduleEmails(notBefore = 0): Promise<void> {
    const due = Math.min(...this.pendingEmails().map((pending) => pending.due));
    if (Number.isFinite(due)) await this.wakeBy(Math.max(due, notBefore));
  }

  /** Sets the presence sweep's alarm while both participants have live sockets (PRESENCE_SWEEP_MS). */
  private async sweepWhileBothHere(live: WebSocket[]): Promise<void> {
    if (new Set(live.map((socket) => attachmentOf(socket).userId)).size > 1) await this.wakeBy(Date.now() + PRESENCE_SWEEP_MS);
  }

  /** Sets the alarm for `at`, unless it is already set sooner. */
  private async wakeBy(at: number): Promise<void> {
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > at) await this.ctx.storage.setAlarm(at);
  }

  // --- The room and its sockets ---------------------------------------------------------------------

  /** The conversation this object holds; the first call names it, and later calls must name the same one. */
  private enter(ref: ChatRef, userId: string): boolean {
    const [userA, userB] = ref.userIds;
    if (!ref.chatId || !userA || !userB || !ref.userIds.includes(userId)) return false;
    this.sql.exec("INSERT INTO room (id, chat_id, user_a, user_b) VALUES (1, ?, ?, ?) ON CONFLICT (id) DO NOTHING", ref.chatId, userA, userB);
    const room = this.room();
    return room !== null && room.chatId === ref.chatId && room.userIds.includes(userId);
  }

  private room(): (ChatRef & { mirroredId: number }) | null {
    const row = this.sql
      .exec<{ chat_id: string; user_a: string; user_b: string; mirrored_id: number }>(
        "SELECT chat_id, user_a, user_b, mirrored_id FROM room WHERE id = 1",
      )
      .toArray()[0];
    return row ? { chatId: row.chat_id, userIds: [row.user_a, row.user_b], mirroredId: row.mirrored_id } : null;
  }

  /**
   * The sockets that are really there: open, their session not run out, and heard from lately (a frame, or the
   * browser's keep-alive ping, which the runtime answers and timestamps). Any other is closed on the way.
   */
  private liveSockets(except?: WebSocket): WebSocket[] {
    const now = Date.now();
    const live: WebSocket[] = [];
    for (const socket of this.ctx.getWebSockets()) {
      if (socket === except || socket.readyState !== OPEN) continue;
      const attachment = attachmentOf(socket);
      const pinged = this.ctx.getWebSocketAutoResponseTimestamp(socket)?.getTime() ?? 0;
      if (attachment.sessionExpiresAt <= now) closeQuietly(socket, CLOSE_SESSION_EXPIRED, "Session expired");
      else if (Math.max(attachment.seenAt, pinged) < now - SOCKET_SILENCE_MS) closeQuietly(socket, 1001, "No sign of life");
      else live.push(socket);
    }
    return live;
  }

  /** activeUsers: participants with a live socket in a tab in view. Read from the sockets, so it survives hibernation. */
  private activeUserIds(except?: WebSocket): string[] {
    return watching(this.liveSockets(except));
  }

  private broadcastPresence(except?: WebSocket): void {
    const live = this.liveSockets(except);
    const activeUserIds = watching(live);
    const frame = JSON.stringify({ type: "presence", activeUserIds } satisfies ServerEvent);
    for (const socket of live) this.sendFrame(socket, frame);
  }

  private send(socket: WebSocket, event: ServerEvent): void {
    this.sendFrame(socket, JSON.stringify(event));
  }

  private sendFrame(socket: WebSocket, frame: string): void {
    try {
      socket.send(frame);
    } catch {
      // A socket that is closing misses nothing it cannot fetch again when it reconnects.
    }
  }
}

/**
 * Conversations (two users have at most one). D1 holds who talks to whom, about which sites, and the
 * last message for the list; the messages themselves live in the conversation's Durable Object (ChatRoom).
 * See docs/decisions/0017-one-conversation-per-pair.md.
 */
import { and, desc, eq, or, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import { chats, listings, offers, sites } from "#drizzle/schema";
import type { ChatRef, EndedSessions } from "~/durable/chat-room";
import { messagePreview, withoutWebAddresses, type ChatMessage, type Conversation } from "~/domain/chat";
import { BEFORE_ALL, keysetPage, type Cursor } from "~/domain/cursor";
import type { AppContext } from "~/lib/context";
import { olderThan, type Database } from "~/lib/db.server";
import type { Env } from "~/lib/env";
import { newId } from "~/lib/ids";
import { emailToUser } from "./email.server";
import { allow, RATE_LIMITS } from "./rate-limit.server";

const siteA = alias(sites, "site_a");
const siteB = alias(sites, "site_b");

/** Where a conversation is opened from: an offer or trade (either side), or a listing in the market. */
export type ChatOrigin = { offerId: string } | { listingId: string; ownSiteId: string | null };

/** The two parties and their sites, as the origin names them; null when this user may not open it. */
async function partiesOf(db: Database, userId: string, origin: ChatOrigin) {
  if ("offerId" in origin) {
    const offer = await db
      .select({
        senderUserId: offers.senderUserId,
        senderSiteId: offers.senderSiteId,
        receiverUserId: offers.receiverUserId,
        receiverSiteId: offers.receiverSiteId,
      })
      .from(offers)
      .where(eq(offers.id, origin.offerId))
      .get();
    if (!offer) return null;
    if (offer.senderUserId === userId) return { ownSiteId: offer.senderSiteId, otherUserId: offer.receiverUserId, otherSiteId: offer.receiverSiteId };
    if (offer.receiverUserId === userId) return { ownSiteId: offer.receiverSiteId, otherUserId: offer.senderUserId, otherSiteId: offer.senderSiteId };
    return null;
  }
  const listing = await db
    .select({ userId: listings.userId, siteId: listings.siteId })
    .from(listings)
    .where(and(eq(listings.id, origin.listingId), eq(listings.active, true)))
    .get();
  if (!listing) return null;
  return { ownSiteId: origin.ownSiteId, otherUserId: listing.userId, otherSiteId: listing.siteId };
}

export type OpenResult = { ok: true; chatId: string } | { ok: false; reason: "not-found" | "limited" };

/**
 * Opens the conversation between this user and the other party of the origin: the existing one (now about the
 * sites of this origin), or a new one. One statement, so two people opening it at once still share one.
 */
export async function openConversation(context: AppContext, userId: string, origin: ChatOrigin): Promise<OpenResult> {
  const parties = await partiesOf(context.db, userId, origin);
  if (!parties || parties.otherUserId === userId) return { ok: false, reason: "not-found" };
  const userIsA = userId < parties.otherUserId;
  const pair = and(eq(chats.userAId, userIsA ? userId : parties.otherUserId), eq(chats.userBId, userIsA ? parties.otherUserId : userId));
  // The limit is on new conversations: going back to an existing one (from another offer with the same person) is free.
  const existing = await context.db.select({ id: chats.id }).from(chats).where(pair).get();
  if (!existing && !(await allow(context, RATE_LIMITS.chatOpensPerUser, userId))) return { ok: false, reason: "limited" };
  const now = context.now();
  const row = await context.db
    .insert(chats)
    .values({
      id: newId(),
      userAId: userIsA ? userId : parties.otherUserId,
      userBId: userIsA ? parties.otherUserId : userId,
      siteAId: userIsA ? parties.ownSiteId : parties.otherSiteId,
      siteBId: userIsA ? parties.otherSiteId : parties.ownSiteId,
      lastUpdated: now,
      createdAt: now,
    })
    .onConflictDoUpdate({
      target: [chats.userAId, chats.userBId],
      set: { siteAId: sql`coalesce(excluded.site_a_id, ${chats.siteAId})`, siteBId: sql`coalesce(excluded.site_b_id, ${chats.siteBId})` },
    })
    .returning({ id: chats.id })
    .get();
  return row ? { ok: true, chatId: row.id } : { ok: false, reason: "not-found" };
}

const conversationColumns = {
  id: chats.id,
  userAId: chats.userAId,
  userBId: chats.userBId,
  lastMessage: chats.lastMessage,
  lastSenderId: chats.lastSenderId,
  lastUpdated: chats.lastUpdated,
  lastMessageId: chats.lastMessageId,
  userAReadId: chats.userAReadId,
  userBReadId: chats.userBReadId,
  siteAHost: siteA.host,
  siteAVerified: siteA.verified,
  siteAIcon: siteA.icon,
  siteBHost: siteB.host,
  siteBVerified: siteB.verified,
  siteBIcon: siteB.icon,
};

/**
 * How a party is named in a conversation and its emails: by its site's host while the site is verified. A site whose
 * verification was lost (its real owner proved control, or its tag went missing) is said to be unverified, so no one
 * goes on writing, or being emailed, as a host they may not control; without a site, "A site owner".
 */
function partyName(site: { host: string | null; verified: boolean | null }): string {
  if (!site.host) return "A site owner";
  return site.verified ? site.host : `${site.host} (not verified)`;
}

type ConversationRow = Awaited<ReturnType<ReturnType<typeof conversationQuery>["all"]>>[number];

/** A conversation as one participant sees it. */
function asSeenBy(row: ConversationRow, userId: string): Conversation {
  const userIsA = row.userAId === userId;
  return {
    id: row.id,
    otherUserId: userIsA ? row.userBId : row.userAId,
    otherHost: userIsA
      ? partyName({ host: row.siteBHost, verified: row.siteBVerified })
      : partyName({ host: row.siteAHost, verified: row.siteAVerified }),
    otherIcon: userIsA ? row.siteBIcon : row.siteAIcon,
    lastMessage: row.lastMessage ? messagePreview(row.lastMessage) : null,
    lastFromMe: row.lastSenderId === userId,
    lastUpdated: row.lastUpdated,
    lastMessageId: row.lastMessageId,
    unread: row.lastMessageId > (userIsA ? row.userAReadId : row.userBReadId),
  };
}

function conversationQuery(db: Database) {
  return db.select(conversationColumns).from(chats).leftJoin(siteA, eq(siteA.id, chats.siteAId)).leftJoin(siteB, eq(siteB.id, chats.siteBId));
}

/** Conversations per page of the list. */
export const CONVERSATIONS_PER_PAGE = 100;

/**
 * A page of the user's conversations, newest first: those after `after` (the last row of the page before), and the
 * cursor of the next page when there are more.
 */
export async function listConversations(
  db: Database,
  userId: string,
  after: Cursor = BEFORE_ALL.descending,
  limit = CONVERSATIONS_PER_PAGE,
): Promise<{ rows: Conversation[]; next: string | null }> {
  const rows = await conversationQuery(db)
    .where(and(or(eq(chats.userAId, userId), eq(chats.userBId, userId)), olderThan(chats.lastUpdated, chats.id, after)))
    .orderBy(desc(chats.lastUpdated), desc(chats.id))
    .limit(limit + 1)
    .all();
  const { shown, next } = keysetPage(rows, limit, (row) => ({ at: row.lastUpdated, id: row.id }));
  return { rows: shown.map((row) => asSeenBy(row, userId)), next };
}

/** One conversation, for its participants only: anyone else gets null, the same as for one that does not exist. */
export async function conversationFor(db: Database, userId: string, chatId: string): Promise<(Conversation & { ref: ChatRef }) | null> {
  if (chatId.length === 0 || chatId.length > 64) return null;
  const row = await conversationQuery(db)
    .where(and(eq(chats.id, chatId), or(eq(chats.userAId, userId), eq(chats.userBId, userId))))
    .get();
  if (!row) return null;
  return { ...asSeenBy(row, userId), ref: { chatId: row.id, userIds: [row.userAId, row.userBId] } };
}

/** The participant has seen the conversation up to message `id` (a read mark only moves forward). */
export async function markReadUpTo(db: Database, chatId: string, userId: string, id: number): Promise<void> {
  await db
    .update(chats)
    .set({
      userAReadId: sql`CASE WHEN ${chats.userAId} = ${userId} THEN max(${chats.userAReadId}, ${id}) ELSE ${chats.userAReadId} END`,
      userBReadId: sql`CASE WHEN ${chats.userBId} = ${userId} THEN max(${chats.userBReadId}, ${id}) ELSE ${chats.userBReadId} END`,
    })
    .where(
      and(
        eq(chats.id, chatId),
        or(and(eq(chats.userAId, userId), sql`${chats.userAReadId} < ${id}`), and(eq(chats.userBId, userId), sql`${chats.userBReadId} < ${id}`)),
      ),
    );
}

/**
 * Closes the live sockets of a user's ended sessions in every conversation they take part in: one session (signing
 * out), or all but the one that stays (null: all of them). After the answer (`waitUntil`): a trader with hundreds of
 * conversations does not wait for each to be told, and sign-out never fails because of it.
 */
export async function closeChatSockets(context: AppContext, userId: string, which: EndedSessions): Promise<void> {
  const closing = (async () => {
    const rows = await context.db
      .select({ id: chats.id })
      .from(chats)
      .where(or(eq(chats.userAId, userId), eq(chats.userBId, userId)))
      .all();
    await Promise.all(rows.map((row) => chatRoom(context.env, row.id).endSessions(userId, which)));
  })().catch((error: unknown) => console.error("closing chat sockets", error));
  context.ctx.waitUntil(closing);
}

/**
 * Mirrors a conversation's newest message to D1 for the list. It only moves forward (a late mirror of an older
 * message changes nothing), and marks it read for the sender and for everyone who has the conversation open.
 */
export async function mirrorLastMessage(db: Database, chatId: string, message: ChatMessage, readerIds: readonly string[]): Promise<void> {
  const readers = [...new Set([message.senderId, ...readerIds])];
  const readBy = (column: typeof chats.userAId | typeof chats.userBId) =>
    sql`${column} IN (${sql.join(
      readers.map((id) => sql`${id}`),
      sql`, `,
    )})`;
  await db
    .update(chats)
    .set({
      lastMessage: message.text,
      lastSenderId: message.senderId,
      lastUpdated: message.createdAt,
      lastMessageId: message.id,
      userAReadId: sql`CASE WHEN ${readBy(chats.userAId)} THEN ${message.id} ELSE ${chats.userAReadId} END`,
      userBReadId: sql`CASE WHEN ${readBy(chats.userBId)} THEN ${message.id} ELSE ${chats.userBReadId} END`,
    })
    .where(and(eq(chats.id, chatId), sql`${chats.lastMessageId} < ${message.id}`));
}

/** The conversation's Durable Object. */
export function chatRoom(env: Env, chatId: string) {
  return env.CHAT_ROOM.get(env.CHAT_ROOM.idFromName(chatId));
}

export function conversationLink(env: Env, chatId: string): string {
  return new URL(`/mysite/messages?chatId=${encodeURIComponent(chatId)}`, env.APP_URL).toString();
}

/**
 * Queues the one email that tells an away participant about a burst of messages: from whom, how many, the latest
 * of them, and a link straight to the conversation. Once per burst, even if the alarm that sends it runs twice.
 */
export async function queueMessagesEmail(
  db: Database,
  env: Env,
  burst: { chatId: string; recipientId: string; senderId: string; count: number; latest: ChatMessage },
  now: number,
): Promise<void> {
  const chat = await db
    .select({
      userAId: chats.userAId,
      siteAHost: siteA.host,
      siteAVerified: siteA.verified,
      siteBHost: siteB.host,
      siteBVerified: siteB.verified,
    })
    .from(chats)
    .leftJoin(siteA, eq(siteA.id, chats.siteAId))
    .leftJoin(siteB, eq(siteB.id, chats.siteBId))
    .where(eq(chats.id, burst.chatId))
    .get();
  if (!chat) return;
  const from =
    chat.userAId === burst.senderId
      ? partyName({ host: chat.siteAHost, verified: chat.siteAVerified })
      : partyName({ host: chat.siteBHost, verified: chat.siteBVerified });
  const what = burst.count === 1 ? "a message" : `${burst.count} messages`;
  await emailToUser(
    db,
    {
      userId: burst.recipientId,
      subject: `${from} sent you ${what}`,
      text: [
        `${from} sent you ${what} on Backlink Market.`,
        "",
        `"${messagePreview(withoutWebAddresses(burst.latest.text), 280)}"`,
        "",
        `Read and answer: ${conversationLink(env, burst.chatId)}`,
      ].join("\n"),
      kind: "chat-messages",
      dedupeKey: `chat:${burst.chatId}:${burst.recipientId}:${burst.latest.id}`,
    },
    now,
  );
}

import { env, evictDurableObject, runDurableObjectAlarm, runInDurableObject, SELF } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import type { ChatRoom } from "~/durable/chat-room";
import {
  DAILY_LIMIT_MESSAGE,
  EMAIL_COLLECT_MS,
  EMAIL_INTERVAL_MS,
  EMAIL_RETRY_MS,
  MESSAGES_PER_DAY,
  FRAMES_PER_MESSAGE_ALLOWED,
  PRESENCE_SWEEP_MS,
  SOCKET_SILENCE_MS,
} from "~/durable/chat-room";
import { SOCKET_TRUST_MS, type ClientEvent, type ServerEvent } from "~/domain/chat";
import { messages } from "~/domain/messages";
import {
  act,
  BASE,
  envWithFailingTable,
  get,
  listSite,
  newAddress,
  PASSWORD,
  post,
  propose,
  read,
  sessionCookieOf,
  signUp,
  trader,
  uniqueHost,
  windowStart,
} from "./helpers";

const MESSAGES_PAGE = "/mysite/messages";

/** Two traders: A proposed to B's listing, so they share an offer. */
async function pair() {
  const a = await trader();
  const b = await trader();
  const bHost = uniqueHost("partner");
  const { listingId } = await listSite(b.userId, { host: bHost });
  expect((await propose(a.cookie, listingId)).status).toBe(302);
  const offer = await env.DB.prepare("SELECT id FROM offers WHERE listing_id = ?").bind(listingId).first<{ id: string }>();
  return { a, b, bHost, listingId, offerId: offer!.id };
}

async function openChat(cookie: string, fields: Record<string, string>) {
  const response = await post(MESSAGES_PAGE, { intent: "open", returnTo: "/mysite/offers", ...fields }, { cookie });
  expect(response.status).toBe(302);
  return response.headers.get("Location") ?? "";
}

async function chatOf(cookie: string, offerId: string): Promise<string> {
  const location = await openChat(cookie, { offer: offerId });
  const chatId = new URL(location, BASE).searchParams.get("chatId");
  if (!chatId) throw new Error(`no conversation opened: ${location}`);
  return chatId;
}

/** Two traders who share an offer, and the conversation A opened from it. */
async function pairInChat() {
  const traders = await pair();
  return { ...traders, chatId: await chatOf(traders.a.cookie, traders.offerId) };
}

function sendMessage(cookie: string, chatId: string, text: string, clientId?: string) {
  return post(`${MESSAGES_PAGE}?chatId=${chatId}`, { intent: "send", text, ...(clientId ? { clientId } : {}) }, { cookie });
}

/** The conversation itself on a page: its log of messages (the list beside it repeats the last one). */
function logOf(page: string): string {
  return page.slice(page.indexOf('role="log"'), page.indexOf('class="chat-compose"'));
}

const room = (chatId: string) => env.CHAT_ROOM.get(env.CHAT_ROOM.idFromName(chatId));

function upgrade(chatId: string, cookie: string | null, origin: string | null = BASE, query = "") {
  return SELF.fetch(`${BASE}/chats/${chatId}/socket${query}`, {
    headers: { Upgrade: "websocket", "CF-Connecting-IP": newAddress(), ...(origin ? { Origin: origin } : {}), ...(cookie ? { Cookie: cookie } : {}) },
  });
}

/** The close code and reason of an accepted upgrade's socket, which sends nothing before it. */
async function closedWith(response: Response): Promise<{ code: number; reason: string }> {
  const socket = response.webSocket;
  if (response.status !== 101 || !socket) throw new Error(`upgrade not accepted: ${response.status}`);
  const closed = new Promise<{ code: number; reason: string }>((resolve, reject) => {
    socket.addEventListener("close", (event) => resolve({ code: event.code, reason: event.reason }));
    socket.addEventListener("message", () => reject(new Error("a signed-out socket sent a message")));
  });
  socket.accept();
  return closed;
}

interface TestSocket {
  socket: WebSocket;
  events: ServerEvent[];
  send(event: ClientEvent): void;
  /** Waits until `count` events of this type have arrived, and returns them. */
  received<T extends ServerEvent["type"]>(type: T, count: number): Promise<Extract<ServerEvent, { type: T }>[]>;
}

/** A socket as a page opens it; `?hidden` from a tab out of view. */
async function connect(chatId: string, cookie: string, query = ""): Promise<TestSocket> {
  const response = await upgrade(chatId, cookie, BASE, query);
  const socket = response.webSocket;
  if (response.status !== 101 || !socket) throw new Error(`upgrade refused: ${response.status} ${await response.text()}`);
  socket.accept();
  const events: ServerEvent[] = [];
  socket.addEventListener("message", (message) => {
    events.push(JSON.parse(message.data as string) as ServerEvent);
  });
  const ofType = <T extends ServerEvent["type"]>(type: T) =>
    events.filter((event): event is Extract<ServerEvent, { type: T }> => event.type === type);
  return {
    socket,
    events,
    send: (event) => socket.send(JSON.stringify(event)),
    async received(type, count) {
      for (let waited = 0; ofType(type).length < count; waited += 10) {
        if (waited > 5000) throw new Error(`waited for ${count} ${type} events, have ${ofType(type).length}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return ofType(type);
    },
  };
}

async function outboxFor(userId: string) {
  const { results } = await env.DB.prepare(
    "SELECT subject, text_body AS text, kind FROM email_outbox WHERE to_address = (SELECT email FROM users WHERE id = ?) AND kind = 'chat-messages' ORDER BY created_at",
  )
    .bind(userId)
    .all<{ subject: string; text: string; kind: string }>();
  return results;
}

/** The conversation's last message id in D1, and how far this participant has read it. */
function readMarksOf(userId: string, chatId: string) {
  return env.DB.prepare(
    "SELECT last_message_id AS last, CASE WHEN user_a_id = ? THEN user_a_read_id ELSE user_b_read_id END AS read FROM chats WHERE id = ?",
  )
    .bind(userId, chatId)
    .first<{ last: number; read: number }>();
}

/** Holds the conversation object's clock at `at` (the object is created if it is not running). */
async function holdClock(chatId: string, at: number) {
  await runInDurableObject(room(chatId), (instance: ChatRoom) => {
    instance.now = () => at;
  });
}

describe("opening a conversation", () => {
  it("from an offer, a trade, a profile or a listing, two users share one conversation", async () => {
    const { a, b, bHost, listingId, offerId } = await pair();
    const first = await chatOf(a.cookie, offerId);
    expect(await chatOf(b.cookie, offerId)).toBe(first);
    expect(new URL(await openChat(a.cookie, { listing: listingId }), BASE).searchParams.get("chatId")).toBe(first);
    const rows = await env.DB.prepare("SELECT count(*) AS n FROM chats WHERE (user_a_id = ? AND user_b_id = ?) OR (user_a_id = ? AND user_b_id = ?)")
      .bind(a.userId, b.userId, b.userId, a.userId)
      .first<{ n: number }>();
    expect(rows!.n).toBe(1);

    const page = await read(await get(`${MESSAGES_PAGE}?chatId=${first}`, { cookie: a.cookie }));
    expect(page).toContain(bHost);
    expect(page).toContain("No messages yet. Say hello to");
  });

  it("from a listing, only from a verified site: an unverified one (any host) is sent to verify first", async () => {
    const stranger = await signUp(undefined, uniqueHost("famous-brand"));
    const b = await trader();
    const { listingId } = await listSite(b.userId, { host: uniqueHost("listed") });
    // From the market (its panel, open, would say so anyway): the notice says why nothing opened.
    const location = await openChat(stranger.cookie, { listing: listingId, returnTo: "/market" });
    expect(location).toBe("/market?notice=chat-verify");
    expect(await read(await get(location, { cookie: stranger.cookie }))).toContain(messages.verifyBanner);
    const chats = await env.DB.prepare("SELECT count(*) AS n FROM chats WHERE user_a_id = ? OR user_b_id = ?")
      .bind(stranger.userId, stranger.userId)
      .first();
    expect(chats).toEqual({ n: 0 });

    // An account without a site (as one signed up with Google or GitHub is, before its first) has none to send from.
    const siteless = await signUp();
    await env.DB.prepare("DELETE FROM sites WHERE user_id = ?").bind(siteless.userId).run();
    expect(await openChat(siteless.cookie, { listing: listingId, returnTo: "/market" })).toBe("/market?notice=chat-verify");
    const sitelessChats = await env.DB.prepare("SELECT count(*) AS n FROM chats WHERE user_a_id = ? OR user_b_id = ?")
      .bind(siteless.userId, siteless.userId)
      .first();
    expect(sitelessChats).toEqual({ n: 0 });
  });

  it("from a listing, the conversation is about the site the page showed, even after another tab switched sites", async () => {
    const a = await trader();
    const second = await listSite(a.userId, { host: uniqueHost("second"), verified: false });
    const b = await trader();
    const { listingId } = await listSite(b.userId, { host: uniqueHost("listed") });
    // The market's panel carries the site it was shown for.
    expect(await read(await get(`/market?post=${listingId}`, { cookie: a.cookie }))).toContain(`name="siteId" value="${a.siteId}"`);
    // Another tab switches to the (unverified) second site; the panel shown before still sends from the first.
    expect((await post("/sites/active", { siteId: second.siteId }, { cookie: a.cookie })).status).toBe(302);
    const location = await openChat(a.cookie, { listing: listingId, siteId: a.siteId, returnTo: "/market" });
    expect(new URL(location, BASE).searchParams.get("chatId")).toBeTruthy();
    const chat = await env.DB.prepare("SELECT site_a_id, site_b_id FROM chats WHERE user_a_id = ? OR user_b_id = ?").bind(a.userId, a.userId).first();
    expect(Object.values(chat!)).toContain(a.siteId);
    expect(Object.values(chat!)).not.toContain(second.siteId);
  });

  it("60 new conversations an hour: past them, going back to an existing one still works; a new one says so", async () => {
    const { a, offerId, listingId } = await pairInChat();
    // This hour's (and, should the test cross into it, the next hour's) 60 new conversations are used up.
    const hour = windowStart(60 * 60_000);
    for (const start of [hour, hour + 60 * 60_000]) {
      await env.DB.prepare("INSERT INTO rate_limits (key, window_start, count) VALUES (?, ?, 60) ON CONFLICT DO UPDATE SET count = 60")
        .bind(`chat-open:user:${a.userId}`, start)
        .run();
    }
    expect(new URL(await openChat(a.cookie, { offer: offerId }), BASE).searchParams.get("chatId")).toBeTruthy();
    expect(new URL(await openChat(a.cookie, { listing: listingId }), BASE).searchParams.get("chatId")).toBeTruthy();
    const c = await trader();
    const other = await listSite(c.userId, { host: uniqueHost("new-partner") });
    expect(await openChat(a.cookie, { listing: other.listingId, returnTo: "/market" })).toBe("/market?notice=chat-limited");
  });

  it("the offer, the trade, the profile and the market panel each carry the form that opens it", async () => {
    const { a, b, bHost, listingId, offerId } = await pair();
    const opens = (page: string, name: string, value: string) =>
      page.includes(`action="/mysite/messages"`) && page.includes(`name="intent" value="open"`) && page.includes(`name="${name}" value="${value}"`);
    const offer = await read(await get(`/mysite/offers?offer=${offerId}`, { cookie: a.cookie }));
    expect(opens(offer, "offer", offerId)).toBe(true);
    expect(offer).toContain(`Message ${bHost}`);
    expect(opens(await read(await get(`/mysite/offers?offer=${offerId}&view=profile`, { cookie: a.cookie })), "offer", offerId)).toBe(true);
    expect((await act(b.cookie, offerId, [["intent", "accept"]])).status).toBe(302);
    expect(opens(await read(await get(`/mysite/offers?offer=${offerId}`, { cookie: b.cookie })), "offer", offerId)).toBe(true);
    expect(opens(await read(await get(`/market?post=${listingId}`, { cookie: a.cookie })), "listing", listingId)).toBe(true);
  });

  it("the list starts empty with the specified text, and shows each conversation newest first", async () => {
    const newcomer = await signUp();
    expect(await read(await get(MESSAGES_PAGE, { cookie: newcomer.cookie }))).toContain(
      "You do not have any messages yet start a chat through offers or trades.",
    );

    const a = await trader();
    const partners = [];
    for (const name of ["older", "newer"]) {
      const b = await trader();
      const host = uniqueHost(name);
      const { listingId } = await listSite(b.userId, { host });
      const chatId = new URL(await openChat(a.cookie, { listing: listingId }), BASE).searchParams.get("chatId")!;
      partners.push({ host, chatId });
    }
    await sendMessage(a.cookie, partners[1]!.chatId, "Second conversation");
    await sendMessage(a.cookie, partners[0]!.chatId, "Written last, so listed first");
    const page = await read(await get(MESSAGES_PAGE, { cookie: a.cookie }));
    expect(page.indexOf(partners[0]!.host)).toBeLessThan(page.indexOf(partners[1]!.host));
    expect(page).toContain("You: Written last, so listed first");
  });

  it("a failure says so on the page it came from, and nobody chats with an offer that is not theirs", async () => {
    const { offerId } = await pair();
    const stranger = await trader();
    const location = await openChat(stranger.cookie, { offer: offerId, returnTo: "/mysite/offers" });
    expect(location).toBe("/mysite/offers?notice=chat-failed");
    expect(await read(await get(location, { cookie: stranger.cookie }))).toContain("Could not open chat. Please try again.");
    expect(await openChat(stranger.cookie, { listing: "no-such-listing", returnTo: "https://evil.example/" })).toBe(
      `${MESSAGES_PAGE}?notice=chat-failed`,
    );
    const { results } = await env.DB.prepare("SELECT id FROM chats WHERE user_a_id = ? OR user_b_id = ?")
      .bind(stranger.userId, stranger.userId)
      .all();
    expect(results).toHaveLength(0);
  });

  it("a return address that a browser would read as another site comes back to the product", async () => {
    const stranger = await trader();
    expect(await openChat(stranger.cookie, { offer: "no-such-offer", returnTo: "/..//evil.example/x" })).toBe(`${MESSAGES_PAGE}?notice=chat-failed`);
    expect(await openChat(stranger.cookie, { offer: "", returnTo: "/mysite/offers" })).toBe("/mysite/offers?notice=chat-failed");
  });

  it("nobody opens a conversation with their own listing", async () => {
    const owner = await trader();
    const { listingId } = await listSite(owner.userId, { host: uniqueHost("own") });
    expect(await openChat(owner.cookie, { listing: listingId, returnTo: `/market?post=${listingId}` })).toBe(
      `/market?post=${listingId}&notice=chat-failed`,
    );
  });
});

describe("the list of conversations", () => {
  it("pages past the newest hundred: every conversation is reachable from the list, each once", async () => {
    const me = await signUp();
    // 101 other owners, each with a conversation with me (one per pair), made in the database: the setup, not the subject.
    const start = Date.now() - 1_000_000;
    const tag = crypto.randomUUID().slice(0, 8);
    await env.DB.batch(
      Array.from({ length: 101 }, (_, index) => [
        env.DB.prepare("INSERT INTO users (id, email) VALUES (?, ?)").bind(`u-${tag}-${index}`, `u-${tag}-${index}@example.com`),
        env.DB.prepare("INSERT INTO chats (id, user_a_id, user_b_id, last_message, last_sender_id, last_updated) VALUES (?, ?, ?, ?, ?, ?)").bind(
          `c-${tag}-${index}`,
          me.userId,
          `u-${tag}-${index}`,
          `Message number ${index}`,
          `u-${tag}-${index}`,
          // Two share each time: the page's cursor breaks ties by id.
          start + Math.floor(index / 2) * 1000,
        ),
      ]).flat(),
    );
    const idsOn = (page: string) => [...page.matchAll(/chatId=(c-[\w-]+)/g)].map((match) => match[1]!);
    const first = await read(await get(MESSAGES_PAGE, { cookie: me.cookie }));
    const firstIds = [...new Set(idsOn(first))];
    expect(firstIds).toHaveLength(100);
    expect(firstIds[0]).toBe(`c-${tag}-100`);
    expect(first).not.toContain("Newest conversations");
    const older = /href="(\/mysite\/messages\?conversations=[^"]+)">Older conversations</.exec(first);
    expect(older).not.toBeNull();
    const second = await read(await get(older![1]!.replace(/&amp;/g, "&"), { cookie: me.cookie }));
    const secondIds = [...new Set(idsOn(second))];
    expect(secondIds).toEqual([`c-${tag}-0`]);
    expect(second).toContain("Message number 0");
    expect(second).toContain(">Newest conversations<");
    expect(second).not.toContain("Older conversations");
    // A row of the later page opens its conversation on that page of the list.
    expect(second).toContain(`href="/mysite/messages?chatId=c-${tag}-0&amp;conversations=`);
    // A malformed page cursor is the first page.
    expect(idsOn(await read(await get(`${MESSAGES_PAGE}?conversations=nope`, { cookie: me.cookie })))[0]).toBe(`c-${tag}-100`);
  });
});

describe("a conversation without JavaScript", () => {
  it("a message posted from a later page of the list comes back to that page (a malformed cursor: the first)", async () => {
    const { a, chatId } = await pairInChat();
    const later = `${MESSAGES_PAGE}?chatId=${chatId}&conversations=1763700000123_c-x`;
    const fromLaterPage = await post(later, { intent: "send", text: "Sent from the second page." }, { cookie: a.cookie });
    expect(fromLaterPage.headers.get("Location")).toBe(`${later}#latest`);
    const fromBadCursor = await post(
      `${MESSAGES_PAGE}?chatId=${chatId}&conversations=nope`,
      { intent: "send", text: "And another." },
      { cookie: a.cookie },
    );
    expect(fromBadCursor.headers.get("Location")).toBe(`${MESSAGES_PAGE}?chatId=${chatId}#latest`);
  });

  it("a posted message is on the page after the redirect, mirrored to the list, and unread for the other side until opened", async () => {
    const { a, b, chatId } = await pairInChat();
    const sent = await sendMessage(a.cookie, chatId, "  Hello! Which anchor text would suit you?  ");
    expect(sent.status).toBe(302);
    expect(sent.headers.get("Location")).toBe(`${MESSAGES_PAGE}?chatId=${chatId}#latest`);

    const chat = await env.DB.prepare(
      "SELECT last_message, last_sender_id, last_message_id, user_a_read_id, user_b_read_id, user_a_id FROM chats WHERE id = ?",
    )
      .bind(chatId)
      .first<{
        last_message: string;
        last_sender_id: string;
        last_message_id: number;
        user_a_read_id: number;
        user_b_read_id: number;
        user_a_id: string;
      }>();
    expect(chat).toMatchObject({ last_message: "Hello! Which anchor text would suit you?", last_sender_id: a.userId, last_message_id: 1 });

    const list = await read(await get(MESSAGES_PAGE, { cookie: b.cookie }));
    expect(list).toContain("Hello! Which anchor text would suit you?");
    expect(list).toContain("Unread");
    const opened = await read(await get(`${MESSAGES_PAGE}?chatId=${chatId}`, { cookie: b.cookie }));
    expect(opened).toContain("Hello! Which anchor text would suit you?");
    expect(await read(await get(MESSAGES_PAGE, { cookie: b.cookie }))).not.toContain("Unread");

    expect((await sendMessage(b.cookie, chatId, "Anything about balcony gardening works.")).status).toBe(302);
    const reloaded = logOf(await read(await get(`${MESSAGES_PAGE}?chatId=${chatId}`, { cookie: a.cookie })));
    expect(reloaded.indexOf("Which anchor text")).toBeLessThan(reloaded.indexOf("Anything about balcony gardening works."));
  });

  it("empty and over-long messages are not sent, and what was typed stays in the box", async () => {
    const { a, chatId } = await pairInChat();
    const empty = await sendMessage(a.cookie, chatId, " \n\t ");
    expect(empty.status).toBe(400);
    expect(await read(empty)).toContain("Write a message before sending.");

    const tooLong = await sendMessage(a.cookie, chatId, `${"x".repeat(4001)}`);
    expect(tooLong.status).toBe(400);
    const page = await read(tooLong);
    expect(page).toContain("A message can be at most 4,000 characters.");
    expect(page).toContain("x".repeat(4001));
    // A malformed message id is only not used: the message goes.
    const oddId = await sendMessage(a.cookie, chatId, "Sent with an odd id", "x".repeat(65));
    expect(oddId.status).toBe(302);

    // 4,000 characters after trimming is allowed.
    expect((await sendMessage(a.cookie, chatId, `  ${"y".repeat(4000)}  `)).status).toBe(302);
    const stored = await runInDurableObject(room(chatId), (_instance: ChatRoom, state) =>
      state.storage.sql.exec<{ n: number; length: number }>("SELECT count(*) AS n, max(length(text)) AS length FROM messages").one(),
    );
    expect(stored).toEqual({ n: 2, length: 4000 });
  });

  it("the same form sent twice stores one message", async () => {
    const { a, chatId } = await pairInChat();
    const clientId = crypto.randomUUID();
    expect((await sendMessage(a.cookie, chatId, "Only once, please", clientId)).status).toBe(302);
    expect((await sendMessage(a.cookie, chatId, "Only once, please", clientId)).status).toBe(302);
    const page = logOf(await read(await get(`${MESSAGES_PAGE}?chatId=${chatId}`, { cookie: a.cookie })));
    expect(page.split("Only once, please")).toHaveLength(2);
  });

  it("the form sent again with other text (Back, an edit, Send) stores the new text too", async () => {
    const { a, chatId } = await pairInChat();
    const clientId = crypto.randomUUID();
    expect((await sendMessage(a.cookie, chatId, "First wording", clientId)).status).toBe(302);
    expect((await sendMessage(a.cookie, chatId, "Second wording", clientId)).status).toBe(302);
    expect((await sendMessage(a.cookie, chatId, "Second wording", clientId)).status).toBe(302);
    const page = logOf(await read(await get(`${MESSAGES_PAGE}?chatId=${chatId}`, { cookie: a.cookie })));
    expect(page.split("First wording")).toHaveLength(2);
    expect(page.split("Second wording")).toHaveLength(2);
  });

  it("anyone but the two participants gets 404, as for a conversation that does not exist", async () => {
    const { a, chatId } = await pairInChat();
    await sendMessage(a.cookie, chatId, "Private between us");
    const stranger = await trader();
    const page = await get(`${MESSAGES_PAGE}?chatId=${chatId}`, { cookie: stranger.cookie });
    expect(page.status).toBe(404);
    const html = await read(page);
    expect(html).toContain("This conversation is not available.");
    expect(html).not.toContain("Private between us");
    expect((await get(`${MESSAGES_PAGE}?chatId=no-such-chat`, { cookie: stranger.cookie })).status).toBe(404);
    expect((await sendMessage(stranger.cookie, chatId, "Let me in")).status).toBe(404);
    expect(await read(await get(`${MESSAGES_PAGE}?chatId=${chatId}`, { cookie: a.cookie }))).not.toContain("Let me in");
  });

  it("the sender is limited to 30 messages a minute, with a message saying so", async () => {
    const { a, chatId } = await pairInChat();
    const start = Date.now();
    await holdClock(chatId, start);
    for (let i = 0; i < 30; i++) expect((await sendMessage(a.cookie, chatId, `Message ${i}`)).status).toBe(302);
    const refused = await sendMessage(a.cookie, chatId, "One too many");
    expect(refused.status).toBe(429);
    expect(await read(refused)).toContain("You can send at most 30 messages a minute. Please wait a moment.");
    await holdClock(chatId, start + 61_000);
    expect((await sendMessage(a.cookie, chatId, "A minute later")).status).toBe(302);
  });
});

describe("the conversation's live socket", () => {
  it("two sockets receive every message, in one order, while both sides send at once", async () => {
    const { a, b, chatId } = await pairInChat();
    const aSocket = await connect(chatId, a.cookie);
    const bSocket = await connect(chatId, b.cookie);
    for (let i = 0; i < 20; i++) {
      aSocket.send({ type: "send", clientId: `a-message-${i}`, text: `from A ${i}` });
      bSocket.send({ type: "send", clientId: `b-message-${i}`, text: `from B ${i}` });
    }
    const seenByA = await aSocket.received("message", 40);
    const seenByB = await bSocket.received("message", 40);
    const order = (events: typeof seenByA) => events.map((event) => `${event.message.id}:${event.message.text}`);
    expect(order(seenByA)).toEqual(order(seenByB));
    expect(seenByA.map((event) => event.message.id)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    // Each sender's messages keep the order they were sent in.
    const fromA = seenByA.filter((event) => event.message.senderId === a.userId).map((event) => event.message.text);
    expect(fromA).toEqual(Array.from({ length: 20 }, (_, i) => `from A ${i}`));

    // The list in D1 catches up with the last message.
    for (let waited = 0; ; waited += 20) {
      const chat = await env.DB.prepare("SELECT last_message_id FROM chats WHERE id = ?").bind(chatId).first<{ last_message_id: number }>();
      if (chat!.last_message_id === 40) break;
      if (waited > 3000) throw new Error(`mirror stuck at ${chat!.last_message_id}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    aSocket.socket.close();
    bSocket.socket.close();
  });

  it("presence: opening adds a participant to the active users and closing removes them", async () => {
    const { a, b, chatId } = await pairInChat();
    const aSocket = await connect(chatId, a.cookie);
    expect((await aSocket.received("presence", 1)).at(-1)!.activeUserIds).toEqual([a.userId]);
    const bSocket = await connect(chatId, b.cookie);
    expect((await aSocket.received("presence", 2)).at(-1)!.activeUserIds).toEqual([a.userId, b.userId].sort());
    expect(await read(await get(`${MESSAGES_PAGE}?chatId=${chatId}`, { cookie: a.cookie }))).toContain("Active now");
    bSocket.socket.close(1000, "bye");
    expect((await aSocket.received("presence", 3)).at(-1)!.activeUserIds).toEqual([a.userId]);
    aSocket.socket.close();
  });

  it("messages survive eviction, sockets stay, and a reconnect fetches exactly what it missed", async () => {
    const { a, b, chatId } = await pairInChat();
    const aSocket = await connect(chatId, a.cookie);
    const bSocket = await connect(chatId, b.cookie);
    for (let i = 1; i <= 3; i++) aSocket.send({ type: "send", clientId: `before-${i}-eviction`, text: `before ${i}` });
    await bSocket.received("message", 3);

    await evictDurableObject(room(chatId));
    // After eviction the object rebuilds its sockets (and who is active) from hibernation.
    aSocket.send({ type: "send", clientId: "after-the-eviction", text: "after eviction" });
    expect((await bSocket.received("message", 4)).at(-1)!.message).toMatchObject({ id: 4, text: "after eviction", senderId: a.userId });
    expect((await connect(chatId, a.cookie).then((third) => third.received("presence", 1))).at(-1)!.activeUserIds).toEqual(
      [a.userId, b.userId].sort(),
    );

    const lastSeen = 4;
    bSocket.socket.close(1000, "going offline");
    await aSocket.received("presence", 3);
    await sendMessage(a.cookie, chatId, "while you were away 1");
    await sendMessage(a.cookie, chatId, "while you were away 2");

    const back = await connect(chatId, b.cookie);
    back.send({ type: "sync", after: lastSeen });
    const [history] = await back.received("history", 1);
    expect(history!.messages.map((message) => message.text)).toEqual(["while you were away 1", "while you were away 2"]);
    expect(history!.more).toBe(false);

    // A retry of a message already stored (its echo was lost in the drop) is not stored again.
    back.send({ type: "send", clientId: "b-retry-0001", text: "sent once" });
    back.send({ type: "send", clientId: "b-retry-0001", text: "sent once" });
    await back.received("message", 2);
    const count = await runInDurableObject(room(chatId), (_instance: ChatRoom, state) =>
      state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM messages WHERE text = 'sent once'").one(),
    );
    expect(count.n).toBe(1);
    aSocket.socket.close();
    back.socket.close();
  });

  it("refuses a stranger and another site's page, and closes the socket of an expired or missing session with 4401", async () => {
    const { a, chatId } = await pairInChat();
    const stranger = await trader();
    expect((await upgrade(chatId, stranger.cookie)).status).toBe(404);
    expect((await upgrade("no-such-conversation", a.cookie)).status).toBe(404);
    expect((await upgrade(chatId, a.cookie, "https://evil.example")).status).toBe(403);
    expect((await upgrade(chatId, a.cookie, null)).status).toBe(403);
    expect(await closedWith(await upgrade(chatId, null))).toEqual({ code: 4401, reason: "Log in to open this conversation." });
    const plain = await SELF.fetch(`${BASE}/chats/${chatId}/socket`, { headers: { Cookie: a.cookie, Origin: BASE } });
    expect(plain.status).toBe(426);

    await env.DB.prepare("UPDATE sessions SET expires_at = ? WHERE user_id = ?")
      .bind(Date.now() - 1000, a.userId)
      .run();
    // The browser cannot read a refused upgrade's status: the socket opens and closes with the code it stops on.
    expect(await closedWith(await upgrade(chatId, a.cookie))).toEqual({ code: 4401, reason: "Log in to open this conversation." });
  });

  it("opening a socket does not move the session's idle end, which only a page (whose cookie moves with it) does", async () => {
    const { a, chatId } = await pairInChat();
    const soon = Date.now() + 10 * 24 * 3600_000; // within the days where a page would slide it
    await env.DB.prepare("UPDATE sessions SET expires_at = ? WHERE user_id = ?").bind(soon, a.userId).run();
    const socket = (await upgrade(chatId, a.cookie)).webSocket!;
    socket.accept();
    socket.close();
    expect(await env.DB.prepare("SELECT expires_at FROM sessions WHERE user_id = ?").bind(a.userId).first()).toEqual({ expires_at: soon });
    // A page does slide it, and sends the cookie that says so.
    const page = await get(MESSAGES_PAGE, { cookie: a.cookie });
    expect(page.headers.get("Set-Cookie")).toBeTruthy();
    const slid = await env.DB.prepare("SELECT expires_at FROM sessions WHERE user_id = ?").bind(a.userId).first<{ expires_at: number }>();
    expect(slid!.expires_at).toBeGreaterThan(soon);
  });

  it("the socket refuses an empty message, one over 4,000 characters and the 31st in a minute", async () => {
    const { a, chatId } = await pairInChat();
    await holdClock(chatId, Date.now());
    const socket = await connect(chatId, a.cookie);
    socket.send({ type: "send", clientId: "empty-message", text: "   " });
    socket.send({ type: "send", clientId: "long-message", text: "z".repeat(4001) });
    const refusals = await socket.received("refused", 2);
    expect(refusals.map((event) => [event.clientId, event.reason])).toEqual([
      ["empty-message", "empty"],
      ["long-message", "too-long"],
    ]);
    for (let i = 0; i < 31; i++) socket.send({ type: "send", clientId: `burst-message-${i}`, text: `burst ${i}` });
    const [, , limited] = await socket.received("refused", 3);
    expect(limited).toMatchObject({
      clientId: "burst-message-30",
      reason: "rate-limited",
      message: "You can send at most 30 messages a minute. Please wait a moment.",
    });
    expect(await socket.received("message", 30)).toHaveLength(30);
    socket.socket.close();
  });
});

describe("a page whose socket cannot open", () => {
  it("reads the messages after the last one shown, as the socket's history, only in its own conversations", async () => {
    const { a, b, chatId } = await pairInChat();
    for (const text of ["First", "Second", "Third"]) expect((await sendMessage(b.cookie, chatId, text)).status).toBe(302);
    const missed = (after: number, cookie: string | null = a.cookie) => get(`/chats/${chatId}/missed?after=${after}`, { cookie });
    const readMark = async () =>
      (await env.DB.prepare("SELECT CASE WHEN user_a_id = ? THEN user_a_read_id ELSE user_b_read_id END AS id FROM chats WHERE id = ?")
        .bind(a.userId, chatId)
        .first<{ id: number }>())!.id;
    const unreadUpTo = await readMark();
    const all = await missed(0);
    expect(all.status).toBe(200);
    expect(all.headers.get("Cache-Control")).toBe("no-store");
    const history = (await all.json()) as Extract<ServerEvent, { type: "history" }>;
    expect(history).toMatchObject({ type: "history", more: false });
    expect(history.messages.map((message) => message.text)).toEqual(["First", "Second", "Third"]);
    const after = (await (await missed(history.messages[1]!.id)).json()) as typeof history;
    expect(after.messages.map((message) => message.text)).toEqual(["Third"]);
    expect(((await (await missed(history.messages[2]!.id)).json()) as typeof history).messages).toEqual([]);
    // Read there, the conversation is read in A's list.
    expect(unreadUpTo).toBeLessThan(history.messages[2]!.id);
    await expect.poll(readMark).toBe(history.messages[2]!.id);

    // Not a participant, not signed in, not a message id, not a read: refused, and nothing of it shown.
    const stranger = await trader();
    const strangers = await missed(0, stranger.cookie);
    expect(strangers.status).toBe(404);
    expect(await strangers.text()).not.toContain("First");
    expect((await missed(0, null)).status).toBe(401);
    expect((await get(`/chats/${chatId}/missed?after=x`, { cookie: a.cookie })).status).toBe(400);
    expect((await get(`/chats/${chatId}/missed`, { cookie: a.cookie })).status).toBe(400);
    expect((await post(`/chats/${chatId}/missed?after=0`, {}, { cookie: a.cookie })).status).toBe(405);
  });
});

describe("a day's messages", () => {
  it("a participant may send 500 messages a day to one conversation; the next is refused, the other side may still write", async () => {
    const { a, b, chatId } = await pairInChat();
    const now = Date.now();
    // 500 of A's messages over the last day (an hour apart from the minute's limit).
    await runInDurableObject(room(chatId), (_instance: ChatRoom, state) => {
      for (let i = 0; i < MESSAGES_PER_DAY; i += 1) {
        state.storage.sql.exec(
          "INSERT INTO messages (sender_id, text, created_at) VALUES (?, ?, ?)",
          a.userId,
          `old ${i}`,
          now - 23 * 60 * 60_000 + i,
        );
      }
    });
    const refused = await sendMessage(a.cookie, chatId, "One more");
    expect(refused.status).toBe(429);
    expect(await read(refused)).toContain(DAILY_LIMIT_MESSAGE);
    expect((await sendMessage(b.cookie, chatId, "I can still answer")).status).toBe(302);
    // A day after the first of them, A may write again.
    await runInDurableObject(room(chatId), (_instance: ChatRoom, state) => {
      state.storage.sql.exec("UPDATE messages SET created_at = created_at - 2 * 60 * 60 * 1000 WHERE sender_id = ?", a.userId);
    });
    expect((await sendMessage(a.cookie, chatId, "Back again")).status).toBe(302);
  });
});

describe("a flood of frames", () => {
  it("closes the socket a participant floods with frames (120 a minute, over all their sockets), and the other side's stays", async () => {
    const { a, b, chatId } = await pairInChat();
    const flooder = await connect(chatId, a.cookie);
    const other = await connect(chatId, b.cookie);
    const closed = new Promise<number>((resolve) => flooder.socket.addEventListener("close", (event) => resolve(event.code)));
    const allowed = FRAMES_PER_MESSAGE_ALLOWED * 30;
    for (let i = 0; i < allowed + 1; i++) flooder.send({ type: "sync", after: 0 });
    expect(await closed).toBe(1008);
    expect(await flooder.received("history", allowed)).toHaveLength(allowed);
    other.send({ type: "send", clientId: "after-the-flood", text: "Still here" });
    expect((await other.received("message", 1))[0]).toMatchObject({ message: { text: "Still here" } });
    other.socket.close();
  });
});

describe("email when the other side is away", () => {
  it("one email covers a burst, at most one per 15 minutes, linking straight to the conversation", async () => {
    const { a, b, chatId } = await pairInChat();
    // An hour ahead of the real clock, so the alarm waits until the test runs it.
    const start = Date.now() + 60 * 60_000;
    await holdClock(chatId, start);
    for (const text of ["Hi!", "Are you there?", "I have a topic idea."]) await sendMessage(a.cookie, chatId, text);
    const alarmAt = await runInDurableObject(room(chatId), (_instance: ChatRoom, state) => state.storage.getAlarm());
    expect(alarmAt).toBe(start + EMAIL_COLLECT_MS);

    await holdClock(chatId, start + EMAIL_COLLECT_MS);
    expect(await runDurableObjectAlarm(room(chatId))).toBe(true);
    const [first, ...others] = await outboxFor(b.userId);
    expect(others).toHaveLength(0);
    expect(first!.subject).toMatch(/sent you 3 messages$/);
    expect(first!.text).toContain('"I have a topic idea."');
    expect(first!.text).toContain(`https://market.test/mysite/messages?chatId=${chatId}`);

    // Another message soon after waits for the 15 minutes to pass.
    await holdClock(chatId, start + 4 * 60_000);
    await sendMessage(a.cookie, chatId, "Also, which deadline? Confirm your listing at https://evil.test/login");
    await holdClock(chatId, start + 10 * 60_000);
    await runDurableObjectAlarm(room(chatId));
    expect(await outboxFor(b.userId)).toHaveLength(1);
    await holdClock(chatId, start + EMAIL_COLLECT_MS + EMAIL_INTERVAL_MS);
    expect(await runDurableObjectAlarm(room(chatId))).toBe(true);
    const emails = await outboxFor(b.userId);
    expect(emails).toHaveLength(2);
    expect(emails[1]!.subject).toMatch(/sent you a message$/);
    // Quoted without its web address: the email comes from the product's own sender.
    expect(emails[1]!.text).toContain('"Also, which deadline? Confirm your listing at [link]"');
    expect(emails[1]!.text).not.toContain("evil.test");
    // The sender is never emailed about their own messages.
    expect(await outboxFor(a.userId)).toHaveLength(0);
  });

  it("no email when the other side has the conversation open, or reads it before the alarm", async () => {
    const { a, b, chatId } = await pairInChat();
    const start = Date.now();
    await holdClock(chatId, start);
    const aSocket = await connect(chatId, a.cookie);
    const bSocket = await connect(chatId, b.cookie);
    await sendMessage(a.cookie, chatId, "You are here, no email needed");
    await bSocket.received("message", 1);
    const waiting = () =>
      runInDurableObject(room(chatId), (_instance: ChatRoom, state) =>
        state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM notifications WHERE from_id IS NOT NULL").one(),
      );
    expect(await waiting()).toEqual({ n: 0 });
    bSocket.socket.close();
    expect((await aSocket.received("presence", 3)).at(-1)!.activeUserIds).toEqual([a.userId]);

    await sendMessage(a.cookie, chatId, "Now you are away");
    expect(await read(await get(`${MESSAGES_PAGE}?chatId=${chatId}`, { cookie: b.cookie }))).toContain("Now you are away");
    await holdClock(chatId, start + EMAIL_COLLECT_MS);
    expect(await runDurableObjectAlarm(room(chatId))).toBe(true);
    expect(await outboxFor(b.userId)).toHaveLength(0);
    aSocket.socket.close();
  });

  it("an email that cannot be queued (D1 out of reach) is tried again a minute later, not lost", async () => {
    const { a, b, chatId } = await pairInChat();
    const start = Date.now() + 60 * 60_000;
    await holdClock(chatId, start);
    await sendMessage(a.cookie, chatId, "Are you free on Monday?");
    const setEnv = (to: unknown) =>
      runInDurableObject(room(chatId), (instance: ChatRoom) => {
        (instance as unknown as { env: unknown }).env = to;
      });
    await setEnv(envWithFailingTable("email_outbox"));
    await holdClock(chatId, start + EMAIL_COLLECT_MS);
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    expect(await runDurableObjectAlarm(room(chatId))).toBe(true);
    expect(logged.mock.calls.flat().join(" ")).toContain("chat email not queued");
    logged.mockRestore();
    expect(await outboxFor(b.userId)).toHaveLength(0);
    const retry = await runInDurableObject(room(chatId), (_instance: ChatRoom, state) => state.storage.getAlarm());
    // A minute on, not at once again (the email is overdue: its own time has passed).
    expect(retry).toBe(start + EMAIL_COLLECT_MS + EMAIL_RETRY_MS);

    await setEnv(env);
    expect(await runDurableObjectAlarm(room(chatId))).toBe(true);
    const [email, ...others] = await outboxFor(b.userId);
    expect(others).toHaveLength(0);
    expect(email!.text).toContain('"Are you free on Monday?"');
  });

  it("a party whose site lost its verification is named as not verified, in the conversation and its email", async () => {
    const { a, b, bHost, chatId } = await pairInChat();
    const start = Date.now() + 60 * 60_000;
    await holdClock(chatId, start);
    const aHost = (await env.DB.prepare("SELECT host FROM sites WHERE user_id = ?").bind(a.userId).first<{ host: string }>())!.host;
    // The real owner of A's host proved control of it: A's site is no longer verified.
    await env.DB.prepare("UPDATE sites SET verified = 0 WHERE user_id = ?").bind(a.userId).run();
    await sendMessage(a.cookie, chatId, "Please pay me for the post");
    await holdClock(chatId, start + EMAIL_COLLECT_MS);
    expect(await runDurableObjectAlarm(room(chatId))).toBe(true);
    const [email] = await outboxFor(b.userId);
    expect(email!.subject).toBe(`${aHost} (not verified) sent you a message`);

    const seenByB = await read(await get(`${MESSAGES_PAGE}?chatId=${chatId}`, { cookie: b.cookie }));
    expect(seenByB).toContain(`<h2 id="chat-title" class="user-text">${aHost} (not verified)</h2>`);
    expect(seenByB).toContain(`<span class="conversation-site">${aHost} (not verified)</span>`);
    const seenByA = await read(await get(`${MESSAGES_PAGE}?chatId=${chatId}`, { cookie: a.cookie }));
    expect(seenByA).toContain(`<h2 id="chat-title" class="user-text">${bHost}</h2>`);
  });

  it("looking at older messages leaves the email about new ones due", async () => {
    const { a, b, chatId } = await pairInChat();
    const start = Date.now() + 60 * 60_000;
    await holdClock(chatId, start);
    await sendMessage(a.cookie, chatId, "An earlier word");
    await holdClock(chatId, start + EMAIL_COLLECT_MS);
    expect(await runDurableObjectAlarm(room(chatId))).toBe(true);
    expect(await outboxFor(b.userId)).toHaveLength(1);

    await holdClock(chatId, start + EMAIL_COLLECT_MS + EMAIL_INTERVAL_MS);
    await sendMessage(a.cookie, chatId, "A new question for you");
    // B opens the page of messages before the newest one (a link kept from earlier): the new one is still unseen.
    const older = logOf(await read(await get(`${MESSAGES_PAGE}?chatId=${chatId}&before=2`, { cookie: b.cookie })));
    expect(older).toContain("An earlier word");
    expect(older).not.toContain("A new question for you");
    await holdClock(chatId, start + 2 * EMAIL_COLLECT_MS + EMAIL_INTERVAL_MS);
    expect(await runDurableObjectAlarm(room(chatId))).toBe(true);
    const emails = await outboxFor(b.userId);
    expect(emails).toHaveLength(2);
    expect(emails[1]!.text).toContain('"A new question for you"');
  });
});

describe("sockets and sessions", () => {
  async function secondSession(email: string) {
    return sessionCookieOf(await post("/login", { email, password: PASSWORD }))!;
  }

  function closed(socket: WebSocket): Promise<number> {
    return new Promise((resolve) => socket.addEventListener("close", (event) => resolve(event.code)));
  }

  it("signing out closes that session's sockets; signing out everywhere else closes the others'", async () => {
    const { a, b, chatId } = await pairInChat();
    const phone = await secondSession(a.email);
    const laptop = await secondSession(a.email);
    const watcher = await connect(chatId, b.cookie);
    const onLaptop = await connect(chatId, laptop);
    const onPhone = await connect(chatId, phone);
    const here = await connect(chatId, a.cookie);
    const laptopClosed = closed(onLaptop.socket);
    const phoneClosed = closed(onPhone.socket);

    const hereClosed = closed(here.socket);
    expect((await post("/logout", {}, { cookie: laptop })).status).toBe(302);
    expect(await laptopClosed).toBe(4401);
    const signedOutOthers = await post("/mysite/settings", { intent: "sign-out-others" }, { cookie: a.cookie });
    expect(signedOutOthers.status).toBe(302);
    expect(await phoneClosed).toBe(4401);
    // This browser has a new session: its socket closes with the code on which a page connects again, not the
    // signed-out one, and connects with the new cookie.
    expect(await hereClosed).toBe(4001);
    const again = await connect(chatId, sessionCookieOf(signedOutOthers)!);

    // The browser that stays still talks, and the other side still hears it.
    again.send({ type: "send", clientId: "still-here-0001", text: "Still here" });
    expect((await watcher.received("message", 1))[0]!.message.text).toBe("Still here");
    expect(onPhone.events.filter((event) => event.type === "message")).toHaveLength(0);
    again.socket.close();
    watcher.socket.close();
  });

  it("a socket whose session has run out is closed when it next speaks or is spoken to", async () => {
    const { a, b, chatId } = await pairInChat();
    const soon = Date.now() + 1500;
    await env.DB.prepare("UPDATE sessions SET absolute_expires_at = ? WHERE user_id = ?").bind(soon, b.userId).run();
    const bSocket = await connect(chatId, b.cookie);
    const bClosed = closed(bSocket.socket);
    await new Promise((resolve) => setTimeout(resolve, soon - Date.now() + 50));
    await sendMessage(a.cookie, chatId, "Are you still there?");
    expect(await bClosed).toBe(4001);
    expect(bSocket.events.filter((event) => event.type === "message")).toHaveLength(0);
  });

  it("a socket trusts its session for a quarter of an hour at most, then runs out as above and the browser reconnects", async () => {
    const { a, chatId } = await pairInChat();
    const opened = Date.now();
    const aSocket = await connect(chatId, a.cookie);
    const trusted = await runInDurableObject(room(chatId), (_instance: ChatRoom, state) =>
      state.getWebSockets().map((socket) => (socket.deserializeAttachment() as { sessionExpiresAt: number }).sessionExpiresAt),
    );
    // The session itself runs for 30 days.
    expect(trusted).toHaveLength(1);
    expect(trusted[0]! - opened).toBeGreaterThan(SOCKET_TRUST_MS - 60_000);
    expect(trusted[0]! - opened).toBeLessThanOrEqual(SOCKET_TRUST_MS + 5_000);
    aSocket.socket.close();
  });

  it("a socket that has gone silent does not count as active, so the email still goes", async () => {
    const { a, b, chatId } = await pairInChat();
    const start = Date.now() + 60 * 60_000;
    await holdClock(chatId, start);
    await connect(chatId, b.cookie);
    // The phone went to sleep: no frame and no keep-alive ping for longer than the silence limit.
    await runInDurableObject(room(chatId), (_instance: ChatRoom, state) => {
      for (const socket of state.getWebSockets())
        socket.serializeAttachment({ ...socket.deserializeAttachment(), seenAt: Date.now() - SOCKET_SILENCE_MS - 1000 });
    });
    await sendMessage(a.cookie, chatId, "Hello? Anyone?");
    await holdClock(chatId, start + EMAIL_COLLECT_MS);
    expect(await runDurableObjectAlarm(room(chatId))).toBe(true);
    expect(await outboxFor(b.userId)).toHaveLength(1);
  });

  it("a socket gone silent is swept while the other side watches: they see the other go away without any message", async () => {
    const { a, b, chatId } = await pairInChat();
    const aSocket = await connect(chatId, a.cookie);
    // A alone: no sweep is due.
    expect(await runInDurableObject(room(chatId), (_instance: ChatRoom, state) => state.storage.getAlarm())).toBeNull();
    await connect(chatId, b.cookie);
    expect((await aSocket.received("presence", 2)).at(-1)!.activeUserIds).toEqual([a.userId, b.userId].sort());
    // Both there: the object is due to wake within the sweep's interval.
    const alarm = await runInDurableObject(room(chatId), (_instance: ChatRoom, state) => state.storage.getAlarm());
    expect(alarm).toBeGreaterThan(Date.now());
    expect(alarm).toBeLessThanOrEqual(Date.now() + PRESENCE_SWEEP_MS);
    // B's laptop went to sleep: no frame, no ping, no close.
    await runInDurableObject(room(chatId), (_instance: ChatRoom, state) => {
      for (const socket of state.getWebSockets(b.userId))
        socket.serializeAttachment({ ...socket.deserializeAttachment(), seenAt: Date.now() - SOCKET_SILENCE_MS - 1000 });
    });
    expect(await runDurableObjectAlarm(room(chatId))).toBe(true);
    expect((await aSocket.received("presence", 3)).at(-1)!.activeUserIds).toEqual([a.userId]);
    // A alone is left: no one to tell, so the object sleeps until something happens.
    expect(await runInDurableObject(room(chatId), (_instance: ChatRoom, state) => state.storage.getAlarm())).toBeNull();
    aSocket.socket.close();
  });

  it("a tab out of view still receives messages, but they stay unread, the email goes, and the other side sees it away", async () => {
    const { a, b, chatId } = await pairInChat();
    const start = Date.now() + 60 * 60_000;
    await holdClock(chatId, start);
    const aSocket = await connect(chatId, a.cookie);
    const bSocket = await connect(chatId, b.cookie);
    expect((await aSocket.received("presence", 2)).at(-1)!.activeUserIds).toEqual([a.userId, b.userId].sort());
    // B switches to another tab: the page says so.
    bSocket.send({ type: "sync", after: 0, hidden: true });
    expect((await aSocket.received("presence", 3)).at(-1)!.activeUserIds).toEqual([a.userId]);
    aSocket.send({ type: "send", clientId: "hidden-tab-1", text: "Are you there?" });
    expect((await bSocket.received("message", 1))[0]!.message.text).toBe("Are you there?");
    const readMarks = () => readMarksOf(b.userId, chatId);
    await expect.poll(readMarks).toEqual({ last: 1, read: 0 });
    await holdClock(chatId, start + EMAIL_COLLECT_MS);
    expect(await runDurableObjectAlarm(room(chatId))).toBe(true);
    expect((await outboxFor(b.userId)).map((email) => email.text)).toEqual([expect.stringContaining('"Are you there?"')]);

    // Back to the tab: everything is seen, and A sees B there again.
    bSocket.send({ type: "sync", after: 1, hidden: false });
    await expect.poll(readMarks).toEqual({ last: 1, read: 1 });
    expect((await aSocket.received("presence", 4)).at(-1)!.activeUserIds).toEqual([a.userId, b.userId].sort());
    aSocket.socket.close();
    bSocket.socket.close();
  });

  it("a tab back in view before the email is due: no email, and read", async () => {
    const { a, b, chatId } = await pairInChat();
    const start = Date.now() + 60 * 60_000;
    await holdClock(chatId, start);
    const bSocket = await connect(chatId, b.cookie);
    bSocket.send({ type: "sync", after: 0, hidden: true });
    await bSocket.received("history", 1);
    await sendMessage(a.cookie, chatId, "Quick question");
    await bSocket.received("message", 1);
    bSocket.send({ type: "sync", after: 1, hidden: false });
    await bSocket.received("history", 2);
    await holdClock(chatId, start + EMAIL_COLLECT_MS);
    await runDurableObjectAlarm(room(chatId));
    expect(await outboxFor(b.userId)).toHaveLength(0);
    // A tab reconnecting out of view (after a drop) says so as it connects: neither what comes before its first sync
    // nor what it catches up on is read, and the email about them goes.
    bSocket.socket.close();
    await sendMessage(a.cookie, chatId, "Sent during the drop");
    const again = await connect(chatId, b.cookie, "?hidden");
    await sendMessage(a.cookie, chatId, "Sent as the tab reconnected");
    await again.received("message", 1);
    again.send({ type: "sync", after: 1, hidden: true });
    await again.received("history", 1);
    expect(await readMarksOf(b.userId, chatId)).toEqual({ last: 3, read: 1 });
    expect(await read(await get(MESSAGES_PAGE, { cookie: b.cookie }))).toContain("Unread");
    await holdClock(chatId, start + 2 * EMAIL_COLLECT_MS);
    await runDurableObjectAlarm(room(chatId));
    expect((await outboxFor(b.userId)).map((email) => email.subject)).toEqual([expect.stringMatching(/sent you 2 messages$/)]);
    again.socket.close();
  });

  it("a message that arrives live is read; one that arrives while away is unread until the conversation is opened", async () => {
    const { a, b, chatId } = await pairInChat();
    const bSocket = await connect(chatId, b.cookie);
    const aSocket = await connect(chatId, a.cookie);
    aSocket.send({ type: "send", clientId: "live-message-1", text: "Seen live" });
    await bSocket.received("message", 1);
    const readMarks = () => readMarksOf(b.userId, chatId);
    await expect.poll(readMarks).toEqual({ last: 1, read: 1 });
    expect(await read(await get(MESSAGES_PAGE, { cookie: b.cookie }))).not.toContain("Unread");

    const bClosed = closed(bSocket.socket);
    bSocket.socket.close(1000);
    await bClosed;
    expect((await aSocket.received("presence", 2)).at(-1)!.activeUserIds).toEqual([a.userId]);
    await sendMessage(a.cookie, chatId, "Sent while away");
    expect(await readMarks()).toEqual({ last: 2, read: 1 });
    expect(await read(await get(MESSAGES_PAGE, { cookie: b.cookie }))).toContain("Unread");
    // Coming back on the socket (catching up) reads it too.
    const back = await connect(chatId, b.cookie);
    back.send({ type: "sync", after: 1 });
    await back.received("history", 1);
    await expect.poll(readMarks).toEqual({ last: 2, read: 2 });
    aSocket.socket.close();
    back.socket.close();
  });
});

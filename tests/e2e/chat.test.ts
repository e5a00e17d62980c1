import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { createAccount, logIn, modes, openPage, sharedChromium, sql, unexpected } from "./browser";

const chromium = sharedChromium();

/** A's offer to B, set up directly: the offer is where this test starts, not what it is about. */
function offerBetween(a: { host: string }, b: { host: string }): string {
  const offerId = crypto.randomUUID();
  const now = Date.now();
  const site = (host: string) => `(SELECT id FROM sites WHERE host = '${host}')`;
  const user = (host: string) => `(SELECT user_id FROM sites WHERE host = '${host}')`;
  sql(
    `INSERT INTO offers (id, sender_user_id, sender_site_id, receiver_user_id, receiver_site_id, connects, status, answer_by, created_at, updated_at)
     VALUES ('${offerId}', ${user(a.host)}, ${site(a.host)}, ${user(b.host)}, ${site(b.host)}, 5, 'pending', ${
      now + 14 * 86_400_000
    }, ${now}, ${now});
     INSERT INTO offer_entries (offer_id, user_id, site_id, role, create_content_type, provide_materials, updated_at) VALUES
       ('${offerId}', ${user(a.host)}, ${site(a.host)}, 'sender', 'blog-post', '["logo"]', ${now}),
       ('${offerId}', ${user(b.host)}, ${site(b.host)}, 'receiver', 'feature', '["logo"]', ${now});`,
  );
  return offerId;
}

/** A's browser (JavaScript on) on the conversation with B, opened from A's offer to B; `prepare` runs before signing in. */
async function chatOpenedByA(prefix: string, { prepare, timezoneId }: { prepare?: (page: Page) => Promise<void>; timezoneId?: string } = {}) {
  const a = await createAccount(`${prefix}-a`);
  const b = await createAccount(`${prefix}-b`);
  const offerId = offerBetween(a, b);
  const aSide = await openPage(chromium(), true, 1280, timezoneId);
  await prepare?.(aSide.page);
  await logIn(aSide.page, a.email);
  await aSide.page.goto(`/mysite/offers?offer=${offerId}`);
  await aSide.page.getByRole("button", { name: `Message ${b.host}` }).click();
  await aSide.page.waitForURL("**/mysite/messages?chatId=*");
  return { a, b, aSide };
}

describe.each(modes)("a conversation between two site owners $name", ({ js }) => {
  it("from an offer, A opens a chat with B, B sees A's message and answers", async () => {
    const a = await createAccount("chat-a");
    const b = await createAccount("chat-b");
    const offerId = offerBetween(a, b);

    const aSide = await openPage(chromium(), js);
    const aPage = aSide.page;
    await logIn(aPage, a.email);
    await aPage.goto(`/mysite/offers?offer=${offerId}`);
    await aPage.getByRole("button", { name: `Message ${b.host}` }).click();
    await aPage.waitForURL("**/mysite/messages?chatId=*");
    const chatUrl = new URL(aPage.url());
    await aPage.getByRole("heading", { name: b.host }).waitFor();

    const bSide = await openPage(chromium(), js);
    const bPage = bSide.page;
    await logIn(bPage, b.email);
    await bPage.goto(`/mysite/offers?offer=${offerId}`);
    await bPage.getByRole("button", { name: `Message ${a.host}` }).click();
    await bPage.waitForURL("**/mysite/messages?chatId=*");
    expect(new URL(bPage.url()).searchParams.get("chatId")).toBe(chatUrl.searchParams.get("chatId"));

    if (js) {
      // Both live: A sees B arrive, and no "connecting" notice is left.
      await aPage.getByText("Active now").waitFor();
      await expect.poll(() => aPage.getByRole("status").filter({ hasText: "Connecting" }).count()).toBe(0);
      await expect.poll(() => bPage.getByRole("status").filter({ hasText: "Connecting" }).count()).toBe(0);
    }

    await aPage.fill("#chat-text", "Hello! Would a guide to balcony herbs suit you?");
    await aPage.getByRole("button", { name: "Send" }).click();
    await aPage.locator(".chat-message.mine:not(.pending)", { hasText: "Would a guide to balcony herbs suit you?" }).waitFor();
    if (js) {
      // Live: B's open page shows it without a reload, and the box is ready for the next message, with the focus
      // (Send, pressed, went grey with the box empty). The status region stays, empty, for what comes next.
      expect(await aPage.inputValue("#chat-text")).toBe("");
      expect(await aPage.evaluate(() => document.activeElement?.id)).toBe("chat-text");
      expect(await aPage.locator(".chat-status[role=status]").textContent()).toBe("");
    } else {
      await bPage.reload();
    }
    await bPage.locator(".chat-message.theirs", { hasText: "Would a guide to balcony herbs suit you?" }).waitFor();

    await bPage.fill("#chat-text", "Yes, with a link to our seed guide please.");
    if (js) await bPage.press("#chat-text", "Enter");
    else await bPage.getByRole("button", { name: "Send" }).click();
    await bPage.locator(".chat-message.mine:not(.pending)", { hasText: "with a link to our seed guide" }).waitFor();
    if (!js) await aPage.reload();
    await aPage.locator(".chat-message.theirs", { hasText: "with a link to our seed guide" }).waitFor();

    // The list beside the conversation names the other site and its last message.
    await aPage.goto("/mysite/messages");
    await aPage.locator(".conversation-row", { hasText: b.host }).getByText("Yes, with a link to our seed guide please.").waitFor();

    expect(unexpected(aSide.errors)).toEqual([]);
    expect(unexpected(bSide.errors)).toEqual([]);
    await aSide.close();
    await bSide.close();
  });
});

describe("a live conversation that loses its connection", () => {
  it("shows that it is connecting, then catches up with what it missed", async () => {
    const { b, aSide } = await chatOpenedByA("drop");
    const chatPath = new URL(aSide.page.url()).pathname + new URL(aSide.page.url()).search;

    const bSide = await openPage(chromium(), true);
    const bPage = bSide.page;
    await logIn(bPage, b.email);
    await bPage.goto(chatPath);
    await aSide.page.getByText("Active now").waitFor();

    await bPage.context().setOffline(true);
    await bPage.getByRole("status").filter({ hasText: "Connecting" }).waitFor();
    // (A may still see B as present: a cut connection is not seen by the server at once; B catches up either way.)
    for (const text of ["Sent while you were offline (1)", "Sent while you were offline (2)"]) {
      await aSide.page.fill("#chat-text", text);
      await aSide.page.press("#chat-text", "Enter");
      await aSide.page.locator(".chat-message.mine:not(.pending)", { hasText: text }).waitFor();
    }
    // What B writes while offline waits on the page, and goes once the connection is back.
    await bPage.fill("#chat-text", "Written offline, sent when back");
    await bPage.press("#chat-text", "Enter");
    await bPage.locator(".chat-message.pending", { hasText: "Written offline, sent when back" }).waitFor();
    await bPage.context().setOffline(false);
    await bPage.locator(".chat-message.theirs", { hasText: "Sent while you were offline (2)" }).waitFor();
    await bPage.locator(".chat-message.mine:not(.pending)", { hasText: "Written offline, sent when back" }).waitFor();
    await aSide.page.locator(".chat-message.theirs", { hasText: "Written offline, sent when back" }).waitFor();
    expect(await bPage.locator(".chat-message", { hasText: "Sent while you were offline" }).count()).toBe(2);
    await expect.poll(() => bPage.getByRole("status").filter({ hasText: "Connecting" }).count()).toBe(0);

    expect(unexpected(aSide.errors)).toEqual([]);
    // Going offline makes Chromium log the failed reconnection attempts; nothing else may appear.
    expect(unexpected(bSide.errors).filter((error) => !/WebSocket connection to .* failed/.test(error))).toEqual([]);
    await aSide.close();
    await bSide.close();
  });
});

/** The page's tab goes out of view or comes back, as the browser tells a page (headless Chromium keeps every tab in view). */
function inView(page: Page, visible: boolean) {
  return page.evaluate((hidden) => {
    Object.defineProperty(document, "hidden", { configurable: true, get: () => hidden });
    document.dispatchEvent(new Event("visibilitychange"));
  }, !visible);
}

describe("a conversation in a tab out of view", () => {
  it("still receives messages, which stay unread; the other side sees it away; back in view, they are read", async () => {
    const { a, b, aSide } = await chatOpenedByA("hidden-tab");
    const chatPath = new URL(aSide.page.url()).pathname + new URL(aSide.page.url()).search;
    const bSide = await openPage(chromium(), true);
    const bPage = bSide.page;
    await logIn(bPage, b.email);
    await bPage.goto(chatPath);
    await aSide.page.locator(".chat-presence", { hasText: "Active now" }).waitFor();

    await inView(bPage, false);
    await aSide.page.locator(".chat-presence", { hasText: "Away" }).waitFor();
    await aSide.page.fill("#chat-text", "Sent while you were in another tab");
    await aSide.page.press("#chat-text", "Enter");
    await bPage.locator(".chat-message.theirs", { hasText: "Sent while you were in another tab" }).waitFor();
    // B's list, in another tab, marks it unread: B has not seen it.
    const list = await bPage.context().newPage();
    const unread = async () => {
      await list.goto("/mysite/messages");
      return list.locator(".conversation-row", { hasText: a.host }).getByText("Unread").count();
    };
    await expect.poll(unread).toBe(1);

    await inView(bPage, true);
    await aSide.page.locator(".chat-presence", { hasText: "Active now" }).waitFor();
    await expect.poll(unread).toBe(0);

    expect(unexpected(aSide.errors)).toEqual([]);
    expect(unexpected(bSide.errors)).toEqual([]);
    await aSide.close();
    await bSide.close();
  });
});

describe("a conversation whose socket cannot open (a proxy that drops WebSockets)", () => {
  it("posts the form instead, and keeps what was typed while that post was on its way", async () => {
    const { aSide } = await chatOpenedByA("no-socket", {
      prepare: (page) => page.routeWebSocket(/\/chats\/[^/]+\/socket$/, (socket) => socket.close()),
    });
    const page = aSide.page;
    await page.getByRole("status").filter({ hasText: "Connecting" }).waitFor();
    // The post is held until the next message has been typed.
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    // With JavaScript the form posts to the page's data address (`/mysite/messages.data?…`).
    await page.route(/\/mysite\/messages(\.data)?\?/, async (route) => {
      if (route.request().method() === "POST") await held;
      await route.continue();
    });
    await page.fill("#chat-text", "Sent by the form");
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByRole("button", { name: "Send" }).and(page.locator("[disabled]")).waitFor();
    await page.fill("#chat-text", "Sent by the form\n\nTyped while it went");
    release();
    await page.locator(".chat-message.mine:not(.pending)", { hasText: "Sent by the form" }).waitFor();
    await expect.poll(() => page.inputValue("#chat-text")).toBe("Typed while it went");
    expect(await page.locator(".chat-message", { hasText: "Typed while it went" }).count()).toBe(0);

    expect(unexpected(aSide.errors).filter((error) => !/WebSocket/.test(error))).toEqual([]);
    await aSide.close();
  });

  it("still shows the other side's messages, read every 10 seconds until a socket opens", async () => {
    const { b, aSide } = await chatOpenedByA("no-socket-in", {
      prepare: (page) => page.routeWebSocket(/\/chats\/[^/]+\/socket$/, (socket) => socket.close()),
    });
    await aSide.page.getByRole("status").filter({ hasText: "Connecting" }).waitFor();
    // B answers from a browser without JavaScript (a form post; no socket on either side).
    const bSide = await openPage(chromium(), false);
    await logIn(bSide.page, b.email);
    await bSide.page.goto(new URL(aSide.page.url()).pathname + new URL(aSide.page.url()).search);
    for (const text of ["Answered while your socket was away", "And once more"]) {
      await bSide.page.fill("#chat-text", text);
      await bSide.page.getByRole("button", { name: "Send" }).click();
      await bSide.page.locator(".chat-message.mine", { hasText: text }).waitFor();
      await aSide.page.locator(".chat-message.theirs", { hasText: text }).waitFor({ timeout: 25_000 });
    }
    expect(await aSide.page.locator(".chat-message", { hasText: "Answered while your socket was away" }).count()).toBe(1);
    expect(await aSide.page.getByRole("status").filter({ hasText: "Connecting" }).count()).toBe(1);

    expect(unexpected(aSide.errors).filter((error) => !/WebSocket/.test(error))).toEqual([]);
    expect(unexpected(bSide.errors)).toEqual([]);
    await aSide.close();
    await bSide.close();
  });
});

describe("a conversation left open", () => {
  it("says the visitor was signed out when its session ended while the socket was away, instead of connecting for good", async () => {
    const { a, aSide } = await chatOpenedByA("asleep");
    await expect.poll(() => aSide.page.getByRole("status").filter({ hasText: "Connecting" }).count()).toBe(0);

    // The laptop sleeps; meanwhile its session ends (run out, or ended without the room hearing of it).
    await aSide.page.context().setOffline(true);
    await aSide.page.getByRole("status").filter({ hasText: "Connecting" }).waitFor();
    // A message typed offline waits to go.
    await aSide.page.fill("#chat-text", "Written on the train");
    await aSide.page.press("#chat-text", "Enter");
    await aSide.page.locator(".chat-message.pending", { hasText: "Written on the train" }).waitFor();
    sql(`DELETE FROM sessions WHERE user_id = (SELECT user_id FROM sites WHERE host = '${a.host}')`);
    await aSide.page.context().setOffline(false);
    await aSide.page.getByRole("status").filter({ hasText: "You were signed out." }).waitFor();
    expect(await aSide.page.getByRole("status").filter({ hasText: "Connecting" }).count()).toBe(0);
    await aSide.page.getByRole("link", { name: "Log in" }).waitFor();
    // It cannot go now: it is back in the box, not left "Sending…" for good.
    await expect.poll(() => aSide.page.inputValue("#chat-text")).toBe("Written on the train");
    expect(await aSide.page.locator(".chat-message.pending").count()).toBe(0);

    expect(unexpected(aSide.errors).filter((error) => !/WebSocket connection to .* failed/.test(error))).toEqual([]);
    await aSide.close();
  });

  it("shows yesterday's messages by date once the viewer's day has changed", async () => {
    // The page's clock is the test's: it can pass midnight without waiting for it.
    const { b, aSide } = await chatOpenedByA("midnight", { prepare: (page) => page.clock.install({ time: Date.now() }), timezoneId: "UTC" });
    await aSide.page.fill("#chat-text", "Sent before midnight");
    await aSide.page.press("#chat-text", "Enter");
    const sent = aSide.page.locator(".chat-message.mine:not(.pending)", { hasText: "Sent before midnight" });
    await sent.waitFor();
    const clockTime = /^\d{1,2}:\d{2} (AM|PM)$/;
    expect(await sent.locator("time").innerText()).toMatch(clockTime);
    const createdAt = new Date((await sent.locator("time").getAttribute("datetime"))!);

    const nextMidnight = Date.UTC(createdAt.getUTCFullYear(), createdAt.getUTCMonth(), createdAt.getUTCDate() + 1);
    await aSide.page.clock.fastForward(nextMidnight - (await aSide.page.evaluate(() => Date.now())) + 61_000);
    const date = `${createdAt.getUTCDate()}/${createdAt.getUTCMonth() + 1}`;
    await expect.poll(() => sent.locator("time").innerText()).toBe(date);
    await expect.poll(() => aSide.page.locator(".conversation-row", { hasText: b.host }).locator("time").innerText()).toBe(date);

    expect(unexpected(aSide.errors).filter((error) => !/WebSocket connection to .* failed/.test(error))).toEqual([]);
    await aSide.close();
  });
});

import { describe, expect, it } from "vitest";
import {
  checkMessageText,
  isClientId,
  mergeMessages,
  messagePreview,
  parseClientEvent,
  parseServerEvent,
  reconnectDelay,
  withoutWebAddresses,
  type ChatMessage,
} from "~/domain/chat";
import { formatMessageTime } from "~/domain/dates";

const message = (id: number, text = `message ${id}`): ChatMessage => ({ id, senderId: "u1", text, createdAt: id * 1000, clientId: null });

describe("a chat message's text", () => {
  it.each([
    ["", "empty"],
    ["   ", "empty"],
    ["\n\t \n", "empty"],
    // Characters that show as nothing: zero-width space, joiner and no-break space, a word joiner, a Hangul filler,
    // the blank Braille pattern, a soft hyphen alone.
    ["\u200B\u200D\uFEFF", "empty"],
    [" \u2060 \u3164 \u2800 ", "empty"],
    ["\u00AD", "empty"],
    ["x".repeat(4001), "too-long"],
    [` ${"x".repeat(4001)} `, "too-long"],
  ])("%j is not sent (%s)", (text, reason) => {
    expect(checkMessageText(text)).toEqual({ ok: false, reason });
  });

  it("is stored trimmed, up to 4,000 characters after trimming", () => {
    expect(checkMessageText("  Hello there \n")).toEqual({ ok: true, text: "Hello there" });
    expect(checkMessageText(`   ${"y".repeat(4000)}   `)).toEqual({ ok: true, text: "y".repeat(4000) });
    expect(checkMessageText(42)).toEqual({ ok: false, reason: "empty" });
    // Invisible characters beside visible ones are kept as written (an emoji's joiner, for one).
    expect(checkMessageText("\u200Bhi 👩\u200D💻")).toEqual({ ok: true, text: "\u200Bhi 👩\u200D💻" });
    // A form posted without JavaScript sends line breaks as CRLF: stored as "\n", each counted once.
    const lines = `${"z".repeat(3989)}${"\r\n".repeat(10)}z`;
    expect(checkMessageText(lines)).toEqual({ ok: true, text: `${"z".repeat(3989)}${"\n".repeat(10)}z` });
  });
});

describe("a message quoted in an email", () => {
  it("has its web addresses as [link], and keeps the rest of what was written", () => {
    expect(withoutWebAddresses("Confirm at https://evil.test/login?x=1 now")).toBe("Confirm at [link] now");
    expect(withoutWebAddresses("or www.evil.test, or backlinkmarket-support.com/verify.")).toBe("or [link] or [link]");
    expect(withoutWebAddresses("My site is ünïcode.de and пример.рф")).toBe("My site is [link] and [link]");
    expect(withoutWebAddresses("Write to me at ana@example.com about it")).toBe("Write to me at ana@example.com about it");
    expect(withoutWebAddresses("Deadline 12.05, version 2.0, e.g. a logo. Thanks!")).toBe("Deadline 12.05, version 2.0, e.g. a logo. Thanks!");
  });
});

describe("frames from the browser", () => {
  it("reads the two events the browser sends", () => {
    expect(parseClientEvent(JSON.stringify({ type: "send", clientId: "abcdefgh", text: "hi" }))).toEqual({
      type: "send",
      clientId: "abcdefgh",
      text: "hi",
    });
    expect(parseClientEvent(JSON.stringify({ type: "sync", after: 12 }))).toEqual({ type: "sync", after: 12 });
    expect(parseClientEvent(JSON.stringify({ type: "sync", after: 12, hidden: true }))).toEqual({ type: "sync", after: 12, hidden: true });
    expect(parseClientEvent(JSON.stringify({ type: "sync", after: 0, hidden: false }))).toEqual({ type: "sync", after: 0, hidden: false });
    // Anything but a boolean says nothing about the tab.
    expect(parseClientEvent(JSON.stringify({ type: "sync", after: 3, hidden: "yes" }))).toEqual({ type: "sync", after: 3 });
  });

  it.each([
    "not json",
    "null",
    "[]",
    JSON.stringify({ type: "send", clientId: "short", text: "hi" }),
    JSON.stringify({ type: "send", clientId: "abcdefgh", text: 5 }),
    JSON.stringify({ type: "send", clientId: "has spaces in it", text: "hi" }),
    JSON.stringify({ type: "sync", after: -1 }),
    JSON.stringify({ type: "sync", after: 1.5 }),
    JSON.stringify({ type: "sync", after: "3" }),
    JSON.stringify({ type: "presence", activeUserIds: [] }),
    JSON.stringify({ type: "send", clientId: "abcdefgh", text: "x".repeat(30_000) }),
  ])("ignores %s", (frame) => {
    expect(parseClientEvent(frame)).toBeNull();
  });

  it("ignores binary frames", () => {
    expect(parseClientEvent(new ArrayBuffer(8))).toBeNull();
  });

  it("client ids are short tokens", () => {
    expect(isClientId(crypto.randomUUID())).toBe(true);
    expect(isClientId("a".repeat(65))).toBe(false);
    expect(isClientId(undefined)).toBe(false);
  });
});

describe("frames from the conversation", () => {
  it("reads events and ignores anything else", () => {
    expect(parseServerEvent(JSON.stringify({ type: "presence", activeUserIds: ["a"] }))).toEqual({ type: "presence", activeUserIds: ["a"] });
    expect(parseServerEvent("pong")).toBeNull();
    expect(parseServerEvent(JSON.stringify(3))).toBeNull();
    expect(parseServerEvent(new ArrayBuffer(2))).toBeNull();
  });
});

describe("what the browser shows", () => {
  it("merges live and fetched messages in id order, each once", () => {
    const merged = mergeMessages([message(1), message(3)], [message(2), message(3, "message 3 again"), message(5)]);
    expect(merged.map((item) => item.id)).toEqual([1, 2, 3, 5]);
    expect(merged[2]!.text).toBe("message 3 again");
  });

  it("reconnects after about 1 s, doubling up to about 30 s, spread from half to one and a half times", () => {
    expect(reconnectDelay(0, 0)).toBe(500);
    expect(reconnectDelay(0, 1)).toBe(1500);
    expect(reconnectDelay(1, 0.5)).toBe(2000);
    expect(reconnectDelay(3, 0.5)).toBe(8000);
    expect(reconnectDelay(20, 0)).toBe(15_000);
    expect(reconnectDelay(20, 1)).toBe(45_000);
  });

  it("previews the last message on one line", () => {
    expect(messagePreview("Hello\n\nthere   friend")).toBe("Hello there friend");
    expect(messagePreview("a".repeat(100), 10)).toBe(`${"a".repeat(9)}…`);
    // Cut by characters: never half of an emoji.
    expect(messagePreview(`${"a".repeat(8)}😀😀x`, 10)).toBe(`${"a".repeat(8)}😀…`);
    expect(messagePreview(`${"a".repeat(8)}👍🏽🇫🇷x`, 10)).toBe(`${"a".repeat(8)}👍🏽…`);
  });
});

describe("message times in chat", () => {
  const now = Date.UTC(2026, 10, 21, 15, 30);
  it("shows clock time today, day/month this year, and the year otherwise", () => {
    expect(formatMessageTime(Date.UTC(2026, 10, 21, 9, 5), now)).toBe("9:05 AM");
    expect(formatMessageTime(Date.UTC(2026, 10, 21, 0, 0), now)).toBe("12:00 AM");
    expect(formatMessageTime(Date.UTC(2026, 10, 21, 13, 45), now)).toBe("1:45 PM");
    expect(formatMessageTime(Date.UTC(2026, 10, 20, 23, 59), now)).toBe("20/11");
    expect(formatMessageTime(Date.UTC(2026, 0, 3, 12, 0), now)).toBe("3/1");
    expect(formatMessageTime(Date.UTC(2025, 11, 31, 12, 0), now)).toBe("31/12/2025");
  });
});

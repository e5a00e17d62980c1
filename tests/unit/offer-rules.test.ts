import { describe, expect, it } from "vitest";
import { formatAnswerBy } from "~/domain/offer-view";
import {
  canActOnOffer,
  canMoveEntry,
  contentUrlOf,
  isOverlongContentUrl,
  entryActionLabel,
  samePageAddresses,
  entryStatesBefore,
  offerStatusCode,
  type EntryStatus,
  type OfferAction,
  type OfferState,
  type Role,
} from "~/domain/offer-rules";

const STATES: OfferState[] = ["pending", "declined", "rescind", "accepted", "expired"];
const ROLES: Role[] = ["sender", "receiver"];
const ACTIONS: OfferAction[] = ["accept", "decline", "rescind", "trash"];

/** The whole table of allowed offer actions; everything not listed is refused. */
const ALLOWED = new Set([
  "accept/pending/receiver",
  "decline/pending/receiver",
  "rescind/pending/sender",
  "trash/declined/sender",
  "trash/declined/receiver",
  "trash/rescind/sender",
  "trash/rescind/receiver",
  "trash/expired/sender",
  "trash/expired/receiver",
]);

describe("offer actions for sender and receiver", () => {
  for (const action of ACTIONS) {
    for (const status of STATES) {
      for (const role of ROLES) {
        const key = `${action}/${status}/${role}`;
        it(`${ALLOWED.has(key) ? "allows" : "refuses"} ${key}`, () => {
          expect(canActOnOffer(action, { status, role, trashed: false })).toBe(ALLOWED.has(key));
        });
      }
    }
  }
  it("refuses trashing twice", () => {
    expect(canActOnOffer("trash", { status: "declined", role: "sender", trashed: true })).toBe(false);
  });
});

describe("trade progress of each participant", () => {
  const ENTRY: EntryStatus[] = ["not_started", "in_progress", "completed", "stopped"];
  const MOVES = new Set(["not_started>in_progress", "in_progress>completed", "in_progress>stopped", "stopped>in_progress"]);
  for (const from of ENTRY) {
    for (const to of ENTRY) {
      it(`${MOVES.has(`${from}>${to}`) ? "allows" : "refuses"} ${from} -> ${to}`, () => {
        expect(canMoveEntry(from, to)).toBe(MOVES.has(`${from}>${to}`));
      });
    }
  }
  it("labels each move's button, resuming stopped work", () => {
    expect(entryActionLabel("not_started", "in_progress")).toBe("Start");
    expect(entryActionLabel("stopped", "in_progress")).toBe("Resume");
    expect(entryActionLabel("in_progress", "stopped")).toBe("Stop");
    expect(entryActionLabel("in_progress", "completed")).toBe("Mark completed");
  });
  it("lists where each move may start", () => {
    expect(entryStatesBefore("in_progress").sort()).toEqual(["not_started", "stopped"]);
    expect(entryStatesBefore("completed")).toEqual(["in_progress"]);
    expect(entryStatesBefore("not_started")).toEqual([]);
  });
});

describe("the answer's deadline", () => {
  const now = Date.UTC(2026, 10, 21, 15, 30);
  it("is shown to the minute: the clock time with 'today' or the date, in the viewer's zone", () => {
    expect(formatAnswerBy(Date.UTC(2026, 10, 21, 18, 0), now, "UTC")).toBe("6:00 PM today");
    expect(formatAnswerBy(Date.UTC(2026, 11, 5, 15, 30), now, "UTC")).toBe("12/5, 3:30 PM");
    expect(formatAnswerBy(Date.UTC(2027, 0, 2, 0, 5), now, "UTC")).toBe("1/2/2027, 12:05 AM");
    // It is already 4:30 AM on the 22nd in Auckland (UTC+13), and 7:30 AM on the 21st in Los Angeles (UTC-8).
    expect(formatAnswerBy(Date.UTC(2026, 10, 21, 18, 0), now, "Pacific/Auckland")).toBe("7:00 AM today");
    expect(formatAnswerBy(Date.UTC(2026, 10, 21, 8, 0), now, "Pacific/Auckland")).toBe("11/21, 9:00 PM");
    expect(formatAnswerBy(Date.UTC(2026, 10, 22, 9, 0), now, "America/Los_Angeles")).toBe("11/22, 1:00 AM");
  });
});

describe("status labels", () => {
  it("labels offers and trades", () => {
    expect(offerStatusCode({ status: "pending", trashed: false })).toBe("PEN");
    expect(offerStatusCode({ status: "declined", trashed: false })).toBe("DEC");
    expect(offerStatusCode({ status: "rescind", trashed: false })).toBe("RES");
    expect(offerStatusCode({ status: "expired", trashed: false })).toBe("NORES");
    expect(offerStatusCode({ status: "declined", trashed: true })).toBe("TRS");
    expect(offerStatusCode({ status: "accepted", trashed: false, entries: ["not_started", "not_started"] })).toBe("ACC");
    expect(offerStatusCode({ status: "accepted", trashed: false, entries: ["in_progress", "not_started"] })).toBe("INP");
    expect(offerStatusCode({ status: "accepted", trashed: false, entries: ["completed", "stopped"] })).toBe("INP");
    expect(offerStatusCode({ status: "accepted", trashed: false, entries: ["completed", "completed"] })).toBe("COM");
  });
});

describe("content url", () => {
  it.each([
    ["https://example.com/post", "https://example.com/post"],
    ["http://blog.example.co.uk/a?b=c", "http://blog.example.co.uk/a?b=c"],
    ["  example.com/post ", "https://example.com/post"],
    ["www.example.com:8080/post", "https://www.example.com:8080/post"],
    ["https://example.com/post#comments", "https://example.com/post"],
    ["https://example.com/post?", "https://example.com/post"],
    ["https://example.com/post?#top", "https://example.com/post"],
  ])("reads %j as %s", (typed, url) => expect(contentUrlOf(typed)).toBe(url));
  it("names the addresses of the same page: either scheme, with www. or without", () => {
    const variants = (path: string) =>
      ["http://example.com", "http://www.example.com", "https://example.com", "https://www.example.com"].map((origin) => `${origin}${path}`);
    const both = [...variants("/post?p=2"), ...variants("/post/?p=2")].sort();
    expect(samePageAddresses("https://www.example.com/post?p=2").sort()).toEqual(both);
    expect(samePageAddresses("https://www.example.com/post/?p=2").sort()).toEqual(both);
    expect(samePageAddresses("https://example.com/").sort()).toEqual(variants("/").sort());
  });
  it.each([
    "",
    "   ",
    "javascript:alert(1)",
    "ftp://example.com/x",
    "https://localhost/x",
    "localhost/x",
    "https://user:secret@example.com/post",
    "mailto:ann@example.com",
    "example.com:99999/post",
    `https://e.com/${"x".repeat(2100)}`,
    // Short as typed, over 2,048 characters once encoded as it is stored.
    `https://e.com/${"é".repeat(1000)}`,
  ])("refuses %j", (typed) => expect(contentUrlOf(typed)).toBeNull());
  it("tells an address too long to store from one that is no address", () => {
    for (const typed of [
      `https://e.com/${"x".repeat(2100)}`,
      `e.com/${"é".repeat(1000)}`,
      `https://e.com/${"x".repeat(20_000)}`,
      "x".repeat(20_000),
    ]) {
      expect(isOverlongContentUrl(typed), typed.slice(0, 20)).toBe(true);
    }
    for (const typed of ["", "the-post", "https://localhost/x", `https://e.com/${"x".repeat(2000)}`, `ftp://e.com/${"x".repeat(3000)}`]) {
      expect(isOverlongContentUrl(typed), typed.slice(0, 20)).toBe(false);
    }
  });
});

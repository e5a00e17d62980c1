import { describe, expect, it } from "vitest";
import { scanOnPage } from "~/lib/html.server";
import type { FetchFailureReason, FetchedPage } from "~/lib/safe-fetch.server";

/** A fetched page whose body ended early for `reason` after `html`, as the safe fetch hands it over. */
function cutOff(html: string, reason: FetchFailureReason | null): FetchedPage {
  return {
    ok: true,
    url: "https://slow.example/",
    status: 200,
    headers: new Headers({ "Content-Type": "text/html" }),
    redirects: [],
    body: new Response(html).body!,
    failure: () => reason,
    cancel: async () => undefined,
  };
}

const HEAD = `<html lang="en"><head><title>Slow Seeds</title><meta name="description" content="Seeds"></head><body><h1>Seeds</h1>`;

describe("the audit's read of a home page", () => {
  it("scores what it read of a page cut off by the deadline or the size cap", async () => {
    for (const reason of ["timeout", "too_large"] as const) {
      const scanned = await scanOnPage(cutOff(HEAD, reason));
      expect(scanned).toMatchObject({ ok: true, facts: { title: "Slow Seeds", description: true, h1Count: 1, lang: true } });
    }
  });

  it("refuses a page whose connection failed, or that ran out of time before its body began", async () => {
    expect(await scanOnPage(cutOff(HEAD, "unreachable"))).toMatchObject({ ok: false });
    expect(await scanOnPage(cutOff(`<html lang="en"><head><title>Slow Seeds</title>`, "timeout"))).toMatchObject({ ok: false });
  });
});

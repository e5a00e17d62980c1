import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from "cloudflare:test";
import worker from "~/worker";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { database } from "~/lib/db.server";
import type { Env } from "~/lib/env";
import { deliverOutbox, emailToUser } from "~/services/email.server";
import { devFetch, get, post, read, signUp } from "./helpers";

const db = database(env.DB);

/** Queues one email to the user, as the product does (in a batch of its own here). */
async function queue(userId: string, kind: string, text = "Something happened on your offer.") {
  await db.batch([emailToUser(db, { userId, subject: `About ${kind}`, text, kind }, Date.now())]);
  return env.DB.prepare("SELECT id FROM email_outbox WHERE to_address = (SELECT email FROM users WHERE id = ?) AND kind = ? ORDER BY created_at DESC")
    .bind(userId, kind)
    .first<{ id: string }>();
}

async function rowOf(id: string) {
  return env.DB.prepare(
    "SELECT status, attempts, next_attempt_at, last_error, transport, provider_message_id, text_body FROM email_outbox WHERE id = ?",
  )
    .bind(id)
    .first<{
      status: string;
      attempts: number;
      next_attempt_at: number;
      last_error: string | null;
      transport: string | null;
      provider_message_id: string | null;
      text_body: string;
    }>();
}

const resendEnv = { ...env, RESEND_API_KEY: "re_test_key", EMAIL_FROM: "Backlink Market <mail@market.test>" } as unknown as Env;
const postmarkEnv = { ...env, POSTMARK_SERVER_TOKEN: "pm-token", EMAIL_FROM: "mail@market.test" } as unknown as Env;

// Each test delivers its own emails: whatever earlier tests left pending is set aside first (test files run one
// after another), so a delivery's 50-row batch is this test's rows.
beforeEach(async () => {
  await env.DB.prepare("UPDATE email_outbox SET status = 'cancelled', last_error = 'set aside by the email tests' WHERE status = 'pending'").run();
});

/** A delivery time at which this test's rows are due (they are due from the moment they are queued). */
const later = () => Date.now() + 1000;

interface Sent {
  url: string;
  headers: Headers;
  body: Record<string, unknown>;
}

/** Answers the provider's API with `answer` for each call (a function of the call's number) and records what was sent. */
function mockProvider(answer: (call: number, request: Request) => Response | Promise<Response>) {
  const sent: Sent[] = [];
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const body = (await request.clone().json()) as Record<string, unknown>;
    sent.push({ url: request.url, headers: request.headers, body });
    return answer(sent.length, request);
  });
  return sent;
}

const forRow = (sent: Sent[], text: string) => sent.filter((call) => JSON.stringify(call.body).includes(text));

describe("delivering the outbox", () => {
  it("through Resend: text and HTML parts, the product's name and link, an unsubscribe link and one-click headers for a notification, the row's id as idempotency key", async () => {
    const user = await signUp();
    const row = await queue(user.userId, "offer", "Offer accepted by resend-test.com.");
    const sent = mockProvider(() => Response.json({ id: "re_message_1" }));
    await deliverOutbox(db, resendEnv, later());
    const [call] = forRow(sent, "resend-test.com");
    expect(call!.url).toBe("https://api.resend.com/emails");
    expect(call!.headers.get("Authorization")).toBe("Bearer re_test_key");
    expect(call!.headers.get("Idempotency-Key")).toBe(row!.id);
    const body = call!.body as { from: string; to: string[]; subject: string; text: string; html: string; headers: Record<string, string> };
    expect(body.from).toBe("Backlink Market <mail@market.test>");
    expect(body.to).toEqual([user.email]);
    expect(body.text).toContain("Offer accepted by resend-test.com.");
    expect(body.text).toContain("Backlink Market: https://market.test/mysite");
    expect(body.html).toContain("Offer accepted by resend-test.com.");
    expect(body.html).toContain('href="https://market.test/mysite"');
    const unsubscribe = body.headers["List-Unsubscribe"]!;
    expect(unsubscribe).toMatch(/^<https:\/\/market\.test\/unsubscribe\?token=[a-f0-9]{32}>$/);
    expect(body.headers["List-Unsubscribe-Post"]).toBe("List-Unsubscribe=One-Click");
    expect(body.text).toContain(unsubscribe.slice(1, -1));
    expect(await rowOf(row!.id)).toMatchObject({ status: "sent", attempts: 1, transport: "resend", provider_message_id: "re_message_1" });
  });

  it("receipts and security emails carry no unsubscribe link, and a sent one-time link leaves the outbox", async () => {
    const user = await signUp();
    const receipt = await queue(user.userId, "receipt", "Thank you for your purchase of receipt-only connects.");
    const reset = await queue(user.userId, "password-reset", "Reset here: https://market.test/reset-password?token=abc");
    const sent = mockProvider(() => Response.json({ id: "re_x" }));
    await deliverOutbox(db, resendEnv, later());
    const [receiptCall] = forRow(sent, "receipt-only connects");
    expect((receiptCall!.body as { headers: Record<string, string> }).headers).toEqual({});
    expect(JSON.stringify(receiptCall!.body)).not.toContain("unsubscribe");
    expect((await rowOf(receipt!.id))!.status).toBe("sent");
    expect((await rowOf(reset!.id))!.text_body).toContain("removed");
  });

  it("429 and 500 are tried again later, with a growing delay and the same idempotency key, and sent once", async () => {
    const user = await signUp();
    const row = await queue(user.userId, "offer", "Retry me: backoff-test.com.");
    const keys: string[] = [];
    let calls = 0;
    mockProvider(async (_, request) => {
      if (!(await request.clone().text()).includes("backoff-test.com")) return Response.json({ id: "re_other" });
      calls += 1;
      keys.push(request.headers.get("Idempotency-Key")!);
      if (calls === 1) return new Response("slow down", { status: 429 });
      if (calls === 2) return new Response("oops", { status: 500 });
      return Response.json({ id: "re_after_retries" });
    });
    const start = later();
    await deliverOutbox(db, resendEnv, start);
    expect(await rowOf(row!.id)).toMatchObject({ status: "pending", attempts: 1, next_attempt_at: start + 60_000 });
    expect((await rowOf(row!.id))!.last_error).toContain("429");
    // Not due yet: nothing is sent.
    await deliverOutbox(db, resendEnv, start + 30_000);
    expect(calls).toBe(1);
    await deliverOutbox(db, resendEnv, start + 60_000);
    expect(await rowOf(row!.id)).toMatchObject({ status: "pending", attempts: 2, next_attempt_at: start + 60_000 + 120_000 });
    await deliverOutbox(db, resendEnv, start + 180_000);
    expect(await rowOf(row!.id)).toMatchObject({ status: "sent", attempts: 3, provider_message_id: "re_after_retries" });
    expect(keys).toEqual([row!.id, row!.id, row!.id]);
    await deliverOutbox(db, resendEnv, start + 2 * 24 * 3600_000);
    expect(calls).toBe(3);
  });

  it("a refusal that may pass (a rotated key: 401) is tried again; after three days undelivered an email is given up, and kept", async () => {
    const user = await signUp();
    const row = await queue(user.userId, "receipt", "Key rotated test.");
    mockProvider(() => new Response("invalid api key", { status: 401 }));
    const start = later();
    await deliverOutbox(db, resendEnv, start);
    expect(await rowOf(row!.id)).toMatchObject({ status: "pending", attempts: 1 });
    const created = (await env.DB.prepare("SELECT created_at FROM email_outbox WHERE id = ?").bind(row!.id).first<{ created_at: number }>())!
      .created_at;
    await deliverOutbox(db, resendEnv, Math.max(start + 60 * 60_000, created + 3 * 24 * 3600_000 + 1));
    const given = await rowOf(row!.id);
    expect(given).toMatchObject({ status: "failed", attempts: 2 });
    expect(given!.last_error).toContain("401");
    expect(given!.text_body).toContain("Key rotated test.");
  });

  it("the five-minute cron delivers what is due, and only that", async () => {
    const user = await signUp();
    const row = await queue(user.userId, "receipt", "Delivered by the five-minute cron.");
    const sent = mockProvider(() => Response.json({ id: "re_cron" }));
    const ctx = createExecutionContext();
    await worker.scheduled!(createScheduledController({ scheduledTime: later(), cron: "*/5 * * * *" }), resendEnv as never, ctx);
    await waitOnExecutionContext(ctx);
    expect(forRow(sent, "five-minute cron")).toHaveLength(1);
    expect(await rowOf(row!.id)).toMatchObject({ status: "sent" });
  });

  it("a provider that never answers is cut at the deadline and tried again later", async () => {
    const user = await signUp();
    const row = await queue(user.userId, "offer", "Hanging provider test.");
    vi.spyOn(globalThis, "fetch").mockImplementation(
      (_input: RequestInfo | URL, init?: RequestInit) =>
        new Promise((_resolve, reject) => init?.signal?.addEventListener("abort", () => reject(init.signal!.reason))),
    );
    const start = later();
    const began = Date.now();
    await deliverOutbox(db, resendEnv, start, { timeoutMs: 200 });
    expect(Date.now() - began).toBeLessThan(5000);
    expect(await rowOf(row!.id)).toMatchObject({ status: "pending", attempts: 1, next_attempt_at: start + 60_000 });
  });

  it("a delivery with a deadline (after a request's response) starts no send it could not end by then, and claims no more rows", async () => {
    const user = await signUp();
    // The sign-up's own confirmation email is set aside: the delivery's rows are these five.
    await env.DB.prepare("UPDATE email_outbox SET status = 'cancelled' WHERE status = 'pending'").run();
    const rows = [];
    for (let i = 1; i <= 5; i += 1) rows.push(await queue(user.userId, "offer", `Deadline row ${i}.`));
    mockProvider(async () => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      return Response.json({ id: "re_slow" });
    });
    // Sends of up to a second, 1.5 s in all: the first two start (the second ends by then), the third could not.
    const sent = await deliverOutbox(db, resendEnv, later(), { timeoutMs: 1000, deadline: Date.now() + 1500 });
    expect(sent).toBe(2);
    const states = await Promise.all(rows.map(async (row) => (await rowOf(row!.id))!));
    expect(states.map((row) => `${row.status} ${row.attempts}`).sort()).toEqual(["pending 0", "pending 0", "pending 0", "sent 1", "sent 1"]);
  });

  it("in production, with APP_URL left at its local default, holds the outbox and says why (its links would lead nowhere)", async () => {
    const user = await signUp();
    const row = await queue(user.userId, "offer", "Held for the public address.");
    const sent = mockProvider(() => Response.json({ id: "re_never" }));
    const logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const local = { ...resendEnv, APP_URL: "http://localhost:8787" } as Env;
    expect(await deliverOutbox(db, local, later())).toBe(0);
    expect(sent).toHaveLength(0);
    expect(await rowOf(row!.id)).toMatchObject({ status: "pending", attempts: 0 });
    expect(logged.mock.calls.flat().join(" ")).toContain("APP_URL");
    logged.mockRestore();
    expect(await deliverOutbox(db, resendEnv, later())).toBeGreaterThan(0);
    expect(await rowOf(row!.id)).toMatchObject({ status: "sent" });
  });

  it("two deliveries running at once send each email once", async () => {
    const user = await signUp();
    const rows = [await queue(user.userId, "offer", "Concurrent one."), await queue(user.userId, "receipt", "Concurrent two.")];
    const sent = mockProvider(async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      return Response.json({ id: "re_once" });
    });
    const at = later();
    await Promise.all([deliverOutbox(db, resendEnv, at), deliverOutbox(db, resendEnv, at), deliverOutbox(db, resendEnv, at)]);
    expect(forRow(sent, "Concurrent one.")).toHaveLength(1);
    expect(forRow(sent, "Concurrent two.")).toHaveLength(1);
    for (const row of rows) expect((await rowOf(row!.id))!.status).toBe("sent");
  });

  it("through Resend: a refusal of the message fails at once; one of the sender address or the key is tried again", async () => {
    const user = await signUp();
    const refused = await queue(user.userId, "receipt", "Resend refuses this message.");
    const badSender = await queue(user.userId, "offer", "Resend finds a bad sender address for this one.");
    mockProvider((_, request) =>
      request
        .clone()
        .text()
        .then((text) =>
          text.includes("refuses this message")
            ? Response.json({ statusCode: 422, name: "validation_error", message: "Invalid `to` field." }, { status: 422 })
            : text.includes("bad sender")
            ? Response.json({ statusCode: 422, name: "invalid_from_address", message: "Invalid `from` field." }, { status: 422 })
            : Response.json({ id: "re_ok" }),
        ),
    );
    await deliverOutbox(db, resendEnv, later());
    expect(await rowOf(refused!.id)).toMatchObject({ status: "failed", attempts: 1 });
    expect(await rowOf(badSender!.id)).toMatchObject({ status: "pending", attempts: 1 });
  });

  it("through Postmark: sent with its token; an inactive recipient fails at once; a refusal about the account or its settings is tried again", async () => {
    const user = await signUp();
    const good = await queue(user.userId, "offer", "Postmark accepts this one.");
    const bad = await queue(user.userId, "receipt", "Postmark refuses this one.");
    const unconfirmedSender = await queue(user.userId, "offer", "Postmark has no confirmed sender for this one.");
    const badSender = await queue(user.userId, "offer", "Postmark finds a bad sender address for this one.");
    const sent = mockProvider((_, request) =>
      request
        .clone()
        .text()
        .then((text) =>
          text.includes("refuses")
            ? Response.json({ ErrorCode: 406, Message: "You tried to send to a recipient that has been marked as inactive." }, { status: 422 })
            : text.includes("bad sender")
            ? Response.json({ ErrorCode: 300, Message: "Invalid 'From' address: 'mail@market.test'." }, { status: 422 })
            : text.includes("no confirmed sender")
            ? Response.json({ ErrorCode: 401, Message: "Sender signature not confirmed" }, { status: 422 })
            : Response.json({ ErrorCode: 0, MessageID: "pm-1" }),
        ),
    );
    await deliverOutbox(db, postmarkEnv, later());
    const [call] = forRow(sent, "Postmark accepts");
    expect(call!.url).toBe("https://api.postmarkapp.com/email");
    expect(call!.headers.get("X-Postmark-Server-Token")).toBe("pm-token");
    expect(call!.body).toMatchObject({ To: user.email, From: "mail@market.test" });
    expect((call!.body as { Headers: { Name: string }[] }).Headers.map((header) => header.Name)).toEqual([
      "List-Unsubscribe",
      "List-Unsubscribe-Post",
    ]);
    expect(await rowOf(good!.id)).toMatchObject({ status: "sent", transport: "postmark", provider_message_id: "pm-1" });
    expect(await rowOf(bad!.id)).toMatchObject({ status: "failed", attempts: 1 });
    expect(await rowOf(unconfirmedSender!.id)).toMatchObject({ status: "pending", attempts: 1 });
    expect(await rowOf(badSender!.id)).toMatchObject({ status: "pending", attempts: 1 });
  });

  it("through Cloudflare's send_email binding", async () => {
    const user = await signUp();
    const row = await queue(user.userId, "receipt", "Sent by the binding.");
    const send = vi.fn(async (_message: unknown) => ({ messageId: "cf-1" }));
    vi.spyOn(globalThis, "fetch").mockImplementation(async () => Response.json({}));
    const bindingEnv = { ...env, EMAIL_TRANSPORT: "cloudflare", SEND_EMAIL: { send }, EMAIL_FROM: "mail@market.test" } as unknown as Env;
    await deliverOutbox(db, bindingEnv, later());
    const message = send.mock.calls
      .map(([argument]) => argument as { to: string; text: string; html: string })
      .find((m) => m.text.includes("Sent by the binding."));
    expect(message).toMatchObject({ to: user.email, from: "mail@market.test", subject: "About receipt" });
    expect(message!.html).toContain("Sent by the binding.");
    expect(await rowOf(row!.id)).toMatchObject({ status: "sent", transport: "cloudflare", provider_message_id: "cf-1" });
  });
});

describe("turning notification emails off", () => {
  async function tokenOf(userId: string) {
    await queue(userId, "offer", "Makes the unsubscribe token.");
    mockProvider(() => Response.json({ id: "re" }));
    await deliverOutbox(db, resendEnv, later());
    vi.restoreAllMocks();
    return (await env.DB.prepare("SELECT unsubscribe_token AS token FROM users WHERE id = ?").bind(userId).first<{ token: string }>())!.token;
  }

  const wanted = async (userId: string) =>
    (await env.DB.prepare("SELECT notification_emails AS on_ FROM users WHERE id = ?").bind(userId).first<{ on_: number }>())!.on_;

  it("the link's page asks first; its button turns them off, and on again, without JavaScript", async () => {
    const user = await signUp();
    const token = await tokenOf(user.userId);
    const page = await read(await get(`/unsubscribe?token=${token}`));
    expect(page).toContain(user.email);
    expect(page).toContain("Turn off notification emails");
    expect(await wanted(user.userId)).toBe(1);

    const off = await post(`/unsubscribe?token=${token}`, { intent: "unsubscribe" });
    expect(off.headers.get("Location")).toBe(`/unsubscribe?token=${token}&done=off`);
    expect(await wanted(user.userId)).toBe(0);
    expect(await read(await get(`/unsubscribe?token=${token}&done=off`))).toContain("you will not get notification emails any more");

    await post(`/unsubscribe?token=${token}`, { intent: "resubscribe" });
    expect(await wanted(user.userId)).toBe(1);
    expect((await get("/unsubscribe?token=0123456789abcdef0123456789abcdef")).status).toBe(404);
    expect((await get("/unsubscribe?token=not-a-token")).status).toBe(404);
  });

  it("a mail provider's one-click POST (RFC 8058) turns them off, with no cookie and no page", async () => {
    const user = await signUp();
    const token = await tokenOf(user.userId);
    const response = await post(
      `/unsubscribe?token=${token}`,
      { "List-Unsubscribe": "One-Click" },
      { headers: { Origin: "", "Sec-Fetch-Site": "" } },
    );
    expect(response.status).toBe(200);
    expect(await wanted(user.userId)).toBe(0);
  });

  it("Settings turn them off and on; once off, notifications are not queued (or are dropped), while receipts still go", async () => {
    const user = await signUp();
    const before = await queue(user.userId, "offer", "Queued before turning off.");
    expect((await post("/mysite/settings", { intent: "email-preferences" }, { cookie: user.cookie })).headers.get("Location")).toBe(
      "/mysite/settings?notice=email-preferences-saved",
    );
    expect(await wanted(user.userId)).toBe(0);
    expect(await read(await get("/mysite/settings", { cookie: user.cookie }))).not.toMatch(/name="notificationEmails" value="on" checked/);

    const after = await queue(user.userId, "chat-messages", "Not queued at all.");
    expect(after).toBeNull();
    const receipt = await queue(user.userId, "receipt", "Receipts still go.");
    expect(receipt).not.toBeNull();
    mockProvider(() => Response.json({ id: "re" }));
    await deliverOutbox(db, resendEnv, later());
    expect(await rowOf(before!.id)).toMatchObject({ status: "cancelled" });
    expect(await rowOf(receipt!.id)).toMatchObject({ status: "sent" });

    await post("/mysite/settings", { intent: "email-preferences", notificationEmails: "on" }, { cookie: user.cookie });
    expect(await wanted(user.userId)).toBe(1);
  });
});

describe("the dev mailbox", () => {
  it("shows each email's text and HTML parts, its status and its attempts", async () => {
    const user = await signUp();
    await queue(user.userId, "offer", "Shown in the mailbox with both parts.");
    const response = await devFetch("/dev/mailbox");
    // Emails are styled inline: the mailbox, alone, allows it for their preview.
    expect(response.headers.get("Content-Security-Policy")).toContain("style-src 'self' 'unsafe-inline';");
    const page = await read(response);
    expect(page).toContain("Shown in the mailbox with both parts.");
    expect(page).toContain("Text part");
    expect(page).toContain("HTML part");
    expect(page).toContain("pending · 0 attempts");
    expect(page).toContain("List-Unsubscribe-Post: List-Unsubscribe=One-Click");
  });
});

/**
 * The ways an email leaves the outbox (docs/decisions/0018-email-outbox.md), chosen by configuration: the dev mailbox, Resend or Postmark
 * through their HTTP APIs, Cloudflare's `send_email` binding, or a generic HTTP endpoint.
 */
import { isDevelopment, type Env } from "./env";

export interface OutgoingMessage {
  /** The outbox row's id: the provider's idempotency key where it has one. */
  id: string;
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  headers: Record<string, string>;
}

export interface Transport {
  name: "mailbox" | "resend" | "postmark" | "cloudflare" | "http";
  /** The mailbox keeps bodies to show them; real deliveries drop one-time links once sent. */
  keepsBodies: boolean;
  send(message: OutgoingMessage, signal: AbortSignal): Promise<{ providerMessageId: string | null }>;
}

/** A failure that trying again will not fix (the provider refused the message itself). */
export class PermanentEmailError extends Error {}

/**
 * A provider's answer that is not a success. Only a refusal of the message itself (400, 422) is for good; anything
 * else (a rotated key, a domain not verified yet, a rate limit, an outage) may pass, so it is tried again.
 */
async function refusal(provider: string, response: Response): Promise<Error> {
  const detail = (await response.text().catch(() => "")).slice(0, 300);
  const message = `${provider} answered ${response.status}${detail ? `: ${detail}` : ""}`;
  return response.status === 400 || response.status === 422 ? new PermanentEmailError(message) : new Error(message);
}

/**
 * Postmark's codes for a refusal that trying again will not change: 406, the recipient is inactive (it bounced or
 * complained). Postmark answers 422 for its other codes too, and most are about the account or its settings, passing
 * once the operator acts: a sender signature not found or not confirmed (400, 401), no credits left (405), an account
 * pending or not allowed to send (412, 413), and 300 ("invalid email request"), which also names a bad sender address.
 * Those are tried again until the outbox gives up, so no reset link is lost to them.
 */
const POSTMARK_MESSAGE_REFUSALS = new Set([406]);

/** A provider's answer that is not a success, as words for the outbox's row and as the JSON it carries (or nothing). */
async function answerOf(provider: string, response: Response): Promise<{ message: string; body: Record<string, unknown> }> {
  const text = await response.text().catch(() => "");
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = null;
  }
  return {
    message: `${provider} answered ${response.status}${text ? `: ${text.slice(0, 300)}` : ""}`,
    body: typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {},
  };
}

async function postmarkRefusal(response: Response): Promise<Error> {
  const { message, body } = await answerOf("Postmark", response);
  const code = body.ErrorCode;
  return typeof code === "number" && POSTMARK_MESSAGE_REFUSALS.has(code) ? new PermanentEmailError(message) : new Error(message);
}

/**
 * Resend's error names for a refusal of the account or its settings (a sender address it will not send from, a key
 * that may not send), which it answers with 422 or 400 too: they pass once the operator acts, so they are tried again.
 */
const RESEND_SETTINGS_REFUSALS = new Set(["invalid_from_address", "invalid_access", "invalid_api_key", "restricted_api_key"]);

async function resendRefusal(response: Response): Promise<Error> {
  const { message, body } = await answerOf("Resend", response);
  const name = body.name;
  const forGood = (response.status === 400 || response.status === 422) && !(typeof name === "string" && RESEND_SETTINGS_REFUSALS.has(name));
  return forGood ? new PermanentEmailError(message) : new Error(message);
}

/** Resend's message, and the generic endpoint's: JSON with both parts and the headers, one recipient. */
function postMessage(url: string, apiKey: string, message: OutgoingMessage, signal: AbortSignal): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { Authorization: `Bearer ${apiKey}`, "Content-Type": "application/json", "Idempotency-Key": message.id },
    body: JSON.stringify({
      from: message.from,
      to: [message.to],
      subject: message.subject,
      text: message.text,
      html: message.html,
      headers: message.headers,
    }),
    signal,
  });
}

function resend(apiKey: string): Transport {
  return {
    name: "resend",
    keepsBodies: false,
    async send(message, signal) {
      const response = await postMessage("https://api.resend.com/emails", apiKey, message, signal);
      if (!response.ok) throw await resendRefusal(response);
      const body = (await response.json().catch(() => ({}))) as { id?: string };
      return { providerMessageId: body.id ?? null };
    },
  };
}

function postmark(serverToken: string): Transport {
  return {
    name: "postmark",
    keepsBodies: false,
    async send(message, signal) {
      const response = await fetch("https://api.postmarkapp.com/email", {
        method: "POST",
        headers: { "X-Postmark-Server-Token": serverToken, "Content-Type": "application/json", Accept: "application/json" },
        body: JSON.stringify({
          From: message.from,
          To: message.to,
          Subject: message.subject,
          TextBody: message.text,
          HtmlBody: message.html,
          Headers: Object.entries(message.headers).map(([Name, Value]) => ({ Name, Value })),
          MessageStream: "outbound",
          Metadata: { outboxId: message.id },
        }),
        signal,
      });
      if (!response.ok) throw await postmarkRefusal(response);
      const body = (await response.json().catch(() => ({}))) as { MessageID?: string; ErrorCode?: number; Message?: string };
      if (body.ErrorCode) {
        const message = `Postmark error ${body.ErrorCode}: ${body.Message ?? ""}`;
        throw POSTMARK_MESSAGE_REFUSALS.has(body.ErrorCode) ? new PermanentEmailError(message) : new Error(message);
      }
      return { providerMessageId: body.MessageID ?? null };
    },
  };
}

function cloudflare(binding: SendEmail): Transport {
  return {
    name: "cloudflare",
    keepsBodies: false,
    async send(message, signal) {
      const sent = binding.send({
        from: message.from,
        to: message.to,
        subject: message.subject,
        text: message.text,
        html: message.html,
        headers: message.headers,
      });
      // The binding takes no signal: the deadline races it.
      const deadline = new Promise<never>((_, reject) => {
        if (signal.aborted) reject(signal.reason);
        signal.addEventListener("abort", () => reject(signal.reason), { once: true });
      });
      const result = await Promise.race([sent, deadline]);
      return { providerMessageId: result?.messageId ?? null };
    },
  };
}

function http(url: string, apiKey: string): Transport {
  return {
    name: "http",
    keepsBodies: false,
    async send(message, signal) {
      const response = await postMessage(url, apiKey, message, signal);
      if (!response.ok) throw await refusal("The email API", response);
      return { providerMessageId: null };
    },
  };
}

/** Development's mailbox (`/dev/mailbox`): "sending" marks the email delivered there. */
const mailbox: Transport = {
  name: "mailbox",
  keepsBodies: true,
  async send() {
    return { providerMessageId: null };
  },
};

/**
 * The transport configuration names (`EMAIL_TRANSPORT`), or the first one configured: Resend, Postmark, the
 * Cloudflare binding, a generic endpoint; in development, the mailbox. Null: email waits in the outbox.
 */
export function chooseTransport(env: Env): Transport | null {
  const wanted = env.EMAIL_TRANSPORT?.trim().toLowerCase();
  const options: Record<Transport["name"], () => Transport | null> = {
    resend: () => (env.RESEND_API_KEY ? resend(env.RESEND_API_KEY) : null),
    postmark: () => (env.POSTMARK_SERVER_TOKEN ? postmark(env.POSTMARK_SERVER_TOKEN) : null),
    cloudflare: () => (env.SEND_EMAIL ? cloudflare(env.SEND_EMAIL) : null),
    http: () => (env.EMAIL_API_URL && env.EMAIL_API_KEY ? http(env.EMAIL_API_URL, env.EMAIL_API_KEY) : null),
    mailbox: () => (isDevelopment(env) ? mailbox : null),
  };
  if (wanted && wanted in options) return options[wanted as Transport["name"]]();
  for (const name of ["resend", "postmark", "cloudflare", "http", "mailbox"] as const) {
    const transport = options[name]();
    if (transport) return transport;
  }
  return null;
}

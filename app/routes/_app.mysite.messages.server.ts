/** The Messages page's server work: the conversations and the open one's history, opening a conversation, posting without JavaScript. */
import { data, redirect } from "@remix-run/cloudflare";
import { z } from "zod";
import { isClientId, messagesAddress } from "~/domain/chat";
import { formatCursor, parseCursor } from "~/domain/cursor";
import { messages } from "~/domain/messages";
import { safeRedirectPath, withNotice } from "~/domain/redirects";
import type { AppContext } from "~/lib/context";
import { readFormData } from "~/lib/forms.server";
import { requireAuth } from "~/services/auth.server";
import { chatRoom, conversationFor, listConversations, markReadUpTo, openConversation } from "~/services/chats.server";
import { loadSiteOfForm } from "~/services/layout.server";

const MESSAGES_PATH = "/mysite/messages";

function positiveInteger(value: string | null): number | null {
  return value && /^[1-9]\d{0,15}$/.test(value) ? Number(value) : null;
}

export async function loadMessagesPage(request: Request, context: AppContext) {
  const auth = await requireAuth(request, context);
  const me = auth.user.id;
  const url = new URL(request.url);
  const chatId = url.searchParams.get("chatId");
  const before = positiveInteger(url.searchParams.get("before"));
  // A later page of the list starts after the conversation its cursor names (a malformed one: the first page).
  const listFrom = parseCursor(url.searchParams.get("conversations"));
  const [list, open] = await Promise.all([
    listConversations(context.db, me, listFrom ?? undefined),
    chatId ? conversationFor(context.db, me, chatId) : null,
  ]);
  const conversations = list.rows;
  const listPage = { from: listFrom ? formatCursor(listFrom) : null, next: list.next };
  const base = { me, now: context.now(), conversations, listPage, clientId: crypto.randomUUID() };
  if (!chatId) return { ...base, open: null };
  // Someone else's conversation answers exactly as one that does not exist.
  if (!open) return data({ ...base, open: null, missing: true }, { status: 404 });

  const history = await chatRoom(context.env, open.id).history(open.ref, me, before ?? undefined);
  if (!before) await markReadUpTo(context.db, open.id, me, history.latestId);
  const { ref: _ref, ...conversation } = open;
  return {
    ...base,
    conversations: conversations.map((row) => (row.id === open.id ? { ...row, unread: false } : row)),
    open: {
      ...conversation,
      messages: history.messages,
      more: history.more,
      latestId: history.latestId,
      before,
      otherActive: history.activeUserIds.includes(open.otherUserId),
    },
  };
}

/** Opening a conversation (from an offer, a trade, a profile or a listing) and posting a message without JavaScript. */
export async function postToMessages(request: Request, context: AppContext) {
  const auth = await requireAuth(request, context);
  const formData = await readFormData(request);
  const form = Object.fromEntries(formData);
  const id = z.string().trim().min(1).max(64);
  const parsed = z
    .discriminatedUnion("intent", [
      z.object({ intent: z.literal("open"), offer: id.optional(), listing: id.optional(), returnTo: z.string().max(2000).optional() }),
      // The text is checked by the conversation itself (1 to 4,000 characters after trimming).
      // A malformed message id is only not used (isClientId below).
      z.object({ intent: z.literal("send"), text: z.string().max(100_000).default(""), clientId: z.string().max(64).optional().catch(undefined) }),
    ])
    .safeParse(form);
  if (!parsed.success) {
    // A broken "open" form still comes back to its page with the message; a broken message keeps what was typed.
    if (form.intent === "open") throw redirect(withNotice(safeRedirectPath(String(form.returnTo ?? ""), MESSAGES_PATH), "chat-failed"));
    return data({ error: messages.chatOpenFailed, text: typeof form.text === "string" ? form.text : "" }, { status: 400 });
  }
  const input = parsed.data;

  if (input.intent === "open") {
    const returnTo = safeRedirectPath(input.returnTo, MESSAGES_PATH);
    let origin;
    if (input.offer) origin = { offerId: input.offer };
    else if (input.listing) {
      // A message to a post's owner out of the blue goes from a verified site only: anyone may add any host (a famous
      // brand's) unverified, and the conversation and its emails name the sender by that host. An account without a
      // site (signed up with Google or GitHub, before its first site) has none to send from.
      const own = await loadSiteOfForm(context, auth, formData);
      if (!own?.verified) throw redirect(withNotice(returnTo, "chat-verify"));
      origin = { listingId: input.listing, ownSiteId: own.id };
    }
    const opened = origin ? await openConversation(context, auth.user.id, origin) : ({ ok: false, reason: "not-found" } as const);
    if (!opened.ok) throw redirect(withNotice(returnTo, opened.reason === "limited" ? "chat-limited" : "chat-failed"));
    throw redirect(`${MESSAGES_PATH}?chatId=${encodeURIComponent(opened.chatId)}`);
  }

  const chatId = new URL(request.url).searchParams.get("chatId") ?? "";
  const open = await conversationFor(context.db, auth.user.id, chatId);
  if (!open) return data({ error: messages.chatNotFound, text: input.text }, { status: 404 });
  const clientId = isClientId(input.clientId) ? input.clientId : null;
  const posted = await chatRoom(context.env, open.id).post(open.ref, auth.user.id, input.text, clientId);
  if (!posted.ok) return data({ error: posted.message, text: input.text }, { status: posted.reason === "rate-limited" ? 429 : 400 });
  // Back to the conversation on the page of the list it was sent from.
  const listFrom = parseCursor(new URL(request.url).searchParams.get("conversations"));
  throw redirect(`${messagesAddress({ chatId: open.id, list: listFrom && formatCursor(listFrom) })}#latest`);
}

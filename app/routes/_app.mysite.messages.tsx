import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/cloudflare";
import { Link, useActionData, useLoaderData } from "@remix-run/react";
import { useCallback, useState } from "react";
import { z } from "zod";
import { ChatView } from "~/components/chat-view";
import { SiteIcon } from "~/components/site-icon";
import type { ChatMessage } from "~/domain/chat";
import { formatMessageTime } from "~/domain/dates";
import { messages } from "~/domain/messages";
import { safeRedirectPath, withNotice } from "~/domain/redirects";
import { readFormData } from "~/lib/forms.server";
import { requireAuth } from "~/services/auth.server";
import { chatRoom, conversationFor, listConversations, markReadUpTo, openConversation } from "~/services/chats.server";
import { loadActiveSite } from "~/services/layout.server";
import { useTimeZone } from "~/components/use-time-zone";

export const meta: MetaFunction = () => [{ title: "Messages - Backlink Market" }];

const MESSAGES_PATH = "/mysite/messages";

function positiveInteger(value: string | null): number | null {
  return value && /^[1-9]\d{0,15}$/.test(value) ? Number(value) : null;
}

export async function loader({ request, context }: LoaderFunctionArgs) {
  const auth = await requireAuth(request, context);
  const me = auth.user.id;
  const url = new URL(request.url);
  const chatId = url.searchParams.get("chatId");
  const before = positiveInteger(url.searchParams.get("before"));
  const [conversations, open] = await Promise.all([listConversations(context.db, me), chatId ? conversationFor(context.db, me, chatId) : null]);
  const base = { me, now: context.now(), conversations, clientId: crypto.randomUUID() };
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
export async function action({ request, context }: ActionFunctionArgs) {
  const auth = await requireAuth(request, context);
  const form = Object.fromEntries(await readFormData(request));
  const id = z.string().trim().min(1).max(64);
  const parsed = z
    .discriminatedUnion("intent", [
      z.object({ intent: z.literal("open"), offer: id.optional(), listing: id.optional(), returnTo: z.string().max(2000).optional() }),
      // The text is checked by the conversation itself (1 to 4,000 characters after trimming).
      z.object({ intent: z.literal("send"), text: z.string().max(100_000).default(""), clientId: z.string().max(64).optional() }),
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
    else if (input.listing) origin = { listingId: input.listing, ownSiteId: (await loadActiveSite(context, auth))?.id ?? null };
    const opened = origin ? await openConversation(context, auth.user.id, origin) : ({ ok: false, reason: "not-found" } as const);
    if (!opened.ok) throw redirect(withNotice(returnTo, opened.reason === "limited" ? "chat-limited" : "chat-failed"));
    throw redirect(`${MESSAGES_PATH}?chatId=${encodeURIComponent(opened.chatId)}`);
  }

  const chatId = new URL(request.url).searchParams.get("chatId") ?? "";
  const open = await conversationFor(context.db, auth.user.id, chatId);
  if (!open) return data({ error: messages.chatNotFound, text: input.text }, { status: 404 });
  const clientId = input.clientId && /^[A-Za-z0-9_-]{8,64}$/.test(input.clientId) ? input.clientId : null;
  const posted = await chatRoom(context.env, open.id).post(open.ref, auth.user.id, input.text, clientId);
  if (!posted.ok) return data({ error: posted.message, text: input.text }, { status: posted.reason === "rate-limited" ? 429 : 400 });
  throw redirect(`${MESSAGES_PATH}?chatId=${encodeURIComponent(open.id)}#latest`);
}

export default function MessagesPage() {
  const timeZone = useTimeZone();
  const loaded = useLoaderData<typeof loader>();
  const failure = useActionData<typeof action>();
  const { conversations, open, me, now } = loaded;
  // The newest message of the open conversation, as it arrives live, for its row in the list.
  const [latest, setLatest] = useState<{ chatId: string; message: ChatMessage } | null>(null);
  const openId = open?.id;
  const onLatest = useCallback(
    (message: ChatMessage) => {
      if (openId) setLatest({ chatId: openId, message });
    },
    [openId],
  );

  return (
    <div className={`messages-page${open ? " has-open" : ""}`}>
      <section className="card conversations" aria-labelledby="messages-title">
        <h2 id="messages-title">Messages</h2>
        {conversations.length === 0 ? (
          <p className="empty">{messages.noMessages}</p>
        ) : (
          <ul className="conversation-list">
            {conversations.map((row) => {
              const live = latest && latest.chatId === row.id && latest.message.id > row.lastMessageId ? latest.message : null;
              const lastText = live ? live.text : row.lastMessage;
              const fromMe = live ? live.senderId === me : row.lastFromMe;
              return (
                <li key={row.id}>
                  <Link to={`${MESSAGES_PATH}?chatId=${row.id}`} className="conversation-row" aria-current={open?.id === row.id ? "page" : undefined}>
                    <SiteIcon icon={row.otherIcon} size={40} />
                    <span className="conversation-main">
                      <span className="conversation-site">{row.otherHost}</span>
                      <span className="conversation-last">{lastText ? `${fromMe ? "You: " : ""}${lastText}` : "No messages yet"}</span>
                    </span>
                    <span className="conversation-meta">
                      <time dateTime={new Date(live?.createdAt ?? row.lastUpdated).toISOString()}>
                        {formatMessageTime(live?.createdAt ?? row.lastUpdated, now, timeZone)}
                      </time>
                      {row.unread ? (
                        <span className="unread-dot">
                          <span className="visually-hidden">Unread</span>
                        </span>
                      ) : null}
                    </span>
                  </Link>
                </li>
              );
            })}
          </ul>
        )}
      </section>

      {open ? (
        <ChatView
          key={open.id}
          chatId={open.id}
          me={me}
          otherUserId={open.otherUserId}
          otherHost={open.otherHost}
          otherIcon={open.otherIcon}
          messages={open.messages}
          more={open.more}
          before={open.before}
          latestId={open.latestId}
          otherActive={open.otherActive}
          now={now}
          clientId={loaded.clientId}
          failure={failure && "text" in failure ? failure : null}
          onLatest={onLatest}
        />
      ) : "missing" in loaded ? (
        <section className="card chat-placeholder chat-missing">
          <p className="form-error" role="alert">
            {messages.chatNotFound}
          </p>
        </section>
      ) : conversations.length > 0 ? (
        <section className="card chat-placeholder">
          <p className="muted">Choose a conversation.</p>
        </section>
      ) : null}
    </div>
  );
}

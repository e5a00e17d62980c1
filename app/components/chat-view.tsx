import { Form, Link, useNavigation } from "@remix-run/react";
import { useEffect, useRef, useState, type FormEvent, type KeyboardEvent } from "react";
import {
  CHAT_REFUSALS,
  checkMessageText,
  MAX_MESSAGE_LENGTH,
  mergeMessages,
  messagesAddress,
  type ChatMessage,
  type OpenConversation,
  type ServerEvent,
} from "~/domain/chat";
import { formatMessageTime } from "~/domain/dates";
import { SiteIcon } from "./site-icon";
import { useChatSocket } from "./use-chat-socket";
import { useHydrated } from "./use-hydrated";
import { useTimeZone } from "./use-time-zone";

export interface ChatViewProps {
  /** The conversation with the page of messages the server rendered. */
  conversation: OpenConversation;
  me: string;
  now: number;
  /** A fresh id for a post without JavaScript, so sending the same form twice stores one message. */
  clientId: string;
  /** A post the server refused, with what was typed. */
  failure?: { error: string; text: string } | null;
  /** Tells the page about the newest message, for the list beside it. */
  onLatest?: (message: ChatMessage) => void;
  /** The page of the list of conversations shown beside it (its cursor; null for the first): its links keep it. */
  list: string | null;
}

interface Pending {
  clientId: string;
  text: string;
}

const COUNTER_FROM = MAX_MESSAGE_LENGTH - 400;

/**
 * One conversation. Without JavaScript it is a page: the form posts a message and the answer redirects back.
 * With JavaScript it is live over the conversation's WebSocket, and falls back to posting while it reconnects.
 */
export function ChatView(props: ChatViewProps) {
  const timeZone = useTimeZone();
  const { conversation, me, now, failure, onLatest, list } = props;
  const { id: chatId, otherUserId, otherHost } = conversation;
  const hydrated = useHydrated();
  const [messages, setMessages] = useState(conversation.messages);
  const [pending, setPending] = useState<Pending[]>([]);
  const [otherActive, setOtherActive] = useState(conversation.otherActive);
  const [text, setText] = useState(failure?.text ?? "");
  const [error, setError] = useState(failure?.error);
  const lastId = useRef(0);
  const pendingRef = useRef<Pending[]>([]);

  // A new page from the server (after a post without the socket, or older messages) joins what is shown.
  useEffect(() => setMessages((current) => mergeMessages(current, conversation.messages)), [conversation.messages]);
  useEffect(() => setError(failure?.error), [failure]);
  useEffect(() => {
    const latest = messages.at(-1);
    lastId.current = latest?.id ?? 0;
    if (latest) onLatest?.(latest);
  }, [messages, onLatest]);
  useEffect(() => {
    pendingRef.current = pending;
  }, [pending]);

  const confirm = (stored: ChatMessage[]) => {
    const ids = new Set(stored.map((message) => message.clientId));
    setPending((current) => current.filter((item) => !ids.has(item.clientId)));
  };

  const { status, send } = useChatSocket(chatId, {
    after: () => Math.max(lastId.current, conversation.latestId),
    onEvent: (event: ServerEvent) => {
      switch (event.type) {
        case "message":
          setMessages((current) => mergeMessages(current, [event.message]));
          confirm([event.message]);
          break;
        case "history": {
          setMessages((current) => mergeMessages(current, event.messages));
          confirm(event.messages);
          const last = event.messages.at(-1);
          if (event.more && last) {
            send({ type: "sync", after: last.id });
          } else {
            // Messages typed before a drop that never reached the conversation go again (stored once by their id).
            const stored = new Set(event.messages.map((message) => message.clientId));
            for (const item of pendingRef.current) if (!stored.has(item.clientId)) send({ type: "send", clientId: item.clientId, text: item.text });
          }
          break;
        }
        case "presence":
          setOtherActive(event.activeUserIds.includes(otherUserId));
          break;
        case "refused": {
          // Each refused message comes back into the box, after what is there (several refused one after another
          // keep their order), so none is lost.
          const refused = pendingRef.current.find((item) => item.clientId === event.clientId)?.text;
          // Out of the list at once (the effect that copies it runs later): refused again, or a resend after a history,
          // it must not come back twice.
          pendingRef.current = pendingRef.current.filter((item) => item.clientId !== event.clientId);
          setPending((current) => current.filter((item) => item.clientId !== event.clientId));
          setText((current) => [current, refused].filter(Boolean).join("\n\n"));
          setError(event.message);
          break;
        }
      }
    },
  });

  // Signed out (elsewhere, or the session ended), waiting messages cannot go: they come back into the box, not lost.
  useEffect(() => {
    if (status !== "signed-out") return;
    const waiting = pendingRef.current.map((item) => item.text);
    pendingRef.current = [];
    setPending([]);
    setText((current) => [current, ...waiting].filter(Boolean).join("\n\n"));
  }, [status]);

  // A post made while the socket was away takes its text out of the box once the server has taken it; what was
  // typed meanwhile stays.
  const navigation = useNavigation();
  const posting = navigation.state !== "idle" && navigation.formData?.get("intent") === "send";
  const postingText = posting ? String(navigation.formData?.get("text") ?? "") : null;
  const posted = useRef<string | null>(null);
  useEffect(() => {
    const sent = posted.current;
    posted.current = postingText;
    if (postingText !== null || sent === null || failure) return;
    setText((current) => (current.startsWith(sent) ? current.slice(sent.length).trimStart() : current));
  }, [postingText, failure]);

  // The server's own check: a text of spaces or of characters that show as nothing is not sent.
  const checked = checkMessageText(text);
  const empty = !checked.ok && checked.reason === "empty";
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    // Enter while a post made without the socket is out (the disabled Send button does not stop requestSubmit): the
    // same text would go a second time, by the socket if it has opened meanwhile, as another message.
    if (posting || !checked.ok) {
      event.preventDefault();
      // Too long (a refused message put back in the box can be, past the box's own limit): say so, as the server would.
      if (!checked.ok && checked.reason === "too-long") setError(CHAT_REFUSALS["too-long"]);
      return;
    }
    const clientId = crypto.randomUUID();
    // Offline, the message waits as "Sending…" and goes when the socket is back; online without a socket, the
    // form posts instead.
    if (!send({ type: "send", clientId, text: checked.text }) && navigator.onLine) return;
    event.preventDefault();
    setPending((current) => [...current, { clientId, text: checked.text }]);
    setText("");
    setError(undefined);
    // Send, pressed, is disabled with the box empty: the box keeps the focus for the next message.
    document.getElementById("chat-text")?.focus();
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    // Safari ends an input method's composition with an Enter that says isComposing false, keyCode 229.
    if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing && event.nativeEvent.keyCode !== 229) {
      event.preventDefault();
      event.currentTarget.form?.requestSubmit();
    }
  };

  const first = messages[0];
  return (
    <section className="card chat" aria-labelledby="chat-title">
      <header className="chat-head">
        <Link to={messagesAddress({ list })} className="text-link small chat-back">
          ← All messages
        </Link>
        <SiteIcon icon={conversation.otherIcon} size={40} />
        <div>
          <h2 id="chat-title" className="user-text">
            {otherHost}
          </h2>
          <p className="muted small chat-presence">{otherActive ? "Active now" : "Away"}</p>
        </div>
        {/* On the page from the start, so that what comes into it is announced. */}
        <p className="chat-status" role="status">
          {hydrated && status === "connecting" ? "Connecting…" : null}
          {status === "signed-out" ? (
            <>
              You were signed out. <a href="/login">Log in</a> to go on.
            </>
          ) : null}
        </p>
      </header>

      <div className="chat-scroll">
        <div className="chat-log" role="log" aria-label={`Messages with ${otherHost}`}>
          {conversation.more && first ? (
            <Link to={messagesAddress({ chatId, before: first.id, list })} className="text-link small chat-earlier" preventScrollReset>
              Show earlier messages
            </Link>
          ) : null}
          {messages.length === 0 && pending.length === 0 ? <p className="muted chat-empty">No messages yet. Say hello to {otherHost}.</p> : null}
          <ol className="chat-messages">
            {messages.map((message) => (
              <li key={message.id} className={message.senderId === me ? "chat-message mine" : "chat-message theirs"}>
                <span className="visually-hidden">{message.senderId === me ? "You" : otherHost}:</span>
                <p className="chat-text">{message.text}</p>
                <time dateTime={new Date(message.createdAt).toISOString()}>{formatMessageTime(message.createdAt, now, timeZone)}</time>
              </li>
            ))}
            {pending.map((item) => (
              <li key={item.clientId} className="chat-message mine pending">
                <span className="visually-hidden">You:</span>
                <p className="chat-text">{item.text}</p>
                <span className="small">Sending…</span>
              </li>
            ))}
          </ol>
          {conversation.before ? (
            <Link to={messagesAddress({ chatId, list })} className="text-link small">
              Back to the latest messages
            </Link>
          ) : null}
        </div>
      </div>

      <Form
        method="post"
        action={messagesAddress({ chatId, list })}
        className="chat-compose"
        id="latest"
        onSubmit={onSubmit}
        preventScrollReset
        // A page restored by Back must not bring back the last message's id with new text.
        autoComplete="off"
      >
        <input type="hidden" name="intent" value="send" />
        <input type="hidden" name="clientId" value={props.clientId} />
        <label className="visually-hidden" htmlFor="chat-text">
          Message to {otherHost}
        </label>
        <textarea
          id="chat-text"
          name="text"
          rows={2}
          maxLength={MAX_MESSAGE_LENGTH}
          placeholder="Write a message"
          value={text}
          onChange={(event) => setText(event.target.value)}
          onKeyDown={onKeyDown}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? "chat-error" : undefined}
        />
        <button type="submit" className="button button-primary" disabled={hydrated && (empty || posting)}>
          Send
        </button>
        {text.length > COUNTER_FROM ? (
          <p className="muted small chat-counter">
            {text.length.toLocaleString("en-US")} / {MAX_MESSAGE_LENGTH.toLocaleString("en-US")}
          </p>
        ) : null}
        {error ? (
          <p className="form-error chat-error" id="chat-error" role="alert">
            {error}
          </p>
        ) : null}
      </Form>
    </section>
  );
}

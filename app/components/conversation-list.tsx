import { Link } from "@remix-run/react";
import type { ChatMessage, Conversation } from "~/domain/chat";
import { formatMessageTime } from "~/domain/dates";
import { messages } from "~/domain/messages";
import { SiteIcon } from "./site-icon";
import { useTimeZone } from "./use-time-zone";

/**
 * The user's conversations, newest first, each with its last message (`latest`, the open conversation's newest as it
 * arrives live, when it is newer than the row's) and an unread mark. `openId` is the conversation shown beside them.
 */
export function ConversationList({
  conversations,
  openId,
  me,
  now,
  latest,
}: {
  conversations: readonly Conversation[];
  openId: string | undefined;
  me: string;
  now: number;
  latest: { chatId: string; message: ChatMessage } | null;
}) {
  const timeZone = useTimeZone();
  return (
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
                <Link to={`/mysite/messages?chatId=${row.id}`} className="conversation-row" aria-current={openId === row.id ? "page" : undefined}>
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
  );
}

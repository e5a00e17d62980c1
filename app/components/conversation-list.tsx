import { Link } from "@remix-run/react";
import { messagesAddress, type ChatMessage, type Conversation } from "~/domain/chat";
import { formatMessageTime } from "~/domain/dates";
import { messages } from "~/domain/messages";
import { SiteIcon } from "./site-icon";
import { useTimeZone } from "./use-time-zone";

/**
 * A page of the user's conversations, newest first, each with its last message (`latest`, the open conversation's
 * newest as it arrives live, when it is newer than the row's) and an unread mark. `openId` is the conversation shown
 * beside them; `page` says where this page starts (null: the first) and where the next one does.
 */
export function ConversationList({
  conversations,
  page,
  openId,
  me,
  now,
  latest,
}: {
  conversations: readonly Conversation[];
  page: { from: string | null; next: string | null };
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
        // A later page can come up empty (its older conversations have moved up since): not "no messages at all".
        <p className="empty">{page.from ? "No older conversations." : messages.noMessages}</p>
      ) : (
        <ul className="conversation-list">
          {conversations.map((row) => {
            const live = latest && latest.chatId === row.id && latest.message.id > row.lastMessageId ? latest.message : null;
            const lastText = live ? live.text : row.lastMessage;
            const fromMe = live ? live.senderId === me : row.lastFromMe;
            return (
              <li key={row.id}>
                <Link
                  to={messagesAddress({ chatId: row.id, list: page.from })}
                  className="conversation-row"
                  aria-current={openId === row.id ? "page" : undefined}
                >
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
      {page.from || page.next ? (
        <nav className="button-row conversation-pages" aria-label="Pages of conversations">
          {page.from ? (
            <Link to={messagesAddress({ chatId: openId })} className="text-link small">
              Newest conversations
            </Link>
          ) : null}
          {page.next ? (
            <Link to={messagesAddress({ chatId: openId, list: page.next })} className="text-link small">
              Older conversations
            </Link>
          ) : null}
        </nav>
      ) : null}
    </section>
  );
}

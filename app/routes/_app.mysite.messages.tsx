import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { useActionData, useLoaderData } from "@remix-run/react";
import { useCallback, useState } from "react";
import { ChatView } from "~/components/chat-view";
import { ConversationList } from "~/components/conversation-list";
import { useViewerNow } from "~/components/use-viewer-now";
import type { ChatMessage } from "~/domain/chat";
import { messages } from "~/domain/messages";
import { loadMessagesPage, postToMessages } from "./_app.mysite.messages.server";

export const meta: MetaFunction = () => [{ title: "Messages - Backlink Market" }];

export const loader = ({ request, context }: LoaderFunctionArgs) => loadMessagesPage(request, context);

export const action = ({ request, context }: ActionFunctionArgs) => postToMessages(request, context);

export default function MessagesPage() {
  const loaded = useLoaderData<typeof loader>();
  const failure = useActionData<typeof action>();
  const { conversations, open, me } = loaded;
  // The newest message of the open conversation, as it arrives live, for its row in the list.
  const [latest, setLatest] = useState<{ chatId: string; message: ChatMessage } | null>(null);
  const now = useViewerNow(loaded.now, latest);
  const openId = open?.id;
  const onLatest = useCallback(
    (message: ChatMessage) => {
      if (openId) setLatest({ chatId: openId, message });
    },
    [openId],
  );

  return (
    <div className={`messages-page${open ? " has-open" : ""}`}>
      <ConversationList conversations={conversations} page={loaded.listPage} openId={openId} me={me} now={now} latest={latest} />
      {open ? (
        <ChatView
          key={open.id}
          conversation={open}
          me={me}
          now={now}
          clientId={loaded.clientId}
          failure={failure && "text" in failure ? failure : null}
          onLatest={onLatest}
          list={loaded.listPage.from}
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

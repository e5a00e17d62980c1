import { Form, useLocation, useNavigation } from "@remix-run/react";
import { useSignedInShell } from "./use-signed-in-shell";

/**
 * Opens the conversation with the other party of an offer, a trade or a listing (or the existing one; decision
 * 17). A plain form post, so it works without JavaScript; a failure comes back to this page as a toast.
 */
export function OpenChatForm({ offerId, listingId, label = "Send a message" }: { offerId?: string; listingId?: string; label?: string }) {
  const navigation = useNavigation();
  const location = useLocation();
  // From a listing, the conversation is about the site the header shows, even if another tab switches the active site.
  const sender = useSignedInShell()?.activeSite?.id;
  const busy = navigation.state === "submitting" && navigation.formAction === "/mysite/messages" && navigation.formData?.get("intent") === "open";
  return (
    <Form method="post" action="/mysite/messages" className="open-chat">
      <input type="hidden" name="intent" value="open" />
      {offerId ? <input type="hidden" name="offer" value={offerId} /> : null}
      {listingId ? <input type="hidden" name="listing" value={listingId} /> : null}
      {listingId && sender ? <input type="hidden" name="siteId" value={sender} /> : null}
      <input type="hidden" name="returnTo" value={`${location.pathname}${location.search}`} />
      <button type="submit" className="button button-outline" disabled={busy} aria-busy={busy}>
        {label}
      </button>
    </Form>
  );
}

import { useNavigate, useNavigation } from "@remix-run/react";
import { useEffect } from "react";
import { RECHECK_SECONDS, recheckAddress, type CheckoutState } from "~/domain/connects";
import { messages } from "~/domain/messages";

/** Where a payment the user came back from stands (`checkoutState`), and what the page needs to look again. */
export interface CheckoutReturn {
  state: CheckoutState;
  sessionId: string;
  tries: number;
  /** The connects the payment added, once credited. */
  credited: number | null;
}

/**
 * The notice shown back from Stripe's checkout. While the payment's connects are on their way, the page looks again
 * every few seconds: in place with JavaScript, by a refresh without it.
 */
export function CheckoutNotice({ checkout }: { checkout: CheckoutReturn }) {
  const { state, sessionId, tries, credited } = checkout;
  const navigate = useNavigate();
  // Not while the user is going somewhere (a link, a form): the look would cancel it. It comes once that is over.
  const idle = useNavigation().state === "idle";
  useEffect(() => {
    if (state !== "pending" || !idle) return;
    const timer = setTimeout(
      () => navigate(recheckAddress(sessionId, tries + 1), { replace: true, preventScrollReset: true }),
      RECHECK_SECONDS * 1000,
    );
    return () => clearTimeout(timer);
  }, [state, sessionId, tries, navigate, idle]);
  if (state === "credited") {
    return (
      <p className="notice-banner success" role="status">
        Payment received: {credited} connects added to your balance.
      </p>
    );
  }
  if (state === "failed") {
    return (
      <p className="notice-banner error" role="status">
        {messages.paymentFailed}
      </p>
    );
  }
  return (
    <p className="notice-banner" role="status">
      {state === "pending" ? messages.paymentReceived : messages.paymentProcessing}
      {state === "pending" ? (
        <noscript>
          <meta httpEquiv="refresh" content={`${RECHECK_SECONDS}; url=${recheckAddress(sessionId, tries + 1)}`} />
        </noscript>
      ) : null}
    </p>
  );
}

/** The Connects page's server work: the balance, lots and ledger, a payment's return, and buying a bundle. */
import { data, redirect } from "@remix-run/cloudflare";
import { z } from "zod";
import { CONNECT_BUNDLES } from "~/domain/bundles";
import { checkoutState, MAX_RECHECKS } from "~/domain/connects";
import { messages } from "~/domain/messages";
import type { AppContext } from "~/lib/context";
import { isLocalRequest, requireDevTools } from "~/lib/dev-tools.server";
import { readFormData } from "~/lib/forms.server";
import { requireAuth } from "~/services/auth.server";
import { checkoutOutcome, makeTestPurchase, paymentConfig, paymentLinkFor } from "~/services/payments.server";
import { connectLotsOf, ledgerPage } from "~/services/trades-read.server";
import { cursorParam } from "~/domain/validation";

export async function loadConnectsPage(request: Request, context: AppContext) {
  const auth = await requireAuth(request, context);
  const url = new URL(request.url);
  const config = paymentConfig(context.env);
  const given = url.searchParams.get("session_id");
  const sessionId = given && given.length <= 200 ? given : null;
  // Back from Stripe's checkout (its success address): only then is the checkout's crediting asked about.
  const returned = url.searchParams.get("checkout") === "success" && sessionId !== null;
  // Where the history's page starts (`?history=`, the last move of the page before); a malformed link starts it at
  // the newest, with the message, answered 400.
  const { position, refused } = cursorParam(url.searchParams, "history");
  const [{ lots, more }, history, outcome] = await Promise.all([
    connectLotsOf(context.db, auth.user.id, context.now()),
    ledgerPage(context.db, auth.user.id, position ?? undefined),
    returned ? checkoutOutcome(context.db, auth.user.id, sessionId) : null,
  ]);
  const tries = Math.min(Number.parseInt(url.searchParams.get("tries") ?? "0", 10) || 0, MAX_RECHECKS);
  const page = {
    available: auth.user.connects,
    held: auth.user.connectsHeld,
    lots,
    moreLots: more,
    history: history.shown,
    olderHistory: history.next,
    // A later page of the history: the page links back to the newest.
    historyPaged: position !== null,
    refused,
    now: context.now(),
    // Back from Stripe's checkout: the webhook may not have landed yet.
    checkout: returned
      ? { state: checkoutState(outcome, tries), sessionId, tries, credited: outcome !== null && outcome !== "failed" ? outcome.credited : null }
      : null,
    canPay: CONNECT_BUNDLES.some((bundle) => config.links.has(bundle.connects)),
    testPurchases: config.testPurchases && isLocalRequest(request),
    pricingTable: config.pricingTable ? { ...config.pricingTable, clientReferenceId: auth.user.id, email: auth.user.email } : null,
  };
  return refused ? data(page, { status: 400 }) : page;
}

/** Paying goes to the chosen bundle's Payment Link; in development without Stripe, a test purchase. */
export async function buyConnects(request: Request, context: AppContext) {
  const auth = await requireAuth(request, context);
  const parsed = z
    .object({ intent: z.enum(["pay", "test-purchase"]), bundle: z.coerce.number().int() })
    .safeParse(Object.fromEntries(await readFormData(request)));
  const bundle = parsed.success ? CONNECT_BUNDLES.find((candidate) => candidate.connects === parsed.data.bundle) : undefined;
  if (!parsed.success || !bundle) return data({ error: messages.chooseBundle }, { status: 400 });
  const config = paymentConfig(context.env);
  if (parsed.data.intent === "test-purchase") {
    // Development on this machine only, like the dev mailbox (a staging deploy marked development has no free connects).
    requireDevTools(request, context.env);
    const answer = await makeTestPurchase(context, { id: auth.user.id, email: auth.user.email }, bundle.connects);
    if (answer.status !== 200) return data({ error: answer.message, bundle: bundle.connects }, { status: answer.status === 404 ? 404 : 500 });
    throw redirect("/mysite/connects?notice=test-purchase");
  }
  const link = paymentLinkFor(config, bundle.connects, { id: auth.user.id, email: auth.user.email });
  if (!link) return data({ error: messages.paymentsOff, bundle: bundle.connects }, { status: 404 });
  throw redirect(link);
}

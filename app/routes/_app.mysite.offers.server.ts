/** The Offers page's server work: its lists and the open offer, and the answers and moves posted from the panel. */
import { data, redirect } from "@remix-run/cloudflare";
import type { AppContext } from "~/lib/context";
import { firstError, parseForm, readFormData } from "~/lib/forms.server";
import { messages } from "~/domain/messages";
import { offerActionSchema } from "~/domain/validation";
import { requireAuth } from "~/services/auth.server";
import { loadActiveSite } from "~/services/layout.server";
import { actOnOffer } from "~/services/offer-answers.server";
import { offerDetail } from "~/services/offer-detail.server";
import { moveTradeEntry } from "~/services/trade-progress.server";
import { offersAndTrades } from "~/services/trades-read.server";

export async function loadOffersPage(request: Request, context: AppContext) {
  const auth = await requireAuth(request, context);
  const site = await loadActiveSite(context, auth);
  const offerId = new URL(request.url).searchParams.get("offer");
  const [lists, detail] = await Promise.all([
    site ? offersAndTrades(context.db, auth.user.id, site.id) : { offers: [], trades: [] },
    offerId && offerId.length <= 64 ? offerDetail(context.db, auth.user.id, offerId) : null,
  ]);
  return { ...lists, detail, now: context.now() };
}

/** Every answer and every move is checked again here; the browser only asks. */
export async function changeOffer(request: Request, context: AppContext) {
  const auth = await requireAuth(request, context);
  const offerId = new URL(request.url).searchParams.get("offer") ?? "";
  const parsed = parseForm(await readFormData(request), offerActionSchema);
  if (!parsed.ok) {
    // What was typed comes back with the message (the page shows it again without JavaScript).
    return data(
      { error: firstError(parsed.errors, "contentUrl") ?? messages.offerChangeRefused, contentUrl: parsed.values.contentUrl ?? null },
      { status: 400 },
    );
  }
  const input = parsed.value;
  const result =
    input.intent === "move"
      ? await moveTradeEntry(context, auth.user, offerId, input.to, input.contentUrl || null)
      : await actOnOffer(context, auth.user, offerId, input.intent, input.intent === "accept" ? input.materials : []);
  // A refusal keeps the content url that was typed (the page shows it again without JavaScript).
  if (!result.ok)
    return data({ error: result.message, contentUrl: input.intent === "move" ? input.contentUrl || null : null }, { status: result.status });
  throw redirect(input.intent === "trash" ? "/mysite/offers" : `/mysite/offers?offer=${offerId}`);
}

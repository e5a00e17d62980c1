/** The Offers page's server work: a page of each list and the open offer, and the answers and moves posted from the panel. */
import { data, redirect } from "@remix-run/cloudflare";
import type { AppContext } from "~/lib/context";
import { firstError, parseForm, readFormData } from "~/lib/forms.server";
import { messages } from "~/domain/messages";
import { LIST_PARAMS, listQuery, offersPageHref } from "~/domain/offer-links";
import { cursorParam, offerActionSchema } from "~/domain/validation";
import { requireAuth, requireAuthWith } from "~/services/auth.server";
import { activateSiteById, loadActiveSite } from "~/services/layout.server";
import { actOnOffer } from "~/services/offer-answers.server";
import { offerDetail, ownSiteOfOffer } from "~/services/offer-detail.server";
import { FIRST_PAGES, offerListsOf, offerListsStatements, type OfferLists, type OfferListPositions } from "~/services/offer-lists.server";
import { moveTradeEntry } from "~/services/trade-progress.server";

const NO_LISTS: OfferLists = { offers: { rows: [], next: null }, trades: { rows: [], next: null } };

/**
 * Where each list starts, from the address (docs/decisions/0026-offers-paging.md). A malformed cursor starts its list
 * at the beginning and comes back as the message to show.
 */
function listPositions(params: URLSearchParams): { positions: OfferListPositions; refused: string | null } {
  const positions = { ...FIRST_PAGES };
  let refused: string | null = null;
  for (const name of LIST_PARAMS) {
    const { position, refused: malformed } = cursorParam(params, name);
    if (position) positions[name] = position;
    refused = malformed ?? refused;
  }
  return { positions, refused };
}

export async function loadOffersPage(request: Request, context: AppContext) {
  const params = new URL(request.url).searchParams;
  const { positions, refused } = listPositions(params);
  const offerId = params.get("offer");
  // The lists are always the active site's (a cursor is only a position in them), read in the session's round trip.
  const [{ auth, rows }, detail] = await Promise.all([
    requireAuthWith(request, context, (viewer) => offerListsStatements(context.db, viewer, positions)),
    offerId && offerId.length <= 64 ? requireAuth(request, context).then((auth) => offerDetail(context.db, auth.user.id, offerId)) : null,
  ]);
  const site = await loadActiveSite(context, auth);
  // An offer of the user's other site (opened from its email): that site becomes the active one, as the switcher makes
  // it, so the lists behind the panel are the offer's own site's, at their first pages.
  if (detail && site && detail.ownSite.id !== site.id && (await activateSiteById(context, auth, detail.ownSite.id))) {
    const view = params.get("view") === "profile" ? "profile" : undefined;
    throw redirect(offersPageHref("", { id: detail.id, view }));
  }
  const lists = site ? offerListsOf(site.id, rows) : NO_LISTS;
  const page = { ...lists, list: listQuery(positions), refused, detail, now: context.now() };
  // A malformed page link is the request's fault: the first page comes with the message, answered 400.
  return refused ? data(page, { status: 400 }) : page;
}

/** Every answer and every move is checked again here; the browser only asks. */
export async function changeOffer(request: Request, context: AppContext) {
  const auth = await requireAuth(request, context);
  const params = new URL(request.url).searchParams;
  const offerId = params.get("offer") ?? "";
  const parsed = parseForm(await readFormData(request), offerActionSchema);
  if (!parsed.ok) {
    // What was typed comes back with the message (the page shows it again without JavaScript).
    return data(
      { error: firstError(parsed.errors, "contentUrl") ?? messages.offerChangeRefused, contentUrl: parsed.values.contentUrl ?? null },
      { status: 400 },
    );
  }
  const input = parsed.value;
  // The answer is about the user's site in this offer, which becomes the active site if another tab switched away
  // from it: the page this request renders (a refusal without JavaScript) shows that site's lists behind the panel.
  const ownSiteId = await ownSiteOfOffer(context.db, auth.user.id, offerId);
  if (ownSiteId) await activateSiteById(context, auth, ownSiteId);
  const result =
    input.intent === "move"
      ? await moveTradeEntry(context, auth.user, offerId, input.to, input.contentUrl || null)
      : await actOnOffer(context, auth.user, offerId, input.intent, input.intent === "accept" ? input.materials : []);
  // A refusal keeps the content url that was typed and the materials chosen (the page shows them again without
  // JavaScript).
  if (!result.ok) {
    const kept = {
      contentUrl: input.intent === "move" ? input.contentUrl || null : null,
      materials: input.intent === "accept" ? input.materials : null,
    };
    return data({ error: result.message, help: result.help ?? null, ...kept }, { status: result.status });
  }
  // Back to the lists' pages the panel was opened from.
  const list = listQuery(listPositions(params).positions);
  throw redirect(input.intent === "trash" ? offersPageHref(list) : offersPageHref(list, { id: offerId }));
}

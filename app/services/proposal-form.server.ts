/** The trade terms panel's proposal as a form post, from the market or the search results, which both show the panel. */
import { data, redirect } from "@remix-run/cloudflare";
import type { AppContext } from "~/lib/context";
import { chosenValues, parseForm, readFormData } from "~/lib/forms.server";
import { messages } from "~/domain/messages";
import { withNotice } from "~/domain/redirects";
import { proposalSchema } from "~/domain/validation";
import { requireAuth } from "./auth.server";
import { loadSiteOfForm } from "./layout.server";
import { propose } from "./offer-proposal.server";

const PROPOSAL_CHOICES = ["myContentType", "theirContentType", "myMaterials", "theirMaterials"];

/**
 * Sends the posted proposal. Sent, the user goes back to `back` (a page of this site, with the list where they were)
 * with the "Offer sent" notice, the panel closed; refused, the page shows the message with the choices made.
 */
export async function proposalFormAction(request: Request, context: AppContext, back: string) {
  const auth = await requireAuth(request, context);
  const formData = await readFormData(request);
  const chosen = chosenValues(formData, PROPOSAL_CHOICES);
  const parsed = parseForm(formData, proposalSchema);
  if (!parsed.ok) {
    // A content type not chosen is said in its own group (as the page says it with JavaScript); anything else by the button.
    const errors = { myContentType: parsed.errors.myContentType, theirContentType: parsed.errors.theirContentType };
    const error = errors.myContentType || errors.theirContentType ? null : messages.couldNotSendOffer;
    return data({ error, errors, help: null, chosen }, { status: 400 });
  }
  const { listingId, price, myContentType, myMaterials, theirContentType, theirMaterials } = parsed.value;
  // From the site the page showed, even if another tab has switched the active site since.
  const proposer = { user: auth.user, site: await loadSiteOfForm(context, auth, formData) };
  const result = await propose(context, proposer, {
    listingId,
    price,
    mine: { contentType: myContentType, materials: myMaterials },
    theirs: { contentType: theirContentType, materials: theirMaterials },
  });
  if (!result.ok) {
    const help = result.status === 403 ? ("verify" as const) : result.status === 402 ? ("connects" as const) : null;
    return data({ error: result.message, help, chosen }, { status: result.status });
  }
  throw redirect(withNotice(back, "offer-sent"));
}

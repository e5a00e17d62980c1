/** The dashboard's server work: the active site's numbers, first offers and trades, links to look at, record and suggestions. */
import { postForDisplay } from "~/domain/listing-format";
import type { AppContext } from "~/lib/context";
import { timeZoneOf } from "~/lib/time-zone.server";
import { requireAuthWith } from "~/services/auth.server";
import { dashboardOf, dashboardStatements } from "~/services/dashboard.server";
import { loadActiveSite, loadSignedInShell } from "~/services/layout.server";
import { recordOfSite } from "~/services/reputation.server";

export async function loadDashboard(request: Request, context: AppContext) {
  const now = context.now();
  const timeZone = timeZoneOf(request);
  // Read in the session's round trip.
  const { auth, rows } = await requireAuthWith(request, context, (viewer) => dashboardStatements(context.db, viewer, now, timeZone));
  const [site, shell] = await Promise.all([loadActiveSite(context, auth), loadSignedInShell(context, auth)]);
  if (!site) return null;
  const { suggestions, ...dashboard } = dashboardOf(site, now, timeZone, rows);
  const card = (s: (typeof suggestions.matched)[number]) =>
    postForDisplay({
      id: s.listingId,
      url: s.url,
      description: s.description,
      category: s.category,
      icon: s.icon,
      score: s.score,
      connects: s.connects,
    });
  return {
    now,
    connects: shell.user.connects,
    email: shell.user.email,
    emailVerified: shell.user.emailVerified,
    ...dashboard,
    // The site's own record, as other owners see it on its cards, panel and profile.
    record: recordOfSite(site),
    suggestions: { tag: suggestions.tag, matched: suggestions.matched.map(card), somethingNew: suggestions.somethingNew.map(card) },
  };
}

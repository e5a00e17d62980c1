/** What the signed-in layouts need: the user, their sites and the active site, loaded once per request. */
import { once, type AppContext } from "~/lib/context";
import type { SignedInShell } from "~/domain/user-site";
import type { CurrentAuth } from "./auth.server";
import { ownedSitesQuery, pickActiveSite, setActiveSite, switcherSite, type OwnedSite } from "./sites.server";

type Sites = { userSites: ReturnType<typeof switcherSite>[]; activeRow: OwnedSite | null; rows: OwnedSite[] };

function sitesOf(ownedSites: OwnedSite[], remembered: string | null): Sites {
  return { userSites: ownedSites.map(switcherSite), activeRow: pickActiveSite(ownedSites, remembered), rows: ownedSites };
}

/** Sites read in the same round trip as the session (auth.server.ts): the loaders then need no query of their own. */
export function rememberSites(context: AppContext, ownedSites: OwnedSite[], remembered: string | null) {
  context.memo.set("sites", Promise.resolve(sitesOf(ownedSites, remembered)));
}

/** The user's sites and the active site's whole row, in one statement, once per request however many loaders ask. */
function loadSites(context: AppContext, auth: CurrentAuth) {
  return once(context, "sites", async () => sitesOf(await ownedSitesQuery(context.db, auth.user.id), auth.session.activeSiteId));
}

export async function loadSignedInShell(context: AppContext, auth: CurrentAuth): Promise<SignedInShell> {
  const { userSites, activeRow } = await loadSites(context, auth);
  return {
    user: { email: auth.user.email, emailVerified: auth.user.emailVerified, connects: auth.user.connects, connectsHeld: auth.user.connectsHeld },
    sites: userSites,
    activeSite: userSites.find((site) => site.id === activeRow?.id) ?? null,
  };
}

/** The whole row of the active site; null when the user has no site yet. */
export async function loadActiveSite(context: AppContext, auth: CurrentAuth) {
  return (await loadSites(context, auth)).activeRow;
}

/**
 * Makes the user's site on `host` the active one (a link from an email about that site); null, and nothing changed,
 * when the user has no site there.
 */
export async function activateSiteOnHost(context: AppContext, auth: CurrentAuth, host: string): Promise<OwnedSite | null> {
  return activateOwnSite(
    context,
    auth,
    (await loadSites(context, auth)).rows.find((row) => row.host === host),
  );
}

/**
 * Makes the user's site `siteId` the active one, when it is one of theirs (null, and nothing changed, otherwise): a
 * page about one of the user's offers is about their site in it.
 */
export async function activateSiteById(context: AppContext, auth: CurrentAuth, siteId: string): Promise<OwnedSite | null> {
  return activateOwnSite(
    context,
    auth,
    (await loadSites(context, auth)).rows.find((row) => row.id === siteId),
  );
}

/** `site` (one of the user's) made active, for the session and for a page rendered by this same request. */
async function activateOwnSite(context: AppContext, auth: CurrentAuth, site: OwnedSite | undefined): Promise<OwnedSite | null> {
  if (!site) return null;
  const sites = await loadSites(context, auth);
  if (site.id === sites.activeRow?.id) return site;
  await setActiveSite(context.db, auth.session.id, auth.user.id, site.id);
  // A page rendered by this same request (a refused form without JavaScript) shows the site now active.
  context.memo.set("sites", Promise.resolve({ ...sites, activeRow: site }));
  return site;
}

/**
 * The site a form of the owner's area acts on: the one its page showed (the form's `siteId`). The active site lives in
 * the session, so another tab may have switched it since the page was shown; the form still acts on the site the user
 * saw, which becomes the active site again (as the switcher would make it). Only the user's own sites count: another
 * id answers 404. A form without `siteId` acts on the active site (null for an account without a site).
 */
export async function loadSiteOfForm(context: AppContext, auth: CurrentAuth, formData: FormData): Promise<OwnedSite | null> {
  const sites = await loadSites(context, auth);
  const shown = formData.get("siteId");
  if (typeof shown !== "string" || shown === "" || shown === sites.activeRow?.id) return sites.activeRow;
  const site = await activateOwnSite(
    context,
    auth,
    sites.rows.find((row) => row.id === shown),
  );
  // Another account's site (or none at all): nothing of it is read or touched, as for an address that does not exist.
  if (!site) throw new Response("Not found", { status: 404 });
  return site;
}

/** What the signed-in layouts need: the user, their sites and the active site, loaded once per request. */
import { once, type AppContext } from "~/lib/context";
import type { CurrentAuth } from "./auth.server";
import { getOwnedSite, listUserSites, resolveActiveSite } from "./sites.server";

export function loadSignedInShell(context: AppContext, auth: CurrentAuth) {
  return once(context, "shell", async () => {
    const userSites = await listUserSites(context.db, auth.user.id);
    return {
      user: { email: auth.user.email, emailVerified: auth.user.emailVerified, connects: auth.user.connects, connectsHeld: auth.user.connectsHeld },
      sites: userSites,
      activeSite: resolveActiveSite(userSites, auth.session.activeSiteId),
    };
  });
}

/** The whole row of the active site; null when the user has no site yet. */
export async function loadActiveSite(context: AppContext, auth: CurrentAuth) {
  const shell = await loadSignedInShell(context, auth);
  if (!shell.activeSite) return null;
  return once(context, "activeSite", async () => (await getOwnedSite(context.db, auth.user.id, shell.activeSite!.id)) ?? null);
}

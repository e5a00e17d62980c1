/** What the signed-in layout needs: the user, their sites and the active site. */
import type { AppContext } from "~/lib/context";
import type { CurrentAuth } from "./auth.server";
import { listUserSites, resolveActiveSite } from "./sites.server";

export async function loadSignedInShell(context: AppContext, auth: CurrentAuth) {
  const userSites = await listUserSites(context.db, auth.user.id);
  return {
    user: { email: auth.user.email, connects: auth.user.connects },
    sites: userSites,
    activeSite: resolveActiveSite(userSites, auth.session.activeSiteId),
  };
}

/** What the signed-in layout needs: the user, their sites and the active site. */
import { eq } from "drizzle-orm";
import { users } from "#drizzle/schema";
import type { AppContext } from "~/lib/context";
import type { CurrentAuth } from "./auth.server";
import { listUserSites, resolveActiveSite } from "./sites.server";

export async function loadSignedInShell(context: AppContext, auth: CurrentAuth) {
  const [user, userSites] = await Promise.all([
    context.db.select({ email: users.email, connects: users.connects }).from(users).where(eq(users.id, auth.user.id)).get(),
    listUserSites(context.db, auth.user.id),
  ]);
  return {
    user: { email: user?.email ?? auth.user.email, connects: user?.connects ?? 0 },
    sites: userSites,
    activeSite: resolveActiveSite(userSites, auth.session.activeSiteId),
  };
}

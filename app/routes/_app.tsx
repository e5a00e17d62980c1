import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { Outlet, useLoaderData, useLocation } from "@remix-run/react";
import { AddWebsiteDialog } from "~/components/add-website-dialog";
import { SignedInHeader } from "~/components/signed-in-header";
import { requireAuth } from "~/services/auth.server";
import { loadSignedInShell } from "~/services/layout.server";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const auth = await requireAuth(request, context);
  return loadSignedInShell(context, auth);
}

export default function SignedInLayout() {
  const { sites, activeSite } = useLoaderData<typeof loader>();
  const location = useLocation();
  // A signed-in user without a website (e.g. after an OAuth sign-up) is asked for one first.
  const needsFirstSite = sites.length === 0 && location.pathname !== "/sites/new";
  return (
    <div className="page app-page">
      <SignedInHeader sites={sites} activeSite={activeSite} />
      {needsFirstSite ? <AddWebsiteDialog closeTo={null} /> : <Outlet />}
    </div>
  );
}

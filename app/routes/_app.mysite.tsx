import { redirect, type LoaderFunctionArgs } from "@remix-run/cloudflare";
import { Form, Link, NavLink, Outlet, useLoaderData, useLocation, useNavigation } from "@remix-run/react";
import { inertWhen, useDialogOverHeader } from "~/components/inert";
import { ScoreBadge } from "~/components/score-badge";
import { SiteIcon } from "~/components/site-icon";
import { storedAttributes } from "~/domain/audit";
import { OWNER_AREA_PAGES } from "~/domain/owner-area";
import { Spinner } from "~/components/spinner";
import { requireAuth } from "~/services/auth.server";
import { loadActiveSite } from "~/services/layout.server";
import { shownScoreOf } from "~/services/sites.server";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const auth = await requireAuth(request, context);
  const site = await loadActiveSite(context, auth);
  if (!site) throw redirect("/sites/new");
  return {
    site: {
      id: site.id,
      url: site.url,
      host: site.host,
      icon: site.icon,
      verified: site.verified,
      // Until the first audit, the site's placeholder (docs/decisions/0024-placeholder-score.md), as everywhere else.
      score: shownScoreOf(site),
      description: site.description,
      tags: site.tags,
      materials: site.materials,
      contentTypes: site.contentTypes,
      scoreRunAt: site.scoreRunAt,
      attributes: storedAttributes(site),
    },
  };
}

export type MySiteData = Awaited<ReturnType<typeof loader>>;

/** The site's icon with its edit control: reads the home page again and keeps the icon it names. */
function SiteIconControl({ siteId, icon }: { siteId: string; icon: string | null }) {
  const location = useLocation();
  const navigation = useNavigation();
  const busy = navigation.state !== "idle" && navigation.formAction === "/mysite/icon";
  return (
    <Form method="post" action="/mysite/icon" className="site-icon-control">
      <SiteIcon icon={icon} size={56} className="site-icon" />
      <input type="hidden" name="siteId" value={siteId} />
      <input type="hidden" name="redirectTo" value={`${location.pathname}${location.search}`} />
      <button type="submit" className="icon-edit" disabled={busy} aria-busy={busy} title="Update the icon from your home page">
        {busy ? <Spinner label="Updating icon" /> : <span aria-hidden="true">✎</span>}
        <span className="visually-hidden">Update icon</span>
      </button>
    </Form>
  );
}

/** The owner's area: left navigation and the site header around each page. */
export default function MySiteLayout() {
  const { site } = useLoaderData<typeof loader>();
  // The dashboard's feedback dialog and the Offers page's panel are over the whole area: its navigation and the site's
  // header are out of reach.
  const behind = inertWhen(useDialogOverHeader());
  return (
    <div className="mysite">
      <nav className="side-nav" aria-label="My site" {...behind}>
        {OWNER_AREA_PAGES.map((item) => (
          <NavLink key={item.to} to={item.to} end={item.end} className="side-link">
            {item.label}
          </NavLink>
        ))}
      </nav>
      <main className="mysite-main" id="main">
        <header className="site-header" {...behind}>
          <SiteIconControl siteId={site.id} icon={site.icon} />
          <div>
            <h1 className="site-name">{site.host}</h1>
            <Link to="/mysite/verify" className={site.verified ? "verified" : "not-verified"}>
              {site.verified ? "Verified" : "Not verified"}
            </Link>
          </div>
          <div className="authority">
            <ScoreBadge score={site.score} label="Authority" />
            {/* Seen under the badge; read once, in the badge's name. */}
            <span aria-hidden="true">Authority</span>
          </div>
        </header>
        <Outlet />
      </main>
    </div>
  );
}

import { Form, Link, useLocation, useMatches } from "@remix-run/react";
import { Wordmark } from "./brand";
import { messages } from "~/domain/messages";
import { addressWith } from "~/domain/page-address";
import { OWNER_AREA_PAGES } from "~/domain/owner-area";
import type { UserSite } from "~/domain/user-site";
import { HeaderMenu } from "./header-menu";
import { SiteIcon } from "./site-icon";
import { inertWhen } from "./inert";

export function SiteSwitcher({ sites, activeSite }: { sites: UserSite[]; activeSite: UserSite | null }) {
  const location = useLocation();
  // Back to this page after switching or adding a site, without its notice: "Settings saved" or "Your website is
  // verified." was about the site before.
  const here = addressWith(location.pathname, new URLSearchParams(location.search), "notice", null);
  return (
    <HeaderMenu
      className="site-switcher"
      summary={
        <summary>
          <SiteIcon icon={activeSite?.icon} size={24} />
          <span className="site-switcher-name">{activeSite?.host ?? "No website yet"}</span>
          <span className="visually-hidden">: switch website</span>
        </summary>
      }
    >
      {sites.map((site) => (
        <Form method="post" action="/sites/active" key={site.id}>
          <input type="hidden" name="siteId" value={site.id} />
          <input type="hidden" name="redirectTo" value={here} />
          <button type="submit" aria-current={site.id === activeSite?.id ? "true" : undefined} className="menu-item">
            {site.host}
            {site.id === activeSite?.id ? <span aria-hidden="true"> ✓</span> : null}
          </button>
        </Form>
      ))}
      <Link to={`/sites/new?back=${encodeURIComponent(here)}`} className="menu-item menu-item-accent">
        <span aria-hidden="true">+ </span>New site
      </Link>
    </HeaderMenu>
  );
}

/** The signed-in header; `behindDialog` while a page is a dialog over it (neither clicked nor reached by keyboard then). */
export function SignedInHeader({ sites, activeSite, behindDialog }: { sites: UserSite[]; activeSite: UserSite | null; behindDialog: boolean }) {
  const location = useLocation();
  const inMySite = location.pathname.startsWith("/mysite");
  // The term the search page searched for, as its loader read it (from /search?term=… or /search/{term}).
  const term =
    (useMatches().find((match) => match.id.startsWith("routes/_app.search"))?.data as { query?: { term: string } } | undefined)?.query?.term ?? "";
  return (
    <header className="app-header" {...inertWhen(behindDialog)}>
      <Wordmark to="/market" />
      <Form method="get" action="/search" className="header-search" role="search">
        <label htmlFor="header-search" className="visually-hidden">
          Search
        </label>
        <input id="header-search" name="term" type="search" placeholder={messages.searchPlaceholder} defaultValue={term} key={term} maxLength={100} />
      </Form>
      <nav className="app-nav" aria-label="Main">
        <Link to="/mysite/offers" className="nav-link hide-mobile">
          Offers
        </Link>
        <SiteSwitcher sites={sites} activeSite={activeSite} />
        <Link to={inMySite ? "/market" : "/mysite"} className="button button-primary button-small hide-mobile">
          {inMySite ? "Market" : "My site"}
        </Link>
        <HeaderMenu
          className="app-menu"
          summary={
            <summary aria-label="Menu">
              <span className="burger" aria-hidden="true" />
            </summary>
          }
        >
          <Link to={inMySite ? "/market" : "/mysite"} className="menu-item show-mobile">
            {inMySite ? "Market" : "My site"}
          </Link>
          {OWNER_AREA_PAGES.map((item) => (
            <Link key={item.to} to={item.to} className="menu-item">
              {item.label}
            </Link>
          ))}
          <Form method="post" action="/logout">
            <button type="submit" className="menu-item">
              Log out
            </button>
          </Form>
        </HeaderMenu>
      </nav>
    </header>
  );
}

import { Link } from "@remix-run/react";
import { useRef } from "react";
import { useTitleFocusedWhenLost } from "./offer-detail";
import type { OfferDetail } from "~/domain/offer-view";
import { CATEGORY_TAGS, CONTENT_TYPES, PROVIDED_MATERIALS, labelsOf } from "~/domain/options";
import { OpenChatForm } from "./open-chat-form";
import { ScoreBadge } from "./score-badge";
import { SiteIcon } from "./site-icon";
import { SiteRecord } from "./site-record";

/** The other site of an offer as a profile (the offer panel's sub-view): what it is about and what it offers. */
export function OfferProfile({ detail, offerTo }: { detail: OfferDetail; offerTo: string }) {
  const site = detail.otherSite;
  const title = useRef<HTMLHeadingElement>(null);
  useTitleFocusedWhenLost(title);
  return (
    <div className="stack">
      <Link to={offerTo} className="text-link small" preventScrollReset>
        ← Back to the offer
      </Link>
      <header className="panel-head">
        <SiteIcon icon={site.icon} size={48} />
        <div>
          <h2 id="offer-title" className="user-text" tabIndex={-1} ref={title}>
            {site.host}
          </h2>
          <a href={/^https?:\/\//i.test(site.url) ? site.url : `https://${site.host}`} target="_blank" rel="noreferrer noopener">
            Visit site
          </a>
        </div>
        {site.score !== null ? <ScoreBadge score={site.score} label="Authority" /> : null}
      </header>
      <p className="user-text">{site.description || "No description"}</p>
      <OpenChatForm offerId={detail.id} label={`Message ${site.host}`} />
      <dl className="terms-list">
        <dt>Categories</dt>
        <dd>{labelsOf(CATEGORY_TAGS, site.tags) || "None yet"}</dd>
        <dt>Willing to provide</dt>
        <dd>{labelsOf(CONTENT_TYPES, site.contentTypes) || "Not set"}</dd>
        <dt>Provided materials</dt>
        <dd>{labelsOf(PROVIDED_MATERIALS, site.materials) || "Not set"}</dd>
      </dl>
      <SiteRecord counts={site.record} headingId="profile-record-title" />
    </div>
  );
}

import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/cloudflare";
import { Link, useActionData, useFetcher, useLoaderData, useSearchParams } from "@remix-run/react";
import { useEffect, useState } from "react";
import { ChipGroup } from "~/components/chip-group";
import { OfferRows, StatusLabel } from "~/components/offer-rows";
import { OpenChatForm } from "~/components/open-chat-form";
import { ScoreBadge } from "~/components/post-card";
import { SlideOut } from "~/components/slide-out";
import { Spinner } from "~/components/spinner";
import { SiteIcon } from "~/components/site-icon";
import { SiteRecord } from "~/components/site-record";
import { formatShortDate } from "~/domain/dates";
import { messages } from "~/domain/messages";
import { ENTRY_ACTION_LABELS, ENTRY_STATUS_CODES, canActOnOffer, canMoveEntry, type EntryStatus } from "~/domain/offer-rules";
import type { StatusCode } from "~/domain/offer-status";
import { CATEGORY_TAGS, CONTENT_TYPES, PROVIDED_MATERIALS, labelOf } from "~/domain/options";
import { offerActionSchema } from "~/domain/validation";
import { firstError, parseForm, readFormData } from "~/lib/forms.server";
import { requireAuth } from "~/services/auth.server";
import { loadSignedInShell } from "~/services/layout.server";
import { actOnOffer } from "~/services/offer-answers.server";
import { offerDetail } from "~/services/offer-detail.server";
import { moveTradeEntry } from "~/services/trade-progress.server";
import { offersAndTrades } from "~/services/trades-read.server";
import type { OfferDetail } from "~/domain/offer-view";
import { useTimeZone } from "~/components/use-time-zone";

export const meta: MetaFunction = () => [{ title: "Offers and trades - Backlink Market" }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const auth = await requireAuth(request, context);
  const shell = await loadSignedInShell(context, auth);
  const offerId = new URL(request.url).searchParams.get("offer");
  const [lists, detail] = await Promise.all([
    shell.activeSite ? offersAndTrades(context.db, auth.user.id, shell.activeSite.id) : { offers: [], trades: [] },
    offerId && offerId.length <= 64 ? offerDetail(context.db, auth.user.id, offerId) : null,
  ]);
  return { ...lists, detail, now: context.now() };
}

/** Every answer and every move is checked again here; the browser only asks. */
export async function action({ request, context }: ActionFunctionArgs) {
  const auth = await requireAuth(request, context);
  const offerId = new URL(request.url).searchParams.get("offer") ?? "";
  const parsed = parseForm(await readFormData(request), offerActionSchema);
  if (!parsed.ok) {
    // What was typed comes back with the message (the page shows it again without JavaScript).
    return data(
      { error: firstError(parsed.errors, "contentUrl") ?? messages.offerChangeRefused, contentUrl: parsed.values.contentUrl ?? null },
      { status: 400 },
    );
  }
  const input = parsed.value;
  const result =
    input.intent === "move"
      ? await moveTradeEntry(context, auth.user, offerId, input.to, input.contentUrl || null)
      : await actOnOffer(context, auth.user, offerId, input.intent, input.intent === "accept" ? input.materials : []);
  // A refusal keeps the content url that was typed (the page shows it again without JavaScript).
  if (!result.ok)
    return data({ error: result.message, contentUrl: input.intent === "move" ? input.contentUrl || null : null }, { status: result.status });
  throw redirect(input.intent === "trash" ? "/mysite/offers" : `/mysite/offers?offer=${offerId}`);
}

const labels = (ids: string[], options: readonly { id: string; label: string }[]) => ids.map((id) => labelOf(options, id)).join(", ");

/** The other site as a profile: what it is about and what it offers. */
function Profile({ detail }: { detail: OfferDetail }) {
  const site = detail.otherSite;
  return (
    <div className="stack">
      <Link to={`/mysite/offers?offer=${detail.id}`} className="text-link small" preventScrollReset>
        ← Back to the offer
      </Link>
      <header className="panel-head">
        <SiteIcon icon={site.icon} size={48} />
        <div>
          <h2 id="offer-title">{site.host}</h2>
          <a href={site.url.startsWith("http") ? site.url : `https://${site.host}`} target="_blank" rel="noreferrer noopener">
            Visit site
          </a>
        </div>
        {site.score !== null ? <ScoreBadge score={site.score} label="Authority" /> : null}
      </header>
      <p>{site.description || "No description"}</p>
      <OpenChatForm offerId={detail.id} label={`Message ${site.host}`} />
      <dl className="terms-list">
        <dt>Categories</dt>
        <dd>{labels(site.tags, CATEGORY_TAGS) || "None yet"}</dd>
        <dt>Willing to provide</dt>
        <dd>{labels(site.contentTypes, CONTENT_TYPES) || "Not set"}</dd>
        <dt>Provided materials</dt>
        <dd>{labels(site.materials, PROVIDED_MATERIALS) || "Not set"}</dd>
      </dl>
      <SiteRecord counts={site.record} headingId="profile-record-title" />
    </div>
  );
}

/** One action form; with JavaScript it posts in the background and the page shows the result at once. */
function useOfferAction(offerId: string) {
  const fetcher = useFetcher<typeof action>();
  // Without JavaScript the form is a plain post and a refusal comes back as the page's action data.
  const refusedPost = useActionData<typeof action>();
  // A refusal shows until the next attempt; a success answers with a redirect, which leaves fetcher.data as it was.
  const [error, setError] = useState<string | undefined>(refusedPost?.error);
  useEffect(() => setError(fetcher.data?.error), [fetcher.data]);
  useEffect(() => {
    if (fetcher.state === "submitting") setError(undefined);
  }, [fetcher.state]);
  return {
    fetcher,
    action: `/mysite/offers?offer=${offerId}`,
    // Shown as done while the server saves, and through the reload after a success; a refusal ends it at once, so the
    // message never stands beside a state that was not saved.
    pending: fetcher.state !== "idle" && !error ? (fetcher.formData?.get("intent") as string | null) : null,
    pendingTo: fetcher.state !== "idle" && !error ? (fetcher.formData?.get("to") as EntryStatus | null) : null,
    error,
    refusedPost,
  };
}

type LinkState = OfferDetail["own"]["link"];

const REL_LABELS: Record<string, string> = { follow: "followed", nofollow: "nofollow", sponsored: "sponsored", ugc: "ugc" };

/** What the last check of a delivered link saw, and when. */
function LinkCheckLine({ check, now }: { check: NonNullable<LinkState>; now: number }) {
  const timeZone = useTimeZone();
  const found = check.state === "found";
  return (
    <span className={`link-check ${found && !check.hidden && check.rel === "follow" ? "link-ok" : "link-warning"}`}>
      {found
        ? `Link to ${check.targetHost}: ${REL_LABELS[check.rel ?? "follow"] ?? check.rel}${check.hidden ? ", hidden" : ""}`
        : check.state === "error"
        ? "The page could not be read"
        : `No link to ${check.targetHost} found`}
      {check.anchorText ? ` (“${check.anchorText}”)` : ""} · checked {formatShortDate(check.checkedAt, now, timeZone)}
    </span>
  );
}

const LINK_FLAGS: Record<string, string> = {
  lost: "Flag: the link is gone from the page.",
  moved: "Flag: the link points to another site now.",
  nofollow: "Flag: the link is nofollow (or sponsored or ugc).",
  hidden: "Flag: the link is hidden on the page.",
};

function Progress({
  who,
  status,
  contentUrl,
  link,
  check,
  linkStatus,
  now,
}: {
  who: string;
  status: EntryStatus;
  contentUrl: string | null;
  link: string;
  check: LinkState;
  linkStatus: OfferDetail["own"]["linkStatus"];
  now: number;
}) {
  return (
    <p className="progress-line">
      {who}: <StatusLabel code={ENTRY_STATUS_CODES[status]} />
      {contentUrl ? (
        <>
          {" "}
          <a href={contentUrl} target="_blank" rel="noreferrer noopener">
            {link}
          </a>
        </>
      ) : null}
      {contentUrl && check ? <LinkCheckLine check={check} now={now} /> : null}
      {contentUrl && linkStatus && linkStatus !== "live" ? <strong className="link-flag">{LINK_FLAGS[linkStatus]}</strong> : null}
    </p>
  );
}

const OPTIMISTIC_CODES: Record<string, StatusCode> = { accept: "ACC", decline: "DEC", rescind: "RES", trash: "TRS" };

function Detail({ detail, now }: { detail: OfferDetail; now: number }) {
  const timeZone = useTimeZone();
  const { fetcher, action, pending, pendingTo, error, refusedPost } = useOfferAction(detail.id);
  const typed = refusedPost?.contentUrl ?? null;
  const [contentUrl, setContentUrl] = useState(typed ?? detail.own.contentUrl ?? "");
  // Shown at once while the server saves; if it refuses, the saved state comes back with the message.
  const code = pending && pending !== "move" ? OPTIMISTIC_CODES[pending] ?? detail.code : detail.code;
  const ownStatus = pendingTo ?? detail.own.status;
  const can = (what: "accept" | "decline" | "rescind" | "trash") =>
    canActOnOffer(what, { status: detail.status, role: detail.role, trashed: detail.trashed }) && !pending;
  const moves = (["in_progress", "completed", "stopped"] as const).filter((to) => canMoveEntry(ownStatus, to));
  const me = detail.role === "sender" ? "You sent this offer" : "You received this offer";

  return (
    <div className="stack">
      <header className="panel-head">
        <SiteIcon icon={detail.otherSite.icon} size={48} />
        <div>
          <h2 id="offer-title">{detail.otherSite.host}</h2>
          <Link to={`/mysite/offers?offer=${detail.id}&view=profile`} preventScrollReset>
            View profile
          </Link>
        </div>
        <StatusLabel code={code} />
      </header>
      <p className="muted">
        {me} for {detail.connects} connects.
      </p>
      <OpenChatForm offerId={detail.id} label={`Message ${detail.otherSite.host}`} />
      <section className="terms">
        <h3>Terms</h3>
        <dl className="terms-list">
          <dt>You create</dt>
          <dd>{labelOf(CONTENT_TYPES, detail.own.contentType)}</dd>
          <dt>You provide</dt>
          <dd>{labels(detail.own.materials, PROVIDED_MATERIALS)}</dd>
          <dt>They create</dt>
          <dd>{labelOf(CONTENT_TYPES, detail.other.contentType)}</dd>
          <dt>They provide</dt>
          <dd>{labels(detail.other.materials, PROVIDED_MATERIALS)}</dd>
        </dl>
      </section>

      {can("accept") ? (
        <fetcher.Form method="post" action={action} className="stack card" preventScrollReset>
          <ChipGroup legend="Materials you want from them" name="materials" options={PROVIDED_MATERIALS} chosen={detail.other.materials} />
          <div className="button-row">
            <button type="submit" name="intent" value="accept" className="button button-primary">
              Accept
            </button>
            <button type="submit" name="intent" value="decline" className="button button-outline" formNoValidate>
              Decline
            </button>
          </div>
        </fetcher.Form>
      ) : null}
      {(["rescind", "trash"] as const).filter(can).map((intent) => (
        <fetcher.Form key={intent} method="post" action={action} preventScrollReset>
          <button type="submit" name="intent" value={intent} className={intent === "rescind" ? "button button-outline" : "button button-ghost"}>
            {intent === "rescind" ? "Rescind offer" : "Move to trash"}
          </button>
        </fetcher.Form>
      ))}

      {detail.status === "accepted" ? (
        <section className="stack card">
          <h3>Progress</h3>
          <Progress
            who="You"
            status={ownStatus}
            contentUrl={ownStatus === "completed" ? detail.own.contentUrl : null}
            link="your content"
            check={detail.own.link}
            linkStatus={detail.own.linkStatus}
            now={now}
          />
          <Progress
            who="They"
            status={detail.other.status}
            contentUrl={detail.other.contentUrl}
            link="their content"
            check={detail.other.link}
            linkStatus={detail.other.linkStatus}
            now={now}
          />
          {detail.linkHistory.length > 0 ? (
            <details className="link-history">
              <summary>Link checks ({detail.linkHistory.length})</summary>
              <ul>
                {detail.linkHistory.map((check) => (
                  <li key={`${check.userId}:${check.checkedAt}`}>
                    {formatShortDate(check.checkedAt, now, timeZone)} · {check.mine ? "your link" : "their link"}:{" "}
                    {check.state === "found"
                      ? `${REL_LABELS[check.rel ?? "follow"] ?? check.rel}${check.hidden ? ", hidden" : ""}`
                      : check.state === "error"
                      ? `could not be read (${check.error ?? "unknown"})`
                      : "not found"}
                  </li>
                ))}
              </ul>
            </details>
          ) : null}
          {moves.length > 0 ? (
            <fetcher.Form method="post" action={action} className="stack" preventScrollReset>
              <input type="hidden" name="intent" value="move" />
              {moves.includes("completed") ? (
                <label className="field">
                  <span>Content url</span>
                  <input
                    name="contentUrl"
                    type="url"
                    placeholder="https://yoursite.com/the-post"
                    value={contentUrl}
                    onChange={(event) => setContentUrl(event.target.value)}
                  />
                </label>
              ) : null}
              <div className="button-row">
                {moves.map((to) => (
                  <button
                    key={to}
                    type="submit"
                    name="to"
                    value={to}
                    className={to === "completed" ? "button button-primary" : "button button-outline"}
                  >
                    {ENTRY_ACTION_LABELS[to]}
                  </button>
                ))}
              </div>
            </fetcher.Form>
          ) : null}
        </section>
      ) : null}
      {pending ? <Spinner label="Saving" /> : null}
      {error ? (
        <p className="form-error" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}

export default function OffersPage() {
  const { offers, trades, detail, now } = useLoaderData<typeof loader>();
  const [params] = useSearchParams();
  const offerId = params.get("offer");
  return (
    <div className="stack-lg">
      <div className="two-columns">
        <section className="card" aria-labelledby="offers-title">
          <h2 id="offers-title">Offers</h2>
          <OfferRows rows={offers} empty="No offers yet, throw your hat in the ring!" now={now} />
        </section>
        <section className="card" aria-labelledby="trades-title">
          <h2 id="trades-title">Trades</h2>
          <OfferRows rows={trades} empty="No trades yet, get the ball rolling by sending an offer!" now={now} />
        </section>
      </div>
      {offerId && detail ? (
        <SlideOut titleId="offer-title" closeTo="/mysite/offers" key={detail.id}>
          {params.get("view") === "profile" ? <Profile detail={detail} /> : <Detail detail={detail} now={now} />}
        </SlideOut>
      ) : null}
      {offerId && !detail ? (
        <p className="form-error" role="alert">
          This offer is not available.
        </p>
      ) : null}
    </div>
  );
}

import { Link, useActionData, useFetcher } from "@remix-run/react";
import { useEffect, useRef, useState, type RefObject } from "react";
import { formatShortDate } from "~/domain/dates";
import { offersPageHref } from "~/domain/offer-links";
import { ENTRY_STATUS_CODES, canActOnOffer, canMoveEntry, entryActionLabel, type EntryStatus } from "~/domain/offer-rules";
import { STATUS_LABELS, type StatusCode } from "~/domain/offer-status";
import { formatAnswerBy, LINK_PROBLEMS, type LinkCheckSummary, type OfferDetail, type OfferSide } from "~/domain/offer-view";
import { CONTENT_TYPES, PROVIDED_MATERIALS, labelOf, labelsOf } from "~/domain/options";
import { ChipGroup } from "./chip-group";
import { StatusLabel } from "./offer-rows";
import { OpenChatForm } from "./open-chat-form";
import { SiteIcon } from "./site-icon";
import { Spinner } from "./spinner";
import { useTimeZone } from "./use-time-zone";

/** What the Offers page's action answers a refused change with. */
export interface OfferActionRefusal {
  error: string;
  contentUrl: string | null;
  /** The materials a refused Accept asked for, chosen again on the page that shows the refusal. */
  materials?: string[] | null;
  /** The page the message's link leads to: "Get verified" when the site must be verified first. */
  help?: "verify" | null;
}

/** One action form; with JavaScript it posts in the background and the page shows the result at once. */
function useOfferAction() {
  const fetcher = useFetcher<OfferActionRefusal>();
  // Without JavaScript the form is a plain post and a refusal comes back as the page's action data.
  const refusedPost = useActionData<OfferActionRefusal>();
  // A refusal shows until the next attempt. A success answers with a redirect, which leaves fetcher.data as it was,
  // so only data that changed since the last post went out is that post's refusal; read in the same render the fetcher
  // comes back in, so nothing takes a refusal for a save. Until a first post here, the page's own refusal shows.
  const [sentOver, setSentOver] = useState<{ data: OfferActionRefusal | undefined } | null>(null);
  const { state, data } = fetcher;
  useEffect(() => {
    if (state === "submitting") setSentOver({ data });
    // Only when a post goes out: the data it goes out over.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [state]);
  const refusal = sentOver === null ? refusedPost : state === "idle" && data !== sentOver.data ? data : undefined;
  const error = refusal?.error;
  return {
    fetcher,
    // Shown as done while the server saves, and through the reload after a success; a refusal ends it at once, so the
    // message never stands beside a state that was not saved.
    pending: fetcher.state !== "idle" && !error ? (fetcher.formData?.get("intent") as string | null) : null,
    pendingTo: fetcher.state !== "idle" && !error ? (fetcher.formData?.get("to") as EntryStatus | null) : null,
    error,
    refusal,
    refusedPost,
  };
}

/**
 * After an answer or a move is saved: says the new state to screen readers (the panel's live line); saved or refused,
 * when the pressed button went away (Accept, Start…), puts focus on the panel's title instead of leaving it on the
 * page, so the keyboard goes on from inside the panel.
 */
function useSavedAnnounced(state: "idle" | "submitting" | "loading", error: string | undefined, detail: OfferDetail) {
  const title = useRef<HTMLHeadingElement>(null);
  const [announcement, setAnnouncement] = useState("");
  // Whether a post went out since the last idle state: nothing to render, so a ref.
  const sent = useRef(false);
  useEffect(() => {
    if (state === "submitting") sent.current = true;
    if (!sent.current || state !== "idle") return;
    sent.current = false;
    if (!error) {
      const side = detail.status === "accepted" ? ` Your side: ${STATUS_LABELS[ENTRY_STATUS_CODES[detail.own.status]]}.` : "";
      setAnnouncement(`Saved. Offer: ${STATUS_LABELS[detail.code]}.${side}`);
    }
    // The pressed button was hidden while the post was out (and stays gone after a save): the keyboard goes on from
    // the panel's title, where a refusal's message (an alert) follows.
    if (focusLost()) title.current?.focus({ preventScroll: true });
  }, [state, error, detail.code, detail.status, detail.own.status]);
  return { title, announcement };
}

/** Whether the keyboard's place was lost: focus on nothing, or on an element the page no longer has. */
export function focusLost(): boolean {
  const focused = document.activeElement;
  return !focused || focused === document.body || !focused.isConnected;
}

/**
 * The panel's title takes focus when a view of the panel (the offer, the other site's profile) opens in place of the
 * other: the link that switched them went away with the old view.
 */
export function useTitleFocusedWhenLost(title: RefObject<HTMLHeadingElement | null>) {
  useEffect(() => {
    if (focusLost()) title.current?.focus({ preventScroll: true });
  }, [title]);
}

const REL_LABELS: Record<string, string> = { follow: "followed", nofollow: "nofollow", sponsored: "sponsored", ugc: "ugc" };

/** What the last check of a delivered link saw, and when. */
function LinkCheckLine({ check, now }: { check: LinkCheckSummary; now: number }) {
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
  check: OfferSide["link"];
  linkStatus: OfferSide["linkStatus"];
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
      {contentUrl && linkStatus && linkStatus !== "live" ? <strong className="link-flag">Flag: the link {LINK_PROBLEMS[linkStatus]}.</strong> : null}
    </p>
  );
}

/** Every check of both delivered links, newest first. */
function LinkHistory({ detail, now }: { detail: OfferDetail; now: number }) {
  const timeZone = useTimeZone();
  return (
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
  );
}

const OPTIMISTIC_CODES: Record<string, StatusCode> = { accept: "ACC", decline: "DEC", rescind: "RES", trash: "TRS" };

/** The offer panel: the other site, the terms, the answers the viewer may give and, once accepted, both sides' progress. */
export function OfferDetailView({ detail, now, list }: { detail: OfferDetail; now: number; list: string }) {
  const action = offersPageHref(list, { id: detail.id });
  const { fetcher, pending, pendingTo, error, refusal, refusedPost } = useOfferAction();
  const typed = refusedPost?.contentUrl ?? null;
  const [contentUrl, setContentUrl] = useState(typed ?? detail.own.contentUrl ?? "");
  // Shown at once while the server saves; if it refuses, the saved state comes back with the message.
  const code = pending && pending !== "move" ? OPTIMISTIC_CODES[pending] ?? detail.code : detail.code;
  const ownStatus = pendingTo ?? detail.own.status;
  const can = (what: "accept" | "decline" | "rescind" | "trash") =>
    canActOnOffer(what, { status: detail.status, role: detail.role, trashed: detail.trashed }) && !pending;
  const moves = (["in_progress", "completed", "stopped"] as const).filter((to) => canMoveEntry(ownStatus, to));
  const me = detail.role === "sender" ? "You sent this offer" : "You received this offer";
  const { title, announcement } = useSavedAnnounced(fetcher.state, error, detail);
  useTitleFocusedWhenLost(title);
  const timeZone = useTimeZone();

  return (
    <div className="stack">
      <p className="visually-hidden" role="status">
        {announcement}
      </p>
      <header className="panel-head">
        <SiteIcon icon={detail.otherSite.icon} size={48} />
        <div>
          <h2 id="offer-title" className="user-text" tabIndex={-1} ref={title}>
            {detail.otherSite.host}
          </h2>
          <Link to={offersPageHref(list, { id: detail.id, view: "profile" })} preventScrollReset>
            View profile
          </Link>
        </div>
        <StatusLabel code={code} />
      </header>
      <p className="muted">
        {me} {detail.role === "sender" ? "from" : "at"} <span className="user-text">{detail.ownSite.host}</span> for {detail.connects} connects.
        {detail.status === "pending"
          ? ` ${detail.role === "sender" ? "It can be answered until" : "Answer by"} ${formatAnswerBy(detail.answerBy, now, timeZone)}.`
          : null}
      </p>
      <OpenChatForm offerId={detail.id} label={`Message ${detail.otherSite.host}`} />
      <section className="terms">
        <h3>Terms</h3>
        <dl className="terms-list">
          <dt>You create</dt>
          <dd>{labelOf(CONTENT_TYPES, detail.own.contentType)}</dd>
          <dt>You provide</dt>
          <dd>{labelsOf(PROVIDED_MATERIALS, detail.own.materials)}</dd>
          <dt>They create</dt>
          <dd>{labelOf(CONTENT_TYPES, detail.other.contentType)}</dd>
          <dt>They provide</dt>
          <dd>{labelsOf(PROVIDED_MATERIALS, detail.other.materials)}</dd>
        </dl>
      </section>

      {can("accept") ? (
        <fetcher.Form method="post" action={action} className="stack card" preventScrollReset>
          <ChipGroup
            legend="Materials you want from them"
            name="materials"
            options={PROVIDED_MATERIALS}
            // The choice of the refused Accept, with JavaScript or without, so pressing it again asks for the same.
            chosen={refusal?.materials ?? detail.other.materials}
          />
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
          {detail.linkHistory.length > 0 ? <LinkHistory detail={detail} now={now} /> : null}
          {moves.length > 0 ? (
            // noValidate: the server reads the content url (an address without https:// too) and answers with the
            // message; the browser's own check of a url field would block "Stop" over a half-typed address.
            <fetcher.Form method="post" action={action} className="stack" preventScrollReset noValidate>
              <input type="hidden" name="intent" value="move" />
              {moves.includes("completed") ? (
                <label className="field">
                  <span>Content url</span>
                  <input
                    name="contentUrl"
                    type="url"
                    placeholder="yoursite.com/the-post"
                    value={contentUrl}
                    onChange={(event) => setContentUrl(event.target.value)}
                    // A refusal (no address, no link found on that page) is read with the field.
                    aria-describedby={error ? "offer-error" : undefined}
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
                    // One move at a time: a second one sent while the first saves would abort the first's reload and
                    // could answer beside the state before it.
                    disabled={fetcher.state !== "idle"}
                  >
                    {entryActionLabel(ownStatus, to)}
                  </button>
                ))}
              </div>
            </fetcher.Form>
          ) : null}
        </section>
      ) : null}
      {pending ? <Spinner label="Saving" /> : null}
      {error ? (
        <p className="form-error" role="alert" id="offer-error">
          {error}
          {refusal?.help === "verify" ? (
            <>
              {" "}
              <Link to="/mysite/verify">Get verified</Link>
            </>
          ) : null}
        </p>
      ) : null}
    </div>
  );
}

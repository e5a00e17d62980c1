import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { useLoaderData, useSearchParams } from "@remix-run/react";
import { useEffect, useRef } from "react";
import { inertWhen, panelShown } from "~/components/inert";
import { focusLost, OfferDetailView } from "~/components/offer-detail";
import { OfferProfile } from "~/components/offer-profile";
import { OfferListPanel } from "~/components/offer-list-panel";
import { SlideOut } from "~/components/slide-out";
import { messages } from "~/domain/messages";
import { offersPageHref } from "~/domain/offer-links";
import { changeOffer, loadOffersPage } from "./_app.mysite.offers.server";

export const meta: MetaFunction = () => [{ title: "Offers and trades - Backlink Market" }];

export const loader = ({ request, context }: LoaderFunctionArgs) => loadOffersPage(request, context);

export const action = ({ request, context }: ActionFunctionArgs) => changeOffer(request, context);

export default function OffersPage() {
  const { offers, trades, list, refused, detail, now } = useLoaderData<typeof loader>();
  const [params] = useSearchParams();
  const offerId = params.get("offer");
  // The offer's panel, the one condition the layout reads too (its header goes out of reach with the lists).
  const panel = panelShown(params, { detail });
  // A panel that closed with its offer gone from the lists (moved to the trash): the keyboard goes on from the Offers
  // list. Only after a panel was open on this page: a page that loads without one keeps the browser's own start.
  const panelWasOpen = useRef(false);
  useEffect(() => {
    if (offerId) panelWasOpen.current = true;
    else if (panelWasOpen.current && focusLost()) document.getElementById("offers-title")?.focus({ preventScroll: true });
  }, [offerId]);
  return (
    <div className="stack-lg">
      {refused ? (
        <p className="form-error" role="alert">
          {refused}
        </p>
      ) : null}
      {/* Behind an offer's panel, the lists are out of reach (without JavaScript too). */}
      <div className="two-columns" {...inertWhen(panel)}>
        <OfferListPanel title="Offers" param="offersAfter" page={offers} empty={messages.noOffers} list={list} now={now} />
        <OfferListPanel title="Trades" param="tradesAfter" page={trades} empty={messages.noTrades} list={list} now={now} />
      </div>
      {panel && detail ? (
        <SlideOut titleId="offer-title" closeTo={offersPageHref(list)} key={detail.id}>
          {params.get("view") === "profile" ? (
            <OfferProfile detail={detail} offerTo={offersPageHref(list, { id: detail.id })} />
          ) : (
            <OfferDetailView detail={detail} now={now} list={list} />
          )}
        </SlideOut>
      ) : null}
      {offerId && !detail ? (
        <p className="form-error" role="alert">
          {messages.offerUnavailable}
        </p>
      ) : null}
    </div>
  );
}

import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { useLoaderData, useSearchParams } from "@remix-run/react";
import { OfferDetailView } from "~/components/offer-detail";
import { OfferProfile } from "~/components/offer-profile";
import { OfferRows } from "~/components/offer-rows";
import { SlideOut } from "~/components/slide-out";
import { offersPageHref } from "~/domain/offer-links";
import { changeOffer, loadOffersPage } from "./_app.mysite.offers.server";

export const meta: MetaFunction = () => [{ title: "Offers and trades - Backlink Market" }];

export const loader = ({ request, context }: LoaderFunctionArgs) => loadOffersPage(request, context);

export const action = ({ request, context }: ActionFunctionArgs) => changeOffer(request, context);

export default function OffersPage() {
  const { offers, trades, detail, now } = useLoaderData<typeof loader>();
  const [params] = useSearchParams();
  const offerId = params.get("offer");
  const list = "";
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
          This offer is not available.
        </p>
      ) : null}
    </div>
  );
}

import { listWith, offersPageHref, type ListParam } from "~/domain/offer-links";
import { OfferListPager, OfferRows, type OfferRow } from "./offer-rows";

/** One list of the Offers page, a page at a time (docs/decisions/0026-offers-paging.md). */
export function OfferListPanel(props: {
  title: string;
  param: ListParam;
  page: { rows: OfferRow[]; next: string | null };
  empty: string;
  list: string;
  now: number;
}) {
  const { title, param, page, list } = props;
  const onLaterPage = new URLSearchParams(list).has(param);
  const titleId = `${title.toLowerCase()}-title`;
  return (
    <section className="card" aria-labelledby={titleId}>
      <h2 id={titleId} tabIndex={-1}>
        {title}
      </h2>
      {/* A later page with nothing on it (its offers moved to the trash, or a link kept from another site) is not an
          empty list: the first page may have rows. */}
      <OfferRows rows={page.rows} empty={onLaterPage ? `No more ${title.toLowerCase()} here.` : props.empty} now={props.now} list={list} />
      <OfferListPager
        label={`Pages of ${title.toLowerCase()}`}
        firstTo={onLaterPage ? offersPageHref(listWith(list, param, null)) : null}
        nextTo={page.next ? offersPageHref(listWith(list, param, page.next)) : null}
      />
    </section>
  );
}

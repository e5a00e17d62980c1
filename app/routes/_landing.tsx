import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { Outlet, useLoaderData, type ShouldRevalidateFunction } from "@remix-run/react";
import { Footer } from "~/components/footer";
import { LandingPage } from "~/components/landing";
import { PublicHeader } from "~/components/public-header";
import { popularSiteCards } from "~/domain/popular-sites";

export function loader({ request }: LoaderFunctionArgs) {
  const slide = Number(new URL(request.url).searchParams.get("slide"));
  return { cards: popularSiteCards(), slide: Number.isInteger(slide) && slide >= 0 && slide < 5 ? slide : 0 };
}

// The sample scores are random; keep them while modals open and close over the page.
export const shouldRevalidate: ShouldRevalidateFunction = ({ currentUrl, nextUrl }) =>
  currentUrl.searchParams.get("slide") !== nextUrl.searchParams.get("slide");

export default function LandingLayout() {
  const { cards, slide } = useLoaderData<typeof loader>();
  return (
    <div className="page">
      <PublicHeader />
      <LandingPage cards={cards} slide={slide} />
      <Footer />
      <Outlet />
    </div>
  );
}

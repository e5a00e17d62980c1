import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { Outlet, useLoaderData, useMatches, type ShouldRevalidateFunction } from "@remix-run/react";
import { Footer } from "~/components/footer";
import { LandingPage } from "~/components/landing";
import { inertWhen } from "~/components/inert";
import { PublicHeader } from "~/components/public-header";
import { popularSiteCards } from "~/domain/popular-sites";

export function loader({ request }: LoaderFunctionArgs) {
  const slide = Number(new URL(request.url).searchParams.get("slide"));
  return { cards: popularSiteCards(), slide: Number.isInteger(slide) && slide >= 0 && slide < 5 ? slide : 0 };
}

// The sample scores are random; keep them while modals open and close over the page.
export const shouldRevalidate: ShouldRevalidateFunction = ({ currentUrl, nextUrl }) =>
  currentUrl.searchParams.get("slide") !== nextUrl.searchParams.get("slide");

const MODAL_ROUTES = new Set(["routes/_landing.login", "routes/_landing.signup", "routes/_landing.reset-password"]);

export default function LandingLayout() {
  const { cards, slide } = useLoaderData<typeof loader>();
  const modalOpen = MODAL_ROUTES.has(useMatches().at(-1)?.id ?? "");
  // While a modal is open the page behind it can be neither clicked nor reached with the keyboard.
  const behindModal = inertWhen(modalOpen);
  return (
    <div className="page">
      <div {...behindModal}>
        <PublicHeader />
        <LandingPage cards={cards} slide={slide} />
        <Footer />
      </div>
      <Outlet />
    </div>
  );
}

import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import {
  isRouteErrorResponse,
  Link,
  Links,
  Meta,
  Outlet,
  Scripts,
  ScrollRestoration,
  useLoaderData,
  useRouteError,
  type ShouldRevalidateFunction,
} from "@remix-run/react";
import { useEffect, type ReactNode } from "react";
import { useNonce } from "./components/nonce";
import { useReportTimeZone } from "./components/use-time-zone";
import { viewerTimeZone } from "./lib/time-zone.server";
import styles from "./styles/app.css?url";
import { publicPageMeta } from "~/lib/page-meta";

export const links: LinksFunction = () => [
  { rel: "stylesheet", href: styles },
  { rel: "icon", href: "/favicon.svg", type: "image/svg+xml" },
];

export const meta: MetaFunction = () => publicPageMeta("Backlink Market - a new way of backlink building");

/**
 * The viewer's time zone, which the browser reports in a cookie (UTC until it does, and without JavaScript), and its
 * offsets, with which the browser tells whether it needs to report its own.
 */
export function loader({ request, context }: LoaderFunctionArgs) {
  return viewerTimeZone(request, context.now());
}

// The zone changes only when the browser reports it, which revalidates the page in place (same address, no form).
export const shouldRevalidate: ShouldRevalidateFunction = ({ currentUrl, nextUrl, formMethod, defaultShouldRevalidate }) =>
  !formMethod && currentUrl.href === nextUrl.href ? defaultShouldRevalidate : false;

export function Layout({ children }: { children: ReactNode }) {
  const nonce = useNonce();
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <Meta />
        <Links />
      </head>
      <body>
        {children}
        <ScrollRestoration nonce={nonce} />
        <Scripts nonce={nonce} />
      </body>
    </html>
  );
}

/** Marks the page as hydrated: tests with JavaScript wait for it before they interact. */
function useHydratedMark() {
  useEffect(() => {
    document.documentElement.dataset.hydrated = "true";
  }, []);
}

export default function App() {
  useHydratedMark();
  const { timeZone, offsets } = useLoaderData<typeof loader>();
  useReportTimeZone(timeZone, offsets);
  return <Outlet />;
}

export function ErrorBoundary() {
  const error = useRouteError();
  useHydratedMark();
  const notFound = isRouteErrorResponse(error) && error.status === 404;
  return (
    <main className="error-page">
      <h1>{notFound ? "Page not found" : "Something went wrong"}</h1>
      <p>{notFound ? "There is nothing at this address." : "Please try again in a moment."}</p>
      <Link to="/" className="button button-primary">
        Home
      </Link>
    </main>
  );
}

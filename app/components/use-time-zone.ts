import { useRevalidator, useRouteLoaderData } from "@remix-run/react";
import { useEffect } from "react";
import { DEFAULT_TIME_ZONE, isTimeZone, TIME_ZONE_COOKIE } from "~/domain/dates";

/** The viewer's time zone, as the server rendered the page with it (the root loader reads the cookie). */
export function useTimeZone(): string {
  return useRouteLoaderData<{ timeZone: string }>("root")?.timeZone ?? DEFAULT_TIME_ZONE;
}

/**
 * Tells the server the browser's time zone in a cookie, once, when it differs from the one the page was rendered
 * with; the page then reloads its data and shows times in that zone. Without JavaScript this never runs: UTC.
 */
export function useReportTimeZone(rendered: string) {
  const revalidator = useRevalidator();
  useEffect(() => {
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (!isTimeZone(zone) || zone === rendered) return;
    const secure = location.protocol === "https:" ? "; Secure" : "";
    document.cookie = `${TIME_ZONE_COOKIE}=${encodeURIComponent(zone)}; Path=/; Max-Age=31536000; SameSite=Lax${secure}`;
    // Cookies may be blocked: reload the data only when the cookie will be sent.
    if (document.cookie.includes(`${TIME_ZONE_COOKIE}=${encodeURIComponent(zone)}`)) revalidator.revalidate();
    // Once per page load: the zone the page was first rendered with is what counts.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
}

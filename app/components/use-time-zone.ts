import { useRevalidator, useRouteLoaderData } from "@remix-run/react";
import { useEffect } from "react";
import { clockOffsets, DEFAULT_TIME_ZONE, isTimeZone, sameOffsets, TIME_ZONE_COOKIE } from "~/domain/time-zones";

/** The viewer's time zone, as the server rendered the page with it (the root loader reads the cookie). */
export function useTimeZone(): string {
  return useRouteLoaderData<{ timeZone: string }>("root")?.timeZone ?? DEFAULT_TIME_ZONE;
}

/**
 * Tells the server the browser's time zone in a cookie, once, when it differs from the one the page was rendered
 * with; the page then reloads its data and shows times in that zone. Without JavaScript this never runs: UTC.
 *
 * Only `Intl` names the browser's zone, and its first use in a page holds the main thread while it sets itself up (23
 * to 65 ms on the machine of the tests, several times that on a slow phone), on pages that show no date as well. So
 * the zone is read only when the browser's clock is off from the rendered zone's offsets (`renderedOffsets`, from the
 * server): where they agree, the page already shows the browser's times
 * (docs/decisions/0044-zone-read-only-when-clock-disagrees.md).
 */
export function useReportTimeZone(rendered: string, renderedOffsets: readonly number[]) {
  const revalidator = useRevalidator();
  useEffect(() => {
    if (sameOffsets(renderedOffsets, clockOffsets(Date.now()))) return;
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

import { zoneOffsets } from "~/domain/dates";
import { TIME_ZONE_COOKIE, timeZoneOrDefault } from "~/domain/time-zones";
import { readCookie } from "~/services/sessions.server";

/** The viewer's time zone from the cookie the browser sets (docs/decisions/0023-viewer-time-zone.md); UTC without it. */
export function timeZoneOf(request: Request): string {
  return timeZoneOrDefault(readCookie(request, TIME_ZONE_COOKIE));
}

/** The viewer's zone and its offsets at the time (`zoneOffsets`), with which the browser tells whether to report its own. */
export function viewerTimeZone(request: Request, now: number) {
  const timeZone = timeZoneOf(request);
  return { timeZone, offsets: zoneOffsets(timeZone, now) };
}

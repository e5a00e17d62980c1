import { TIME_ZONE_COOKIE, timeZoneOrDefault } from "~/domain/dates";
import { readCookie } from "~/services/sessions.server";

/** The viewer's time zone from the cookie the browser sets (docs/decisions/0023-viewer-time-zone.md); UTC without it. */
export function timeZoneOf(request: Request): string {
  return timeZoneOrDefault(readCookie(request, TIME_ZONE_COOKIE));
}

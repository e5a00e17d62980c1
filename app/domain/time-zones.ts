/**
 * Time zones as the browser reports them and the server reads them (docs/decisions/0023-viewer-time-zone.md): an IANA
 * name in a cookie, UTC when none is known. Apart from the dates (dates.ts), as every page loads this to report the
 * zone and only the pages that show dates load those.
 */
export const DEFAULT_TIME_ZONE = "UTC";
/** The cookie in which the browser reports its time zone. */
export const TIME_ZONE_COOKIE = "tz";

/** The canonical name of a zone this runtime knows (a cookie can hold anything, in any letter case), or null. */
function canonicalTimeZone(name: string | null | undefined): string | null {
  if (!name || name.length > 64) return null;
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/** The zone a cookie names, in its canonical spelling, when this runtime knows it; else UTC. */
export function timeZoneOrDefault(name: string | null | undefined): string {
  return canonicalTimeZone(name) ?? DEFAULT_TIME_ZONE;
}

/** Whether the name is a time zone this runtime knows. */
export function isTimeZone(name: string | null | undefined): name is string {
  return canonicalTimeZone(name) !== null;
}

/** The instants at which two zones' offsets are compared: now, and 1 January and 1 July of this year (UTC). */
export function offsetInstants(now: number): number[] {
  const year = new Date(now).getUTCFullYear();
  return [now, Date.UTC(year, 0, 1), Date.UTC(year, 6, 1)];
}

/** `zoneOffsets` (dates.ts) for the zone of this runtime's own clock, read from `Date` (no `Intl`, whose first use is slow). */
export function clockOffsets(now: number): number[] {
  return offsetInstants(now).map((at) => new Date(at).getTimezoneOffset());
}

/** Whether two zones' offsets (`zoneOffsets`, `clockOffsets`) are the same. */
export function sameOffsets(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((offset, i) => offset === b[i]);
}

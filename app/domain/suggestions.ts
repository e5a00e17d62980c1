import { partsIn } from "./dates";
import { DEFAULT_TIME_ZONE } from "./time-zones";

/** Suggestions on the dashboard: sites about the day's tag (the site's tags in turn, by weekday) and random picks. */
export const SUGGESTIONS_PER_SECTION = 5;
/** With this many matches or fewer for the day's tag, random sites are suggested instead. */
export const TOO_FEW_TAG_MATCHES = 2;

/** The viewer's day of the week, 0 (Sunday) to 6. */
export function dayOfWeek(at: number, timeZone = DEFAULT_TIME_ZONE): number {
  return partsIn(at, timeZone).weekday;
}

/**
 * The tag rotates by day of week (the viewer's) over the site's tags; null when the site has none. The dashboard's
 * suggestions read the same rule in SQL (dashboard.server.ts).
 */
export function tagOfTheDay(tags: readonly string[], at: number, timeZone = DEFAULT_TIME_ZONE): string | null {
  if (tags.length === 0) return null;
  return tags[dayOfWeek(at, timeZone) % tags.length] ?? null;
}

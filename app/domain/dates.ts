/**
 * Dates as the product shows them, in the viewer's time zone (docs/decisions/0023-viewer-time-zone.md): clock time
 * (12-hour with AM/PM) for today, otherwise month/day (day/month for chat messages), with the year when it is not
 * this year. "Today" is the viewer's day. The zone is an IANA name; the server renders with the one the browser
 * reported, and the browser hydrates with the same one, so both render the same text. UTC when none is known.
 */
import { DEFAULT_TIME_ZONE, offsetInstants } from "./time-zones";

export const SCORE_FALLBACK_DATE = Date.UTC(2024, 2, 7);

interface Parts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  weekday: number;
}

const WEEKDAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const formatters = new Map<string, Intl.DateTimeFormat>();

/** One formatter per zone, kept: the zones are canonical names (timeZoneOrDefault), a few hundred at most. */
function formatterFor(timeZone: string) {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    if (formatters.size >= 600) formatters.clear();
    formatter = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      weekday: "short",
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/**
 * The calendar and clock in the zone at an instant. In UTC (every viewer whose browser reported no other zone) they
 * are read from `Date`'s UTC fields: the same values without `Intl`, whose first use in a page costs 23 to 65 ms of
 * its main thread while it hydrates (docs/decisions/0044-zone-read-only-when-clock-disagrees.md).
 */
export function partsIn(at: number, timeZone: string): Parts {
  if (timeZone === DEFAULT_TIME_ZONE) {
    const date = new Date(at);
    return {
      year: date.getUTCFullYear(),
      month: date.getUTCMonth() + 1,
      day: date.getUTCDate(),
      hour: date.getUTCHours(),
      minute: date.getUTCMinutes(),
      weekday: date.getUTCDay(),
    };
  }
  const parts: Record<string, string> = {};
  for (const part of formatterFor(timeZone).formatToParts(new Date(at))) parts[part.type] = part.value;
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour) % 24,
    minute: Number(parts.minute),
    weekday: WEEKDAYS.indexOf(parts.weekday ?? ""),
  };
}

/** Minutes behind UTC in the zone at an instant, as `Date#getTimezoneOffset` counts them (negative east of UTC). */
function offsetIn(timeZone: string, at: number): number {
  if (timeZone === DEFAULT_TIME_ZONE) return 0;
  const minute = Math.floor(at / 60_000) * 60_000;
  const wall = partsIn(minute, timeZone);
  return (minute - Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute)) / 60_000;
}

/**
 * The zone's offsets now and in both halves of the year. Two zones with the same offsets show the same times, except
 * in the days between their daylight-saving changes when the dates of those differ.
 */
export function zoneOffsets(timeZone: string, now: number): number[] {
  return offsetInstants(now).map((at) => offsetIn(timeZone, at));
}

function sameDay(a: Parts, b: Parts) {
  return a.year === b.year && a.month === b.month && a.day === b.day;
}

/** Whether two instants fall on the same calendar day in the zone. */
export function isSameDayIn(a: number, b: number, timeZone: string): boolean {
  return sameDay(partsIn(a, timeZone), partsIn(b, timeZone));
}

export function clockTime({ hour, minute }: Parts): string {
  return `${hour % 12 === 0 ? 12 : hour % 12}:${String(minute).padStart(2, "0")} ${hour < 12 ? "AM" : "PM"}`;
}

/** Clock time today, otherwise the date in the given order, with the year when it is not this year. */
function shortDate(at: number, now: number, timeZone: string, order: "month/day" | "day/month"): string {
  const date = partsIn(at, timeZone);
  const today = partsIn(now, timeZone);
  if (sameDay(date, today)) return clockTime(date);
  const short = order === "month/day" ? `${date.month}/${date.day}` : `${date.day}/${date.month}`;
  return date.year === today.year ? short : `${short}/${date.year}`;
}

export function formatShortDate(at: number, now: number, timeZone = DEFAULT_TIME_ZONE): string {
  return shortDate(at, now, timeZone, "month/day");
}

/** A chat message's time: clock time today, otherwise day/month, with the year when not this year. */
export function formatMessageTime(at: number, now: number, timeZone = DEFAULT_TIME_ZONE): string {
  return shortDate(at, now, timeZone, "day/month");
}

/**
 * The Your Score page's last run date; 7 March 2024 when the site has never been scored: a day of the calendar, not an
 * instant, so it reads the same in every zone (midnight UTC is still the 6th in the Americas).
 */
export function formatRunDate(runAt: number | null | undefined, now: number, timeZone = DEFAULT_TIME_ZONE): string {
  return runAt == null ? formatShortDate(SCORE_FALLBACK_DATE, now, DEFAULT_TIME_ZONE) : formatShortDate(runAt, now, timeZone);
}

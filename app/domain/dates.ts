/**
 * Dates as the product shows them (spec 2 and 9), in UTC so the server and the browser render the same text:
 * clock time (12-hour with AM/PM) for today, otherwise month/day, with the year when it is not this year.
 */
export const SCORE_FALLBACK_DATE = Date.UTC(2024, 2, 7);

function sameUtcDay(a: Date, b: Date) {
  return a.getUTCFullYear() === b.getUTCFullYear() && a.getUTCMonth() === b.getUTCMonth() && a.getUTCDate() === b.getUTCDate();
}

export function formatShortDate(at: number, now: number): string {
  const date = new Date(at);
  const today = new Date(now);
  if (sameUtcDay(date, today)) {
    const hours = date.getUTCHours();
    const minutes = String(date.getUTCMinutes()).padStart(2, "0");
    return `${hours % 12 === 0 ? 12 : hours % 12}:${minutes} ${hours < 12 ? "AM" : "PM"}`;
  }
  const monthDay = `${date.getUTCMonth() + 1}/${date.getUTCDate()}`;
  return date.getUTCFullYear() === today.getUTCFullYear() ? monthDay : `${monthDay}/${date.getUTCFullYear()}`;
}

/** The Your Score page's last run date; 7 March 2024 when the site has never been scored. */
export function formatRunDate(runAt: number | null | undefined, now: number): string {
  return formatShortDate(runAt ?? SCORE_FALLBACK_DATE, now);
}

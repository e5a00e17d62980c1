/**
 * Dates as the product shows them, in UTC so the server and the browser render the same text:
 * clock time (12-hour with AM/PM) for today, otherwise month/day (day/month for chat messages), with the year when
 * it is not this year.
 */
export const SCORE_FALLBACK_DATE = Date.UTC(2024, 2, 7);

function sameUtcDay(a: Date, b: Date) {
  return a.getUTCFullYear() === b.getUTCFullYear() && a.getUTCMonth() === b.getUTCMonth() && a.getUTCDate() === b.getUTCDate();
}

function clockTime(date: Date): string {
  const hours = date.getUTCHours();
  const minutes = String(date.getUTCMinutes()).padStart(2, "0");
  return `${hours % 12 === 0 ? 12 : hours % 12}:${minutes} ${hours < 12 ? "AM" : "PM"}`;
}

export function formatShortDate(at: number, now: number): string {
  const date = new Date(at);
  const today = new Date(now);
  if (sameUtcDay(date, today)) return clockTime(date);
  const monthDay = `${date.getUTCMonth() + 1}/${date.getUTCDate()}`;
  return date.getUTCFullYear() === today.getUTCFullYear() ? monthDay : `${monthDay}/${date.getUTCFullYear()}`;
}

/** A chat message's time: clock time today, otherwise day/month, with the year when not this year. */
export function formatMessageTime(at: number, now: number): string {
  const date = new Date(at);
  const today = new Date(now);
  if (sameUtcDay(date, today)) return clockTime(date);
  const dayMonth = `${date.getUTCDate()}/${date.getUTCMonth() + 1}`;
  return date.getUTCFullYear() === today.getUTCFullYear() ? dayMonth : `${dayMonth}/${date.getUTCFullYear()}`;
}

/** The Your Score page's last run date; 7 March 2024 when the site has never been scored. */
export function formatRunDate(runAt: number | null | undefined, now: number): string {
  return formatShortDate(runAt ?? SCORE_FALLBACK_DATE, now);
}

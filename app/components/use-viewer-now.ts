import { useEffect, useState } from "react";
import { isSameDayIn } from "~/domain/dates";
import { useTimeZone } from "./use-time-zone";

/** How often an open page checks whether the viewer's day has changed. */
const DAY_CHECK_MS = 60_000;

/**
 * "Now" for times shown as a clock time today and a date otherwise: the server's instant (the browser's first render
 * matches the page), moved to the browser's clock once the viewer's day is no longer that instant's day. Checked
 * each minute and whenever `latest` changes (a message arrived): a conversation left open past midnight used the
 * page's load time, so the new day's messages showed as dates and yesterday's as clock times until a reload.
 */
export function useViewerNow(serverNow: number, latest?: unknown): number {
  const timeZone = useTimeZone();
  const [now, setNow] = useState(serverNow);
  useEffect(() => {
    const check = (shown: number) => {
      const current = Date.now();
      return isSameDayIn(shown, current, timeZone) ? shown : current;
    };
    setNow(check(serverNow));
    const timer = setInterval(() => setNow(check), DAY_CHECK_MS);
    return () => clearInterval(timer);
  }, [serverNow, timeZone, latest]);
  return now;
}

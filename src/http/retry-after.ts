/**
 * How long rsi waits before asking again, for every request that may be retried: the API's retry
 * layer (src/http/retrying-http.ts: 429, 502, 503, 504 and network failures) and OAuth client
 * registration (src/auth/login.ts: 429 slow_down). One reading of Retry-After, one cap, one backoff.
 *
 * - Retry-After (RFC 9110 §10.2.3) is delta-seconds or an HTTP-date, in any of the three forms a
 *   recipient must accept. Anything else is unreadable and counts as absent: `Date.parse` alone
 *   would read "-5" or "1.5" as dates in 2001, which are in the past, so rsi would ask again at once.
 * - A wait is honoured only up to `MAX_RETRY_WAIT_MS`: a CLI should not sit silent for minutes, and
 *   a service that asks for more is better answered with its own words and the time to wait.
 * - Without a readable Retry-After, a jittered exponential backoff, so clients that failed together
 *   do not come back together.
 */

/** The longest rsi waits by itself before one more attempt. */
export const MAX_RETRY_WAIT_MS = 10_000;

/** RFC 9110: a delta-seconds too large to represent is read as 2^31 seconds. */
const MAX_DELTA_SECONDS = 2 ** 31;

// RFC 9110 §5.6.7: IMF-fixdate, and the obsolete RFC 850 and asctime forms.
const IMF_FIXDATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;
const RFC850_DATE =
  /^(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), \d{2}-(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)-\d{2} \d{2}:\d{2}:\d{2} GMT$/;
const ASCTIME_DATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/;

/**
 * Retry-After as milliseconds from `now`: delta-seconds, or an HTTP-date (one in the past is 0).
 * Undefined when absent or unreadable (negative, fractional, a date in another format, words).
 */
export function parseRetryAfter(value: string | null | undefined, now: number): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Math.min(Number(text), MAX_DELTA_SECONDS) * 1000;
  let date: number;
  if (IMF_FIXDATE.test(text) || RFC850_DATE.test(text)) date = Date.parse(text);
  // asctime carries no zone; HTTP means GMT (Date.parse would read it as local time).
  else if (ASCTIME_DATE.test(text)) date = Date.parse(`${text} GMT`);
  else return undefined;
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Jittered exponential backoff for attempt 0, 1, 2…: `base·2^attempt`, spread over ±50 %. */
export function backoffMs(attempt: number, random: () => number = Math.random, baseMs = 250): number {
  const base = baseMs * 2 ** attempt;
  return base / 2 + random() * base;
}

export interface RetryWait {
  /** How long to wait before the next attempt, in milliseconds. */
  waitMs: number;
  /** False when the service asked for longer than rsi waits by itself: give up and say so. */
  retry: boolean;
}

/**
 * The wait before attempt `attempt + 1`: what Retry-After asks for when it is readable, else the
 * backoff; and whether rsi waits that long at all.
 */
export function retryWait(
  retryAfter: string | null | undefined,
  options: { now: number; attempt: number; random?: (() => number) | undefined; baseMs?: number },
): RetryWait {
  const asked = parseRetryAfter(retryAfter, options.now);
  const waitMs = asked ?? backoffMs(options.attempt, options.random, options.baseMs);
  return { waitMs, retry: waitMs <= MAX_RETRY_WAIT_MS };
}

/**
 * The one read-ahead walk: `rsi keywords search --all` (numbered pages) and `rsi keywords relations
 * --all` (offsets) fetch ahead through it, with the window of window.ts and the policy below (how
 * many pages, from RSI_PAGES_IN_FLIGHT); the batches from stdin use the same window over their
 * input lines (commands/shared/batch.ts).
 *
 * Only an empty page ends a walk (or the page cap, `MAX_PAGES`, with an error): a page shorter than the others is followed, not taken for the
 * end (servers that filter rows after paging send short pages mid-walk). A `total` the server sends
 * only bounds the read-ahead, never ends it; the caller compares it with what came (`WalkEnd`).
 */
import { UnexpectedReplyError, UsageError } from '../errors.js';
import { type InFlight, PageWindow } from './window.js';

/**
 * Pages a walk keeps in flight. Unset, the window adapts (window.ts): it starts at what a browser
 * opens to one host, grows to the hard cap while the server answers as fast as it did alone, and
 * halves when it slows down (docs/performance.md). RSI_PAGES_IN_FLIGHT fixes it from 1 (one page at
 * a time) up to the same cap, so no setting lets rsi hammer the service.
 */
export const PAGES_IN_FLIGHT = { default: 6, max: 8 } as const;

/** The fixed window RSI_PAGES_IN_FLIGHT asks for, or the adaptive window's start when it is unset. */
export function pagesInFlight(env: Readonly<Record<string, string | undefined>>): number {
  const raw = env.RSI_PAGES_IN_FLIGHT;
  if (raw === undefined || raw === '') return PAGES_IN_FLIGHT.default;
  const text = raw.trim();
  const n = /^-?\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isInteger(n) || n < 1 || n > PAGES_IN_FLIGHT.max)
    throw new UsageError(`RSI_PAGES_IN_FLIGHT must be an integer from 1 to ${PAGES_IN_FLIGHT.max} (got "${raw}")`);
  return n;
}

/**
 * The most pages one walk reads (`--all`, `rsi api --paginate`): a server whose pages never end
 * (a new "next page" every time) stops here with exit 1 instead of walking forever. A batch from
 * stdin streams and has no item cap. RSI_MAX_PAGES sets another cap, from 1 to `max`.
 */
export const MAX_PAGES = { default: 10_000, max: 1_000_000 } as const;

/** The page cap RSI_MAX_PAGES asks for, or the default; a bad value is a usage error before any request. */
export function maxPages(env: Readonly<Record<string, string | undefined>>): number {
  const raw = env.RSI_MAX_PAGES;
  if (raw === undefined || raw === '') return MAX_PAGES.default;
  const text = raw.trim();
  const n = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1 || n > MAX_PAGES.max)
    throw new UsageError(`RSI_MAX_PAGES must be an integer from 1 to ${MAX_PAGES.max} (got "${raw}")`);
  return n;
}

/** The error for a walk that reached the page cap with pages still coming. */
export function pageCapError(what: string, cap: number): UnexpectedReplyError {
  return new UnexpectedReplyError(`${what}: stopped after ${cap} pages, and the service was still sending rows`, {
    hint: `the walk has a cap of ${cap} pages (RSI_MAX_PAGES, default ${MAX_PAGES.default}); narrow the query, or raise the cap if the data really is that long`,
  });
}

/** What a walk is given: the user's fixed window, else an adaptive one timed by `now`. */
export function pageWindow(env: Readonly<Record<string, string | undefined>>, clock: { now(): number }): InFlight {
  const raw = env.RSI_PAGES_IN_FLIGHT;
  if (raw !== undefined && raw !== '') return pagesInFlight(env);
  return { start: PAGES_IN_FLIGHT.default, max: PAGES_IN_FLIGHT.max, now: () => clock.now() };
}

/** What one request takes: the abort signal, and the HTTP layer's "about to retry" call. */
export interface RequestOptions {
  signal?: AbortSignal | undefined;
  onRetry?: ((waitMs: number) => void) | undefined;
}

/** One page as the walk sees it. */
export interface Page<T> {
  rows: readonly T[];
  /** The server's total of rows, when it sent one. */
  total?: number | undefined;
  /** Rows per numbered page, as the server says (numbered pages only). */
  pageSize?: number;
}

export interface Walk<T> {
  /** `page`: positions are page numbers from `start`; `row`: positions are row offsets. */
  by: 'page' | 'row';
  start: number;
  window: InFlight | PageWindow;
  fetch(position: number, options: RequestOptions): Promise<Page<T>>;
  signal?: AbortSignal | undefined;
  /** Told, besides the window, when a page is about to be retried (a batch holds its other requests). */
  onRetry?: ((waitMs: number) => void) | undefined;
  /** A total known before the first page (a batch's item count): bounds the read-ahead from the start. */
  total?: number;
  /**
   * The first page goes alone (default): its size and total guide the rest, and its round trip is
   * the window's unloaded time. A batch, whose items say nothing of each other, fills the window at once.
   */
  probe?: boolean;
  /**
   * The error for a page that repeats the one before it, word for word (a server ignoring the
   * paging parameters would make the walk loop forever). Left out: repeats are not checked.
   */
  repeated?: (position: number, previous: number) => Error;
  /**
   * The most non-empty pages the walk reads (default `MAX_PAGES.default`): one page more is
   * fetched to see whether the walk ends there, and a page with rows at that point is `capped`'s
   * error (default: a generic one), so a server whose pages never end cannot make it run forever.
   */
  maxPages?: number | undefined;
  capped?: (cap: number) => Error;
  /** Told how the walk ended, when it ran to its end (not when the reader stopped early or it failed). */
  onEnd?: (end: WalkEnd) => void;
}

/** How a walk ended: rows received, the position after the last row, and the totals the server sent. */
export interface WalkEnd {
  received: number;
  end: number;
  totals: ReadonlySet<number>;
}

/**
 * Yields every row of the walk in order. Pages are requested ahead while earlier ones are consumed,
 * as many as the window says, never starting past a promised total the data has not passed (the
 * page starting at the total goes too: when the last page is full, that empty page ends the walk,
 * and fetching it with the others saves a round trip). The first page goes alone unless `probe` is
 * false. A row walk steps by the rows each page held; when a page comes
 * back shorter than the stride, the pages in flight no longer line up and are dropped (after they
 * settle, so no more than the window's requests are ever out). Memory holds at most the window's
 * pages, whatever the total; an early stop or an error leaves nothing in flight.
 */
export async function* readAhead<T>(walk: Walk<T>): AsyncGenerator<T, WalkEnd> {
  const window = walk.window instanceof PageWindow ? walk.window : new PageWindow(walk.window);
  const totals = new Set<number>(walk.total === undefined ? [] : [walk.total]);
  const queue: Array<{ position: number; page: Promise<Page<T>> }> = [];
  let received = 0;
  let cursor = walk.start;
  let next = walk.start;
  let stride = 0;
  let pageSize = 0;
  let previous: { position: number; rows: readonly T[] } | undefined;
  const cap = walk.maxPages ?? MAX_PAGES.default;
  // Pages with rows consumed so far; the pages in flight never reach past the cap and the one after it.
  let pages = 0;
  const rowsBefore = (position: number): number => (walk.by === 'page' ? (position - walk.start) * pageSize : position);
  const launch = (): void => {
    const ticket = window.sent();
    const position = next;
    const page = walk.fetch(position, {
      signal: walk.signal,
      onRetry: (waitMs) => {
        window.retried(ticket);
        walk.onRetry?.(waitMs);
      },
    });
    // Observed when its turn comes, or discarded; only a reply times the window.
    page.then(
      () => window.settled(ticket),
      () => undefined,
    );
    queue.push({ position, page });
    next = walk.by === 'page' ? next + 1 : next + Math.max(1, stride);
  };
  const fill = (): void => {
    // Read ahead up to the promised total; once the data has passed it, the total is no guide.
    const promised = Math.max(...totals);
    const ahead = walk.by === 'page' ? received : cursor;
    const bound = totals.size === 0 || ahead > promised ? Number.POSITIVE_INFINITY : promised;
    while (queue.length < window.size && pages + queue.length <= cap && (queue.length === 0 || rowsBefore(next) <= bound)) launch();
  };
  try {
    if (walk.probe === false) fill();
    else launch();
    for (;;) {
      const { position, page: pending } = queue.shift()!;
      const page = await pending;
      const n = page.rows.length;
      if (Number.isInteger(page.total)) totals.add(page.total!);
      if (n === 0) break;
      if (++pages > cap) throw walk.capped ? walk.capped(cap) : pageCapError('the walk', cap);
      if (walk.repeated) {
        // The same rows as the page before: compared whole only when the first rows are the same
        // (a page's text was made for every page, 12 ms of a 54-page walk).
        if (previous && samePage(previous.rows, page.rows)) throw walk.repeated(position, previous.position);
        previous = { position, rows: page.rows };
      }
      // The first reply's total says how many pages follow: the window opens to them at once.
      if (pages === 1 && Number.isInteger(page.total) && walk.probe !== false) {
        const ahead = Math.ceil((page.total! - rowsBefore(position) - n) / (walk.by === 'page' ? (page.pageSize ?? n) : n));
        window.open(ahead);
      }
      yield* page.rows;
      received += n;
      if (walk.by === 'page') {
        pageSize = page.pageSize ?? n;
      } else {
        cursor = position + n;
        stride = n;
        if (queue.length > 0 && queue[0]!.position !== cursor) await Promise.allSettled(queue.splice(0).map((stale) => stale.page));
        if (queue.length === 0) next = cursor;
      }
      fill();
    }
  } finally {
    await Promise.allSettled(queue.map((x) => x.page));
  }
  const end = { received, end: walk.by === 'page' ? received : cursor, totals };
  walk.onEnd?.(end);
  return end;
}

/** Whether two pages hold the same rows, in the same order (as JSON). */
function samePage<T>(a: readonly T[], b: readonly T[]): boolean {
  return a.length === b.length && JSON.stringify(a[0]) === JSON.stringify(b[0]) && JSON.stringify(a) === JSON.stringify(b);
}

/** A request's options from what a caller passed: nothing, an abort signal alone, or the options. */
export function requestOf(given: AbortSignal | RequestOptions | undefined): RequestOptions {
  return given === undefined ? {} : given instanceof AbortSignal ? { signal: given } : given;
}

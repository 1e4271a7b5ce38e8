/**
 * The paged endpoints a walk (`--all`) reads, each declared once as data: where it lives, how a
 * position becomes a request, what a page holds, and what to say when the server's total disagrees
 * with its rows. `ApiClient.walk` is the one walk over any of them (readAhead of paging.ts).
 */
import type * as z from 'zod/mini';
import type { Page, WalkEnd } from './paging.js';
import type { InFlight } from './window.js';
import * as S from './schemas.js';

/** How one walk runs: pages in flight, the page cap, and where a doubtful total is reported. */
export interface WalkOptions {
  /** Pages requested ahead while earlier ones print: fixed, or adaptive (default: the endpoint's). */
  window?: InFlight | undefined;
  /** The page cap (paging.ts `maxPages`); default `MAX_PAGES.default`. */
  maxPages?: number | undefined;
  onWarning?: ((message: string) => void) | undefined;
  /** Each page as it arrives (in any order): its rows and the total the server sent with it, for a progress line. */
  onPage?: ((rows: number, total: number | undefined) => void) | undefined;
}

/** A paged endpoint, for `ApiClient.walk`: `Q` what the caller asks, `R` a page's reply, `T` a row. */
export interface PagedEndpoint<Q, R, T> {
  /** `page`: numbered pages (the server decides their size); `row`: offsets, stepped by the rows received. */
  by: 'page' | 'row';
  path(q: Q): string;
  reply(): z.ZodMiniType<R>;
  /** Where the walk starts (page 1, or the caller's offset). */
  start(q: Q): number;
  /** Pages in flight when the caller gives no window. */
  window: number;
  /** The query of the request at `position`. */
  query(q: Q, position: number): Record<string, string | number | undefined>;
  page(reply: R): Page<T>;
  /** How two positions read in the error for a page that repeats the one before it. */
  positions(path: string, position: number, before: number): [string, string];
  /** The warning for totals the server sent that disagree with the rows it sent; undefined when they agree. */
  disagreement(q: Q, end: WalkEnd, start: number): string | undefined;
}

/** `rsi keywords search --all`: numbered pages; only an empty page ends the walk, `meta.total` (not in the spec) is only checked. */
export const KEYWORD_SEARCH: PagedEndpoint<{ q: string; limit?: number | undefined }, S.KeywordSearchPage, S.KeywordHit> = {
  by: 'page',
  path: () => '/keywords',
  reply: () => S.KeywordSearchPage(),
  start: () => 1,
  window: 3,
  query: (q, page) => ({ q: q.q, page, limit: q.limit ?? 20 }),
  page: (res) => {
    const total = (res.meta as { total?: unknown }).total;
    return { rows: res.data, total: Number.isInteger(total) ? (total as number) : undefined, pageSize: res.meta.pageSize };
  },
  positions: (path, page, before) => [`GET ${path} page ${page}`, `page ${before}`],
  disagreement: (q, { received, totals }) => {
    const wrong = [...totals].filter((t) => t !== received);
    return wrong.length > 0
      ? `the service reported ${wrong.join(' or ')} hits in total for "${q.q}" but sent ${received}; all ${received} are shown`
      : undefined;
  },
};

/** `rsi keywords relations --all`: offsets from the caller's; `meta.total` only bounds the read-ahead. */
export const RELATIONS: PagedEndpoint<
  { id: string; relation: string; activity?: string | undefined; pageSize?: number | undefined; offset?: number | undefined },
  S.RelationPage,
  S.RelationItem
> = {
  by: 'row',
  path: (q) => `/keywords/${q.id}/relations`,
  reply: () => S.RelationPage(),
  start: (q) => q.offset ?? 0,
  window: 4,
  query: (q, offset) => ({ relation: q.relation, activity: q.activity, limit: q.pageSize ?? 100, offset }),
  page: (page) => ({ rows: page.data, total: page.meta.total }),
  positions: (_path, offset, before) => [`offset ${offset}`, `offset ${before}`],
  disagreement: (q, { end, totals }, start) => {
    // An offset at or past the total that finds nothing agrees with it.
    const wrong = [...totals].filter((t) => t !== end && !(end === start && t <= start));
    return wrong.length > 0
      ? `the service reported a total of ${wrong.join(' or ')} ${q.relation} links, but the data ended at ${end}; all ${end - start} links it sent are shown`
      : undefined;
  },
};

/**
 * How many pages a paging walk (`--all`) keeps in flight. A number is a fixed window: the user
 * chose it (RSI_PAGES_IN_FLIGHT) and it never moves. Otherwise the window adapts, Vegas-style, to
 * the round trips of the pages themselves: while a page comes back about as fast as the fastest
 * page so far, the server is not queueing and one more page may fly; when one comes back well
 * slower (the server queues, or the HTTP layer had to retry or back off), the window halves.
 * An absolute slack keeps the few milliseconds of jitter a busy event loop adds on loopback from
 * counting as either. Pure: time comes in through `now`, so tests need no real clock.
 */

/** An adaptive window: `start` pages after the first page, then between `min` and `max`. */
export interface AdaptiveInFlight {
  start: number;
  /** The hard cap: never more pages in flight than this. */
  max: number;
  /** Never fewer than this (default 2, the per-server connection limit of RFC 2616 §8.1.4). */
  min?: number;
  /** Milliseconds from the root's clock; each page's round trip is timed with it. */
  now: () => number;
}

/** A number is a fixed window; an object an adaptive one. */
export type InFlight = number | AdaptiveInFlight;

/** A page in flight: when it was sent, and under which window (`cuts` so far). */
export interface PageTicket {
  readonly sentAt: number;
  readonly cuts: number;
}

/** Round trips within this much (plus a quarter) of the best are "not queueing"; see the class. */
export const SLACK_MS = 25;

export class PageWindow {
  #size: number;
  readonly #min: number;
  readonly #max: number;
  readonly #now: (() => number) | undefined;
  #best = Number.POSITIVE_INFINITY;
  #samples = 0;
  #cuts = 0;

  constructor(setting: InFlight) {
    if (typeof setting === 'number') {
      this.#size = this.#min = this.#max = Math.max(1, Math.floor(setting));
      this.#now = undefined;
      return;
    }
    this.#max = Math.max(1, Math.floor(setting.max));
    this.#min = Math.min(this.#max, Math.max(1, Math.floor(setting.min ?? 2)));
    this.#size = Math.min(this.#max, Math.max(this.#min, Math.floor(setting.start)));
    this.#now = setting.now;
  }

  /** Pages to keep in flight now. */
  get size(): number {
    return this.#size;
  }

  /**
   * The first reply said how many pages follow (its total): an adaptive window opens at once to
   * as many of them as the cap allows, instead of climbing to the cap one reply at a time; the
   * replies that follow still cut it when the server slows down. A fixed window never moves.
   */
  open(pagesAhead: number): void {
    if (this.#now === undefined || this.#cuts > 0) return;
    this.#size = Math.max(this.#size, Math.min(this.#max, Math.floor(pagesAhead)));
  }

  /** Call as a page's request goes out. */
  sent(): PageTicket {
    return { sentAt: this.#now?.() ?? 0, cuts: this.#cuts };
  }

  /** Call when that page's reply has arrived (not when it errs: an error ends the walk). */
  settled(ticket: PageTicket): void {
    if (this.#now) this.observe(this.#now() - ticket.sentAt, ticket.cuts);
  }

  /**
   * The HTTP layer is about to retry that page (a 429, 502, 503, 504, a reset or a timeout): the
   * service says it is struggling, whatever the clock says, so the window halves as it does for a
   * slow page. Only once per window: retries of pages sent into a larger window, or a second retry
   * of the same page, say nothing new. Counts even when every page is retried alike, which the
   * round trips alone cannot see (the best round trip would be a retried one too).
   */
  retried(ticket: PageTicket): void {
    if (this.#now === undefined || ticket.cuts !== this.#cuts) return;
    this.#cut();
  }

  #cut(): void {
    this.#size = Math.max(this.#min, Math.ceil(this.#size / 2));
    this.#cuts++;
  }

  /**
   * One page's round trip in ms. The fastest seen is the server's unloaded time (the first page
   * goes alone, so it sets it without moving the window: one page in flight says nothing about
   * six). A page sent before the last cut was sent into the larger window and says nothing about
   * the current one, so it only updates the best.
   */
  observe(ms: number, cuts = this.#cuts): void {
    if (this.#now === undefined) return;
    this.#best = Math.min(this.#best, ms);
    if (this.#samples++ === 0 || cuts !== this.#cuts) return;
    if (ms > 2 * this.#best + 2 * SLACK_MS) {
      // Well above the best: the server is queueing our pages (or was retried). Halve, as AIMD
      // does, and ignore the replies already on their way from the larger window.
      this.#cut();
    } else if (ms <= 1.25 * this.#best + SLACK_MS) {
      this.#size = Math.min(this.#max, this.#size + 1);
    }
  }
}

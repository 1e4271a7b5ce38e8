/**
 * Watching a project's status until the service no longer says `wait`: the one poll loop behind
 * `rsi status --watch`, `rsi analyses run --wait` and the MCP tool `wait_for_scoring`. It prints
 * nothing and decides no exit code: each front-end hears every status (a live line, a progress
 * notification) and turns the end (done, or the deadline passed) into its own words.
 */
import { CommandTimeoutError, ServiceUnavailableError } from '../errors.js';

export interface WatchTiming {
  /** Pause between polls, in ms. */
  intervalMs: number;
  /** Give up after this long, in ms; 0 means never. */
  timeoutMs: number;
  /** Ceiling of the backoff after transient errors, in ms (default 30 s). */
  maxBackoffMs?: number;
  /**
   * When the time bound started, on the clock (default: when the watch starts). A command whose
   * `--timeout` bounds all of it (resolving the project first, say) passes its own start.
   */
  startedAt?: number;
}

/** Time as the loop needs it: the root's clock, or a fake one in tests. */
export interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** What the loop reads of a status: the service's word on what comes next. */
export interface Waitable {
  next: string;
}

export interface WatchEvents<S> {
  /** Called after every successful poll; `changed` is false when the reply equals the previous one. */
  onStatus?(status: S, changed: boolean): void | Promise<void>;
  /** Called when a poll failed with a transient error and the loop will try again after `delayMs`. */
  onRetry?(error: ServiceUnavailableError, delayMs: number): void;
}

/** How a watch ended: the service stopped saying wait, or the deadline passed first. */
export type WatchEnd<S> =
  | { outcome: 'done'; status: S; waitedMs: number }
  | {
      outcome: 'timed_out';
      /** The last status seen; absent when no poll succeeded. */
      last: S | undefined;
      /** The transient failure of the last poll, when it failed. */
      lastError: ServiceUnavailableError | undefined;
      /** A poll was still waiting for its reply when the deadline came (and was cut short). */
      unanswered?: boolean;
      waitedMs: number;
    };

export const DEFAULT_MAX_BACKOFF_MS = 30_000;

/** The service says the user need not act yet. Everything else ends the watch. */
export function isWaiting(status: Waitable): boolean {
  return status.next === 'wait';
}

/**
 * Polls `poll` until the status's `next` is no longer `wait`.
 *
 * Transient failures (ServiceUnavailableError: network, timeouts, 5xx) do not end the watch: it
 * keeps polling with exponential backoff (interval × 2ⁿ, capped) until the deadline, because a
 * scoring run takes minutes and a blip in between should not cost the user the wait. Any other
 * error (401, 403, a malformed reply, an abort) is thrown at once.
 *
 * The deadline is wall-clock: a poll still waiting for a hanging service when it passes is cut
 * short (its request aborted), so the watch ends by its bound, not a request timeout later.
 */
export async function watchScoring<S extends Waitable>(
  poll: (signal: AbortSignal) => Promise<S>,
  timing: WatchTiming,
  ports: { clock: Clock; signal: AbortSignal },
  events: WatchEvents<S> = {},
): Promise<WatchEnd<S>> {
  const { clock, signal } = ports;
  const started = timing.startedAt ?? clock.now();
  const deadline = timing.timeoutMs > 0 ? started + timing.timeoutMs : Number.POSITIVE_INFINITY;
  // Fires at the deadline and aborts the poll in flight; the caller's signal stays theirs. A timer
  // rather than `clock.sleep`: a test's clock returns from sleeps at once, and this one only waits.
  const expiry = new AbortController();
  const timer = Number.isFinite(deadline) ? setTimeout(() => expiry.abort(), Math.max(0, deadline - clock.now())) : undefined;
  const pollSignal = AbortSignal.any([signal, expiry.signal]);
  try {
    return await loop();
  } finally {
    clearTimeout(timer);
  }

  async function loop(): Promise<WatchEnd<S>> {
    const maxBackoff = Math.max(timing.intervalMs, timing.maxBackoffMs ?? DEFAULT_MAX_BACKOFF_MS);
    let previous: string | undefined;
    let last: S | undefined;
    let lastError: ServiceUnavailableError | undefined;
    let failures = 0;

    // The command's steps before the watch may have spent the whole bound already.
    if (clock.now() > deadline) return { outcome: 'timed_out', last, lastError, waitedMs: clock.now() - started };
    for (;;) {
      let delay = timing.intervalMs;
      try {
        const status = await poll(pollSignal);
        const serialised = JSON.stringify(status);
        const changed = serialised !== previous;
        previous = serialised;
        last = status;
        lastError = undefined;
        failures = 0;
        await events.onStatus?.(status, changed);
        if (!isWaiting(status)) return { outcome: 'done', status, waitedMs: clock.now() - started };
      } catch (error) {
        // The bound passed: the watch's own, or the command's `--timeout` (the same moment, from the
        // command's start), whichever fired first.
        if ((expiry.signal.aborted && !signal.aborted) || signal.reason instanceof CommandTimeoutError) {
          return { outcome: 'timed_out', last, lastError, unanswered: true, waitedMs: clock.now() - started };
        }
        if (!(error instanceof ServiceUnavailableError) || signal.aborted) throw error;
        lastError = error;
        failures += 1;
        delay = Math.min(maxBackoff, timing.intervalMs * 2 ** failures);
        if (clock.now() < deadline) events.onRetry?.(error, Math.min(delay, deadline - clock.now()));
      }

      const now = clock.now();
      if (now >= deadline) return { outcome: 'timed_out', last, lastError, waitedMs: now - started };
      try {
        await clock.sleep(Math.min(delay, deadline - now), signal);
      } catch (error) {
        if (signal.reason instanceof CommandTimeoutError) return { outcome: 'timed_out', last, lastError, waitedMs: clock.now() - started };
        throw error;
      }
    }
  }
}

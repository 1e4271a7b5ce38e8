/**
 * The command's one wall-clock bound: `--timeout <duration>` (or RSI_TIMEOUT), counted from the
 * command's start (its action: the line parsed, its code loaded), over everything it does — lookups, duplicate checks, the write, its read-back,
 * the wait, a question to the person. It is part of the Context's signal: every request, sleep and
 * prompt that listens to `ctx.signal` ends when it runs out, with a CommandTimeoutError naming the
 * step under way (`step`). Watches (`status --watch`, `analyses run --wait`) have a bound of their
 * own by default (an hour), set through `limit`; `--timeout 0` means none. `--http-timeout` stays
 * the bound of each request.
 */
import { CommandTimeoutError, UsageError } from '../errors.js';
import { formatSeconds } from '../io/text.js';

export interface Deadline {
  /** Aborted by the process's signal (Ctrl-C, SIGTERM), or by the bound with a CommandTimeoutError. */
  readonly signal: AbortSignal;
  /**
   * When the bound started counting, on the Context's clock: when it was set, just before the
   * command's action runs (after the command line was parsed and its code loaded).
   */
  readonly startedAt: number;
  /**
   * Sets the bound, in ms from the command's start (0 = none), unless one is set already (the
   * person's `--timeout` is set first, before the action): returns the bound in force.
   */
  limit(ms: number): number;
  /** Names the step under way, for the message if the bound cuts it short. */
  step(what: string): void;
  /** Stops the timer (the Context's close). */
  dispose(): void;
}

export function createDeadline(signal: AbortSignal, clock: { now(): number }): Deadline {
  let startedAt = clock.now();
  const expiry = new AbortController();
  let bound: number | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let step = 'the command to finish';

  return {
    signal: AbortSignal.any([signal, expiry.signal]),
    get startedAt() {
      return startedAt;
    },
    limit(ms) {
      if (bound !== undefined) return bound;
      bound = ms;
      startedAt = clock.now();
      if (ms > 0) {
        timer = setTimeout(
          () =>
            expiry.abort(
              new CommandTimeoutError(`gave up after ${formatSeconds(ms)} (--timeout) waiting for ${step}`, {
                hint: 'give a longer --timeout (0 = no limit), or check the service with `rsi doctor`',
              }),
            ),
          ms,
        );
        // The bound never keeps a process alive by itself.
        timer.unref?.();
      }
      return bound;
    },
    step(what) {
      step = what;
    },
    dispose() {
      clearTimeout(timer);
    },
  };
}

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * `--timeout` / RSI_TIMEOUT as milliseconds: a number of seconds (`90`, `1.5`) or a duration with
 * its unit (`500ms`, `90s`, `5m`, `1h`, `1m30s`); 0 = no bound. At most a week.
 */
export function parseDuration(name: string, raw: string): number {
  const text = raw.trim();
  let ms: number | undefined;
  if (/^\d+(\.\d+)?$/.test(text)) ms = Number(text) * 1000;
  else if (/^(\d+(\.\d+)?(ms|s|m|h))+$/.test(text)) {
    ms = 0;
    for (const [, n, , unit] of text.matchAll(/(\d+(\.\d+)?)(ms|s|m|h)/g)) ms += Number(n) * UNITS[unit!]!;
  }
  if (ms === undefined || !Number.isFinite(ms) || ms > 7 * 24 * 3_600_000) {
    throw new UsageError(`${name} must be seconds or a duration such as 90s, 5m or 1h30m, at most a week; 0 = no limit (got "${raw}")`);
  }
  return Math.round(ms);
}

/**
 * Watching a project's status until the service no longer says `wait`: the poll loop shared by
 * `rsi status --watch` and `rsi analyses run --wait`, its timing flags, and its output (NDJSON lines
 * or a progress line). What a status looks like is status-view.ts; when to exit 10, exit-policy.ts.
 */
import { formatSeconds } from '../../io/text.js';
import type { Clock, Io } from '../../io/io.js';
import type { Progress } from '../../io/progress.js';
import { CliError, InterruptedError, ServiceUnavailableError, UsageError, WatchTimeoutError } from '../../errors.js';
import { shellQuote } from './habits.js';
import { describeStatus, statusLine, summaryOf, type StatusLike } from './status-view.js';
import { writeJsonLine } from '../../io/output.js';

export interface WatchTiming {
  /** Pause between polls, in ms. */
  intervalMs: number;
  /** Give up after this long, in ms; 0 means never. */
  timeoutMs: number;
  /** Ceiling of the backoff after transient errors, in ms. */
  maxBackoffMs?: number;
}

export interface WatchEvents<S> {
  /** Called after every successful poll; `changed` is false when the reply equals the previous one. */
  onStatus?(status: S, changed: boolean): void | Promise<void>;
  /** Called when a poll failed with a transient error and the loop will try again after `delayMs`. */
  onRetry?(error: ServiceUnavailableError, delayMs: number): void;
}

export const DEFAULT_INTERVAL_S = 2;
export const DEFAULT_TIMEOUT_S = 3600;
const DEFAULT_MAX_BACKOFF_MS = 30_000;

/** The service says the user need not act yet. Everything else ends the watch. */
export function isWaiting(status: StatusLike): boolean {
  return status.next === 'wait';
}

/**
 * Polls `poll` until the status's `next` is no longer `wait` and returns that status.
 *
 * Transient failures (ServiceUnavailableError: network, timeouts, 5xx) do not end the watch: it
 * keeps polling with exponential backoff (interval × 2ⁿ, capped) until the deadline, because a
 * scoring run takes minutes and a blip in between should not cost the user the wait. Any other
 * error (401, 403, a malformed reply, Ctrl-C) ends it at once.
 *
 * @throws WatchTimeoutError when `timeoutMs` passes first; its message carries the last state seen.
 */
export async function watchStatus<S extends StatusLike>(
  poll: (signal: AbortSignal) => Promise<S>,
  timing: WatchTiming,
  clock: Clock,
  signal: AbortSignal,
  events: WatchEvents<S> = {},
  about: { setupUrl?: string | undefined; resume?: string } = {},
): Promise<S> {
  const started = clock.now();
  const deadline = timing.timeoutMs > 0 ? started + timing.timeoutMs : Number.POSITIVE_INFINITY;
  const maxBackoff = Math.max(timing.intervalMs, timing.maxBackoffMs ?? DEFAULT_MAX_BACKOFF_MS);
  let previous: string | undefined;
  let last: S | undefined;
  let lastError: ServiceUnavailableError | undefined;
  let failures = 0;

  for (;;) {
    let delay = timing.intervalMs;
    try {
      const status = await poll(signal);
      const serialised = JSON.stringify(status);
      const changed = serialised !== previous;
      previous = serialised;
      last = status;
      lastError = undefined;
      failures = 0;
      await events.onStatus?.(status, changed);
      if (!isWaiting(status)) return status;
    } catch (error) {
      if (!(error instanceof ServiceUnavailableError) || signal.aborted) throw error;
      lastError = error;
      failures += 1;
      delay = Math.min(maxBackoff, timing.intervalMs * 2 ** failures);
      if (clock.now() < deadline) events.onRetry?.(error, Math.min(delay, deadline - clock.now()));
    }

    const now = clock.now();
    if (now >= deadline) throw timeoutError(timing.timeoutMs, last, lastError, about.setupUrl, about.resume);
    await clock.sleep(Math.min(delay, deadline - now), signal);
  }
}

function timeoutError(
  timeoutMs: number,
  last: StatusLike | undefined,
  lastError: ServiceUnavailableError | undefined,
  setupUrl: string | undefined,
  resume = 'rsi status PROJECT --watch',
) {
  const waited = formatSeconds(timeoutMs);
  const state = last ? statusLine(last) : 'no status received yet';
  const why = lastError ? `; the last poll failed: ${lastError.message}` : '';
  // Signals ready, nothing scoring, and still "wait": what a service that waits for the user's
  // scoring setup looks like from here. Only the summary can say for sure, so this is an "if".
  const stalled = last?.signals_ready && last.scoring === 'not_started' && isWaiting(last);
  return new WatchTimeoutError(`gave up after ${waited} (--timeout): ${state}${why}`, {
    hint:
      stalled && setupUrl
        ? `if the project's scoring setup is not finished, finish it at ${setupUrl}; then watch again, or give a longer --timeout (0 = no limit)`
        : `watch again with \`${resume}\`, or give a longer --timeout (0 = no limit)`,
  });
}

export interface WatchOutputOptions {
  /** One compact ProjectStatus JSON document per line on stdout, instead of progress on stderr. */
  ndjson: boolean;
  projectName: string;
  /** A picture of the analyses for the live line (status --watch / analyses run --wait on a TTY). */
  picture?: (status: StatusLike) => string;
  /** Named in the timeout hint when the service kept saying wait with nothing scoring. */
  setupUrl?: string | undefined;
}

/**
 * Runs the watch with the contract's output: with `ndjson`, each changed status as one JSON line on
 * stdout (the last line is the final state); otherwise a live line on a terminal, or one stderr line
 * per change elsewhere.
 */
export async function watchWithOutput<S extends StatusLike>(
  poll: (signal: AbortSignal) => Promise<S>,
  timing: WatchTiming,
  deps: { io: Io; clock: Clock; signal: AbortSignal; progress: Progress },
  output: WatchOutputOptions,
): Promise<S> {
  const { io, progress } = deps;
  // The command that picks the watch up again: the project by name, the same output.
  const resume = ['rsi', 'status', output.projectName, '--watch', ...(output.ndjson ? ['--json'] : [])].map(shellQuote).join(' ');
  try {
    return await watchStatus(
      poll,
      timing,
      deps.clock,
      deps.signal,
      {
        onStatus(status, changed) {
          if (!changed) return;
          // With --jq the line is written by the engine's thread: wait for it (and its errors).
          if (output.ndjson) return writeJsonLine(io, status);
          // The picture and the elapsed time stay in view; the server's summary comes last.
          else progress.update(`${describeStatus(status)}${output.picture?.(status) ?? ''}`, summaryOf(status));
        },
        onRetry(error, delayMs) {
          const line = `${error.message} · retrying in ${formatSeconds(delayMs)}`;
          if (output.ndjson) progress.log(line);
          else progress.update(line);
        },
      },
      { setupUrl: output.setupUrl, resume },
    );
  } catch (error) {
    // Ctrl-C stops the watching, not the work: say so, and how to watch again.
    if (deps.signal.aborted && (error instanceof InterruptedError || !(error instanceof CliError))) {
      const reason = deps.signal.reason;
      throw new InterruptedError(reason instanceof CliError ? reason.message : 'interrupted', {
        hint: `only the watching stopped: the service goes on with the work; to follow it again, run \`${resume}\``,
        cause: error,
      });
    }
    throw error;
  } finally {
    progress.stop();
  }
}

/**
 * Validates `--interval` and `--timeout` (seconds) into milliseconds. The interval's floor of 0.1 s
 * keeps a typo from hammering the service; the ceiling of a day is only a sanity check.
 */
export function parseTiming(raw: { interval?: string | undefined; timeout?: string | undefined }): WatchTiming {
  const interval = parseSeconds('--interval', raw.interval, DEFAULT_INTERVAL_S, 0.1, 3600);
  const timeout = parseSeconds('--timeout', raw.timeout, DEFAULT_TIMEOUT_S, 0, 7 * 24 * 3600);
  return { intervalMs: Math.round(interval * 1000), timeoutMs: Math.round(timeout * 1000) };
}

function parseSeconds(flag: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined) return fallback;
  const value = raw.trim() === '' ? Number.NaN : Number(raw);
  if (!Number.isFinite(value) || value < min || value > max) {
    const zero = min === 0 ? ' (0 = no limit)' : '';
    throw new UsageError(`${flag} must be a number of seconds from ${min} to ${max}${zero} (got "${raw}")`);
  }
  return value;
}

/**
 * Watching a project's status as `rsi status --watch` and `rsi analyses run --wait` do: the one
 * poll loop (src/ops/watch.ts, shared with the MCP tool) with these commands' timing flags, their
 * timeout error and their output (NDJSON lines or a progress line). What a status looks like is
 * status-view.ts; when to exit 10, exit-policy.ts.
 */
import type { ProjectStatus } from '../../client/schemas.js';
import { formatSeconds } from '../../io/text.js';
import type { Clock } from '../../io/io.js';
import type { Output } from '../../io/formats.js';
import type { Progress } from '../../io/progress.js';
import { CliError, ExitCode, InterruptedError, type ServiceUnavailableError, WatchTimeoutError } from '../../errors.js';
import { isWaiting, type WatchEvents, type WatchTiming, watchScoring } from '../../ops/watch.js';
import { describeStatus } from '../../ops/status-reading.js';
import { statusLine, summaryOf } from './status-view.js';
import { shellCommand } from '../../io/text.js';
import { writeJsonLine } from '../../io/output.js';

export const DEFAULT_INTERVAL_S = 2;
export const DEFAULT_TIMEOUT_S = 3600;

/**
 * The one watch loop (src/ops/watch.ts) as the commands end it: the final status, or a
 * WatchTimeoutError whose message carries the last state seen.
 */
export async function watchStatus<S extends ProjectStatus>(
  poll: (signal: AbortSignal) => Promise<S>,
  timing: WatchTiming,
  clock: Clock,
  signal: AbortSignal,
  events: WatchEvents<S> = {},
  about: { setupUrl?: string | undefined; resume?: string } = {},
): Promise<S> {
  const end = await watchScoring(poll, timing, { clock, signal }, events);
  if (end.outcome === 'done') return end.status;
  throw timeoutError(timing.timeoutMs, end.last, end.lastError, end.unanswered === true, about.setupUrl, about.resume);
}

function timeoutError(
  timeoutMs: number,
  last: ProjectStatus | undefined,
  lastError: ServiceUnavailableError | undefined,
  unanswered: boolean,
  setupUrl: string | undefined,
  resume = 'rsi status PROJECT --watch',
) {
  const waited = formatSeconds(timeoutMs);
  const state = last ? statusLine(last) : 'no status received yet';
  const why = unanswered
    ? '; the last status request was still unanswered'
    : lastError
      ? `; the last poll failed: ${lastError.message}`
      : '';
  // Signals ready, nothing scoring, and still "wait": what a service that waits for the user's
  // scoring setup looks like from here. Only the summary can say for sure, so this is an "if".
  const stalled = last?.signals_ready && last.scoring === 'not_started' && isWaiting(last);
  return new WatchTimeoutError(`gave up after ${waited} (--timeout) waiting for scoring to finish: ${state}${why}`, {
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
  picture?: (status: ProjectStatus) => string;
  /** Named in the timeout hint when the service kept saying wait with nothing scoring. */
  setupUrl?: string | undefined;
}

/**
 * Runs the watch with the contract's output: with `ndjson`, each changed status as one JSON line on
 * stdout (the last line is the final state); otherwise a live line on a terminal, or one stderr line
 * per change elsewhere.
 */
export async function watchWithOutput<S extends ProjectStatus>(
  poll: (signal: AbortSignal) => Promise<S>,
  timing: WatchTiming,
  deps: { out: Output; clock: Clock; signal: AbortSignal; progress: Progress },
  output: WatchOutputOptions,
): Promise<S> {
  const { out, progress } = deps;
  // The command that picks the watch up again: the project by name, the same output.
  const resume = shellCommand(['rsi', 'status', output.projectName, '--watch', ...(output.ndjson ? ['--json'] : [])]);
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
          if (output.ndjson) return writeJsonLine(out, status);
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
        // SIGTERM stays SIGTERM (exit 143), whatever the watch was doing when it came.
        ...(reason instanceof InterruptedError && reason.exitCode === ExitCode.terminated ? { signal: 'SIGTERM' as const } : {}),
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
 * `--interval` (seconds) into milliseconds, with the watch's bound: the command's `--timeout`
 * (src/context/deadline.ts), `DEFAULT_TIMEOUT_S` when none was given. The interval's floor of 0.1 s
 * keeps a typo from hammering the service; the ceiling of an hour is only a sanity check.
 */
export function timing(intervalSeconds: number | undefined, timeoutMs: number): WatchTiming {
  return { intervalMs: Math.round((intervalSeconds ?? DEFAULT_INTERVAL_S) * 1000), timeoutMs };
}

/** What `--interval <seconds>` takes (its parser: `seconds(INTERVAL_S.min, INTERVAL_S.max)`). */
export const INTERVAL_S = { min: 0.1, max: 3600 } as const;

/** The watch's default bound, when the command's `--timeout` was not given. */
export const DEFAULT_TIMEOUT_MS = DEFAULT_TIMEOUT_S * 1000;

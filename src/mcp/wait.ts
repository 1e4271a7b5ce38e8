/**
 * `wait_for_scoring`: follows a project's status as `rsi status --watch` does, for an assistant,
 * on the same loop (src/ops/watch.ts: poll until `next` is no longer `wait`, retry transient
 * failures with backoff, stop at the timeout or when the request is cancelled). What is the
 * assistant's is the ending: the same three outcomes as the command's exit codes (0 done, 10 an
 * analysis failed, 9 timed out), told in a message rather than an error. How a status reads (its
 * counts, its line, which failures are news) is ops' status reading, the one `rsi status` uses.
 */
import type { ProjectStatus } from '../client/schemas.js';
import { describeStatus, failedSince, type FailureFilter, failures } from '../ops/status-reading.js';
import { watchScoring } from '../ops/watch.js';

export type WaitOutcome = 'done' | 'analyses_failed' | 'timed_out';

export interface WaitResult {
  outcome: WaitOutcome;
  /** The exit status `rsi status --watch` would end with. */
  exit_code: 0 | 9 | 10;
  message: string;
  waited_seconds: number;
  /** The last status seen (absent only when no poll succeeded before the timeout). */
  status?: ProjectStatus;
  /** Analyses that failed while this call waited (earlier failures are history, not news). */
  failed_analyses: Array<{ keyword_id?: string | undefined; keyword_name?: string | undefined }>;
}

export interface WaitOptions {
  intervalMs: number;
  timeoutMs: number;
  signal: AbortSignal;
  now?: () => number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Called after each successful poll. */
  onStatus?: (status: ProjectStatus) => void | Promise<void>;
}

export async function waitForScoring(poll: (signal: AbortSignal) => Promise<ProjectStatus>, options: WaitOptions): Promise<WaitResult> {
  const clock = { now: options.now ?? Date.now, sleep: options.sleep ?? abortableSleep };
  let news: FailureFilter | undefined;
  const end = await watchScoring(
    (signal) => {
      // A request cancelled before (or between) polls sends nothing more.
      signal.throwIfAborted();
      return poll(signal);
    },
    { intervalMs: options.intervalMs, timeoutMs: options.timeoutMs },
    { clock: { now: clock.now, sleep: (ms, signal) => clock.sleep(ms, signal ?? options.signal) }, signal: options.signal },
    {
      async onStatus(status) {
        // Failures already there when the wait began are history, not news (as for --watch's exit policy).
        news ??= failedSince(status);
        await options.onStatus?.(status);
      },
    },
  );
  const waited_seconds = Math.round(end.waitedMs / 100) / 10;
  if (end.outcome === 'timed_out') {
    const { last, lastError } = end;
    return {
      outcome: 'timed_out',
      exit_code: 9,
      message: `Gave up after ${Math.round(options.timeoutMs / 1000)} s: ${last ? describeStatus(last) : 'no status received yet'}${
        lastError ? `; the last poll failed: ${lastError.message}` : ''
      }. Call wait_for_scoring again to keep waiting.`,
      waited_seconds,
      ...(last ? { status: last } : {}),
      failed_analyses: [],
    };
  }
  const { status } = end;
  const failed = failures(status, news ?? failedSince(status)).news;
  if (status.scoring === 'done' && failed.length > 0) {
    return {
      outcome: 'analyses_failed',
      exit_code: 10,
      message: `Scoring is done, but ${failed.length} of ${status.analyses.length} analyses failed while waiting.`,
      waited_seconds,
      status,
      failed_analyses: failed.map((a) => ({ keyword_id: a.keyword_id, keyword_name: a.keyword_name })),
    };
  }
  return {
    outcome: 'done',
    exit_code: 0,
    message: `The service no longer says wait (${describeStatus(status)}; next: ${status.next}).`,
    waited_seconds,
    status,
    failed_analyses: [],
  };
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

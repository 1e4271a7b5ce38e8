/**
 * Watching a project's status until the service no longer says `wait`: the poll loop shared by
 * `rsi status --watch` and `rsi analyses run --wait`, and the few ways of showing a status.
 */
import { shellQuote } from '../../io/shell.js';
import type { ProjectStatus } from '../../client/schemas.js';
import type { Clock, Io } from '../../io/io.js';
import { sanitizeLine } from '../../io/sanitize.js';
import type { Progress } from '../../io/progress.js';
import type { OutputFormat } from '../../io/formats.js';
import { AnalysisFailedError, ServiceUnavailableError, UsageError, WatchTimeoutError } from '../../errors.js';

/** The status the watch reads: the client's wire type (client/schemas.ts), not a copy of it. */
export type StatusLike = ProjectStatus;
/** One item of a status's `analyses`. */
export type StatusAnalysis = ProjectStatus['analyses'][number];

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
  onStatus?(status: S, changed: boolean): void;
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
  about: { setupUrl?: string | undefined } = {},
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
      events.onStatus?.(status, changed);
      if (!isWaiting(status)) return status;
    } catch (error) {
      if (!(error instanceof ServiceUnavailableError) || signal.aborted) throw error;
      lastError = error;
      failures += 1;
      delay = Math.min(maxBackoff, timing.intervalMs * 2 ** failures);
      if (clock.now() < deadline) events.onRetry?.(error, Math.min(delay, deadline - clock.now()));
    }

    const now = clock.now();
    if (now >= deadline) throw timeoutError(timing.timeoutMs, last, lastError, about.setupUrl);
    await clock.sleep(Math.min(delay, deadline - now), signal);
  }
}

function timeoutError(
  timeoutMs: number,
  last: StatusLike | undefined,
  lastError: ServiceUnavailableError | undefined,
  setupUrl: string | undefined,
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
        : 'watch again with `rsi status <project> --watch`, or give a longer --timeout (0 = no limit)',
  });
}

/**
 * The live line and the timeout message: our one-line reading of the state, then the server's
 * own `summary`, which may say what we cannot infer (setup missing, a scan that stalled).
 */
export function statusLine(status: StatusLike): string {
  const summary = summaryOf(status);
  return summary ? `${describeStatus(status)} · ${summary}` : describeStatus(status);
}

/** The server's summary on one line, sanitised; empty when it sent none. */
export function summaryOf(status: StatusLike): string {
  return plain(status.summary ?? '');
}

/**
 * Server text on one line: runs of white space (line breaks included) become one space, and the
 * one terminal sanitiser makes every control or bidi character a visible escape, so a summary or a
 * keyword name can neither redraw nor reorder the screen.
 */
function plain(text: string): string {
  return sanitizeLine(text.replace(/\s+/g, ' ').trim());
}

/** One short line for the live progress line: `scoring running · 3/5 analyses done · 1 failed`. */
export function describeStatus(status: StatusLike): string {
  const parts: string[] = [];
  if (!status.signals_ready && status.scoring === 'not_started') parts.push('scanning for signals');
  else parts.push(`scoring ${status.scoring.replaceAll('_', ' ')}`);
  const counts = countAnalyses(status);
  if (counts.total > 0) {
    parts.push(`${counts.done}/${counts.total} analyses done`);
    if (counts.failed > 0) parts.push(`${counts.failed} failed`);
  }
  if (status.next !== 'wait') parts.push(NEXT_LABEL[status.next] ?? `next: ${status.next}`);
  return parts.join(' · ');
}

const NEXT_LABEL: Record<string, string> = {
  run_analyses: 'ready to run analyses',
  list_signals: 'signals ready',
};

export function countAnalyses(status: StatusLike): { total: number; done: number; failed: number; active: number } {
  let done = 0;
  let failed = 0;
  let active = 0;
  for (const a of status.analyses) {
    if (a.status === 'done') done += 1;
    else if (a.status === 'failed') failed += 1;
    else active += 1;
  }
  return { total: status.analyses.length, done, failed, active };
}

/** Decides whether a failed analysis is this command's to report with exit 10. */
export type FailureFilter = (analysis: StatusAnalysis, index: number) => boolean;

/** A stable name for an analysis across polls: its task, else its runs, else its keyword. */
function analysisKey(a: StatusAnalysis, index: number): string {
  const runs = (a.runs ?? []).map((r) => r.id).filter((id): id is string => typeof id === 'string');
  if (a.task_id) return `task:${a.task_id}`;
  if (runs.length > 0) return `runs:${runs.join(',')}`;
  return a.keyword_id ? `keyword:${a.keyword_id}` : a.keyword_name ? `name:${a.keyword_name}` : `#${index}`;
}

/**
 * For `status --watch`: only analyses that were not already failed at the first poll count. A
 * failure in the project's history is not news, and a watch that exits 10 on it would do so forever.
 */
export function failedDuringWatch(first: StatusLike): FailureFilter {
  const before = new Set(first.analyses.flatMap((a, i) => (a.status === 'failed' ? [analysisKey(a, i)] : [])));
  return (a, i) => !before.has(analysisKey(a, i));
}

/**
 * For `analyses run --wait`: only the analyses its own 202 reply started, matched by run id (or a
 * task id equal to one); an analysis that carries neither is matched by keyword id, the only link
 * left.
 */
export function startedByReply(reply: { runs?: ReadonlyArray<{ id: string; keyword_id: string }> | undefined }): FailureFilter {
  const runIds = new Set((reply.runs ?? []).map((r) => r.id));
  const keywordIds = new Set((reply.runs ?? []).map((r) => r.keyword_id));
  return (a) => {
    const ids = (a.runs ?? []).map((r) => r.id).filter((id): id is string => typeof id === 'string');
    if (a.task_id !== undefined) ids.push(a.task_id);
    if (ids.length > 0) return ids.some((id) => runIds.has(id));
    return a.keyword_id !== undefined && keywordIds.has(a.keyword_id);
  };
}

/**
 * Exit 10: scoring finished and an analysis this command is answerable for failed (`counts`).
 * Other failed analyses are reported through `note`, not made fatal. Only `--watch` and `--wait`
 * apply it; a plain `status` reports the state and exits 0.
 */
export function assertNoFailedAnalyses(
  status: StatusLike,
  projectName: string,
  counts: FailureFilter = () => true,
  note?: (line: string) => void,
): void {
  const failed = status.analyses.flatMap((a, i) => (a.status === 'failed' ? [{ a, i }] : []));
  const ours = failed.filter(({ a, i }) => counts(a, i));
  const earlier = failed.filter(({ a, i }) => !counts(a, i));
  const list = (items: typeof failed): string => {
    const names = items.map(({ a }) => plain(a.keyword_name ?? a.keyword_id ?? '?'));
    return names.length > 3 ? `${names.slice(0, 3).join(', ')} and ${names.length - 3} more` : names.join(', ');
  };
  if (earlier.length > 0) {
    note?.(
      `${earlier.length} ${earlier.length === 1 ? 'analysis' : 'analyses'} of "${projectName}" had failed before, not while this command watched (not counted in the exit status): ${list(earlier)}`,
    );
  }
  if (status.scoring !== 'done' || ours.length === 0) return;
  throw new AnalysisFailedError(
    `scoring of "${projectName}" is done, but ${ours.length} of ${status.analyses.length} analyses failed: ${list(ours)}`,
    {
      hint: `see \`rsi status ${shellQuote(projectName)}\` for details; results of the others are in \`rsi opportunities ${shellQuote(projectName)}\``,
    },
  );
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
  const { writeJsonLine } = await import('../../io/output.js');
  try {
    return await watchStatus(
      poll,
      timing,
      deps.clock,
      deps.signal,
      {
        onStatus(status, changed) {
          if (!changed) return;
          if (output.ndjson) writeJsonLine(io, status);
          // The picture and the elapsed time stay in view; the server's summary comes last.
          else progress.update(`${describeStatus(status)}${output.picture?.(status) ?? ''}`, summaryOf(status));
        },
        onRetry(error, delayMs) {
          const line = `${error.message} · retrying in ${formatSeconds(delayMs)}`;
          if (output.ndjson) progress.log(line);
          else progress.update(line);
        },
      },
      { setupUrl: output.setupUrl },
    );
  } finally {
    progress.stop();
  }
}

/** The `next` value as something to type. */
export function nextStep(status: StatusLike, projectRef: string): string {
  const p = shellQuote(projectRef);
  switch (status.next) {
    case 'wait':
      return `wait: rsi status ${p} --watch`;
    case 'run_analyses':
      return `run analyses: rsi signals ${p}, then rsi analyses run ${p} --top 5 --type target`;
    case 'list_signals':
      return `list signals: rsi signals ${p}`;
    default:
      return status.next;
  }
}

// One quoting rule for every suggested command (src/io/shell.ts); re-exported for the commands.
export { shellQuote } from '../../io/shell.js';

/**
 * Shows one status for a person, through the output module: on `table` the summary and next step,
 * then the analyses; on `tsv`/`csv` one multi-part document on stdout (a `status` row, then one
 * `analysis` row per analysis with its task id and runs, ids included) while the summary also goes
 * to stderr, so a pipe gets data and the person still sees the state.
 */
export async function printStatus(
  io: Io,
  format: OutputFormat,
  status: StatusLike,
  projectName: string,
  now: () => number = Date.now,
): Promise<void> {
  const { printSections, printText } = await import('../../io/output.js');
  type Analysis = StatusLike['analyses'][number] & { task_id?: string | undefined };
  const summary = [
    `Project:  ${projectName}`,
    `Summary:  ${status.summary}`,
    `Signals:  ${status.signals_ready ? 'ready' : 'not ready'}`,
    `Scoring:  ${status.scoring.replaceAll('_', ' ')}${describeCounts(status)}`,
    `Next:     ${nextStep(status, projectName)}`,
  ].join('\n');
  const analyses = status.analyses as readonly Analysis[];
  if (format === 'table') {
    await printText(io, `${summary}\n${analyses.length > 0 ? '\n' : ''}`);
    await printSections({ io, format, now }, [
      {
        name: 'analysis',
        rows: analyses,
        columns: [
          { header: 'KEYWORD', value: (a: Analysis) => a.keyword_name },
          { header: 'STATUS', value: (a: Analysis) => a.status },
          { header: 'UPDATED', value: (a: Analysis) => a.updated_at, time: true },
          { header: 'RUNS', value: (a: Analysis) => (a.runs ?? []).map((r) => `${r.type ?? '?'}:${r.status ?? '?'}`).join(' ') },
          { header: 'KEYWORD ID', value: (a: Analysis) => a.keyword_id, id: true },
        ],
      },
    ]);
    return;
  }
  io.stderr.write(`${summary}\n`);
  await printSections({ io, format }, [
    {
      name: 'status',
      rows: [status],
      columns: [
        { header: 'signals_ready', value: (s: StatusLike) => s.signals_ready },
        { header: 'scoring', value: (s: StatusLike) => s.scoring },
        { header: 'next', value: (s: StatusLike) => s.next },
        { header: 'summary', value: (s: StatusLike) => s.summary },
      ],
    },
    {
      name: 'analysis',
      rows: analyses,
      columns: [
        { header: 'keyword_id', value: (a: Analysis) => a.keyword_id },
        { header: 'keyword_name', value: (a: Analysis) => a.keyword_name },
        { header: 'task_id', value: (a: Analysis) => a.task_id },
        { header: 'status', value: (a: Analysis) => a.status },
        { header: 'updated_at', value: (a: Analysis) => a.updated_at },
        { header: 'runs', value: (a: Analysis) => a.runs },
      ],
    },
  ]);
}

function describeCounts(status: StatusLike): string {
  const c = countAnalyses(status);
  if (c.total === 0) return '';
  return ` (${c.done}/${c.total} analyses done${c.failed > 0 ? `, ${c.failed} failed` : ''})`;
}

/** For the live line: ` · 42 s` since the watch began (whole seconds, so it ticks calmly). */
export function elapsedSince(clock: Clock): () => string {
  const started = clock.now();
  return () => ` · ${formatSeconds(Math.floor((clock.now() - started) / 1000) * 1000)}`;
}

/** A compact human duration: `45 s`, `1.5 s`, `2 min 5 s`. */
export function formatSeconds(ms: number): string {
  const s = ms / 1000;
  if (s < 60) return `${Number.isInteger(s) ? s : Number(s.toFixed(1))} s`;
  const m = Math.floor(s / 60);
  const rest = Math.round(s - m * 60);
  return rest === 0 ? `${m} min` : `${m} min ${rest} s`;
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

/**
 * On a terminal, the live line ends with a bar of analyses done/failed/total (the elapsed time
 * follows it); elsewhere there is no picture.
 */
export async function analysesPicture(ctx: {
  io: Io;
  env: Readonly<Record<string, string | undefined>>;
}): Promise<((status: StatusLike) => string) | undefined> {
  const { progressStyle, progressBar } = await import('../../io/pictures.js');
  const style = progressStyle(ctx.io, ctx.env);
  if (!style) return undefined;
  return (status) => {
    const counts = countAnalyses(status);
    return counts.total > 0 ? ` ${progressBar(counts, style)}` : '';
  };
}

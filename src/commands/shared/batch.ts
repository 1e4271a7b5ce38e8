/**
 * Batches from stdin (`rsi keywords get -`, `rsi keywords relations - --relation R`), one
 * implementation for every command that reads its inputs from `-` (issue 57):
 *
 * - **Streaming.** The first request goes out when the first line arrives (batch-lines.ts); rows
 *   come out in input order as soon as they and every row before them are answered, through the
 *   adaptive in-flight window `--all` uses (client/window.ts). Memory holds the window's items and
 *   the unfinished line, whatever the input's length: no item cap.
 * - **Pressure.** A 429 or 503 with Retry-After (or any retry) on one item halves the window and
 *   holds every new request until that wait is over: the whole batch slows down, not one item.
 * - **Failures.** A failed item is an error line on stderr and an error row (`input`, `error`,
 *   `error_code`), and the batch goes on; the exit code is then 11 (BatchItemsFailedError). An
 *   error that would fail every item (signed out, Ctrl-C, SIGTERM) ends the batch, every row
 *   answered before it printed.
 * - **Resume.** `--resume FILE` (batch-resume.ts) skips the inputs a previous run's output already
 *   answered definitively, and this run's output continues that file.
 * - **Progress.** At a terminal, a live line of done/total, rate and time left; a summary line at
 *   the end (walk-progress.ts).
 * - **Memory.** A batch asks V8 to favour size (`BATCH_V8_FLAG`): flat at a million inputs.
 */
import type { Context } from '../../context.js';
import type { ApiClient } from '../../client/client.js';
import {
  BatchItemsFailedError,
  CliError,
  ExitCode,
  errorJsonLine,
  errorsAsJson,
  InterruptedError,
  NotSignedInError,
  UsageError,
} from '../../errors.js';
import { type InFlight, PageWindow } from '../../client/window.js';
import { pageWindow, type RequestOptions } from '../../client/paging.js';
import { resolveKeyword, type ResolvedKeyword } from '../../ops/resolve.js';
import type { Output } from '../../io/formats.js';
import { type BatchLine, batchItems } from './batch-lines.js';
import type { ResumeOptions } from './batch-resume.js';

/** One item's outcome: its result, or the error it met. */
export type Outcome<R> = { input: string; ok: true; value: R } | { input: string; ok: false; error: CliError };

/** A failed item's row: its input, the error's message and its code (`--resume` reads the code). */
export function errorRow(outcome: { input: string; error: CliError }): { input: string; error: string; error_code: string } {
  return { input: outcome.input, error: outcome.error.message, error_code: outcome.error.code };
}

/** How `inInputOrder` runs: the window, which errors end the batch, and the clock holds are timed by. */
export interface InOrderOptions {
  window: PageWindow | InFlight;
  /** An error that would fail every item (signed out, Ctrl-C): it ends the batch instead of being a row. */
  fatal: (error: unknown) => boolean;
  /** Times the window and the holds a retry asks for; without it a retry only halves the window. */
  clock?: { now(): number; sleep(ms: number, signal?: AbortSignal): Promise<void> } | undefined;
  signal?: AbortSignal | undefined;
}

/**
 * Runs `work` over the items of `source` as they arrive, at most the window's size in flight, and
 * yields their outcomes in input order: an outcome as soon as it and every one before it are done.
 * The next item is read only when the window has room, so a source that never ends is read as it
 * goes and memory holds no more than the window. A retry of any item (the HTTP layer's `onRetry`,
 * with the wait it is about to make) halves the window and holds every new request for that wait.
 * A fatal error ends the walk after the items in flight settle; the source is closed either way.
 */
export async function* inInputOrder<I extends { item: string }, R>(
  source: AsyncIterable<I>,
  work: (item: I, request: RequestOptions) => Promise<R>,
  options: InOrderOptions,
): AsyncGenerator<Outcome<R>> {
  const window = options.window instanceof PageWindow ? options.window : new PageWindow(options.window);
  const { clock, signal, fatal } = options;
  const queue: Array<Promise<Outcome<R>>> = [];
  const input = source[Symbol.asyncIterator]();
  let next: Promise<IteratorResult<I>> | undefined;
  let ended = false;
  let holdUntil = 0;
  let holding: Promise<void> | undefined;
  const launch = (item: I): void => {
    const ticket = window.sent();
    const request: RequestOptions = {
      signal,
      onRetry: (waitMs) => {
        window.retried(ticket);
        if (clock) holdUntil = Math.max(holdUntil, clock.now() + waitMs);
      },
    };
    const outcome = work(item, request).then(
      (value): Outcome<R> => {
        window.settled(ticket);
        return { input: item.item, ok: true, value };
      },
      (error: unknown): Outcome<R> => {
        if (fatal(error)) throw error;
        return { input: item.item, ok: false, error: error instanceof CliError ? error : new CliError(String(error)) };
      },
    );
    // Observed when its turn comes; a fatal one may be left behind by an earlier fatal one.
    outcome.catch(() => undefined);
    queue.push(outcome);
  };
  try {
    for (;;) {
      // Room in the window: ask for the next line (once), unless a retry holds new requests.
      if (!ended && next === undefined && holding === undefined && queue.length < window.size) {
        const wait = clock ? holdUntil - clock.now() : 0;
        if (wait > 0) holding = clock!.sleep(wait, signal).finally(() => (holding = undefined));
        else next = input.next();
      }
      if (queue.length === 0 && ended) return;
      const head = queue[0];
      const event = await Promise.race([
        ...(head ? [head.then(() => 'head' as const)] : []),
        ...(next ? [next.then(() => 'line' as const)] : []),
        ...(holding ? [holding.then(() => 'held' as const)] : []),
      ]);
      if (event === 'line') {
        const got = await next!;
        next = undefined;
        if (got.done) ended = true;
        else launch(got.value);
      } else if (event === 'head') {
        queue.shift();
        yield await head!;
      }
    }
  } finally {
    await Promise.allSettled(queue);
    // A line being read is left to the source's own end; closing it ends the read.
    if (!ended) void input.return?.(undefined)?.catch(() => undefined);
  }
}

export interface BatchRun<R> {
  outcomes: AsyncGenerator<Outcome<R>>;
  client: ApiClient;
  /**
   * With `--resume` and rows `many`: how many of this input's first rows the file already holds
   * (a run stopped while printing them); the command leaves those out.
   */
  alreadyPrinted(input: string): number;
  /** The run's output target: with `--resume`, continuing a file that already holds its header. */
  output(target: Output): Output;
  /** Call after printing, with the rows printed: the summary line; throws exit 11 when some items failed. */
  finish(rows: number): void;
}

/**
 * The V8 flag a batch sets before its first request. A batch allocates at a steady rate for as long
 * as its input lasts (about 60 kB an item: the request, the reply and its validation, the row), and
 * under that rate V8 widens its young generation and lets promoted garbage pile up in the old one
 * between full collections: 160–300 MB at 100,000 inputs on Node 22 to 26, though what is alive
 * stays under 20 MB. With `--optimize-for-size` V8 keeps both small; set at run time it takes
 * effect at once (what it governs is read as the heap grows, not when it is set up, unlike
 * `--max-semi-space-size`), so no other command pays for it, nor a second process for this one.
 * Measured in docs/performance.md, "Batches and walks at the latency limit".
 */
export const BATCH_V8_FLAG = '--optimize-for-size';

/** Names seen in one batch, each resolved once; bounded, so a million distinct names stay flat. */
const NAME_CACHE = 4096;

/**
 * Reads the batch from stdin as it arrives and prepares its walk: `work(client, keyword, request)`
 * runs per item once its name resolved (names resolve like single commands, each distinct one once
 * while it is among the last `NAME_CACHE` names).
 */
export async function startBatch<R>(
  ctx: Context,
  work: (client: ApiClient, keyword: ResolvedKeyword, request: RequestOptions) => Promise<R>,
  /**
   * What a command gives a batch besides its work (batch-resume.ts): `--resume FILE` (a previous
   * run's output this run continues), and the rows one answer may span: `one` (a card per input)
   * or `many` (an input's links, one row each).
   */
  options: ResumeOptions,
): Promise<BatchRun<R>> {
  if (ctx.io.stdinIsTTY)
    throw new UsageError('the keyword - reads from stdin, but stdin is a terminal', { hint: 'pipe the data in, or give a keyword' });
  // For the rest of the process (a batch is its last work), where the process is this command's.
  ctx.setV8Flags(BATCH_V8_FLAG);
  const window = pageWindow(ctx.env, ctx.clock);
  const resumed = options.resume === undefined ? undefined : await (await import('./batch-resume.js')).readResume(ctx, options);
  const client = await ctx.client();
  const names = new Map<string, Promise<ResolvedKeyword>>();
  const resolve = (input: string, request: RequestOptions): Promise<ResolvedKeyword> => {
    const key = input.toLowerCase();
    let found = names.get(key);
    if (found) {
      // Most recently used last: the oldest name is the one dropped.
      names.delete(key);
    } else {
      found = resolveKeyword(client, input, request);
      if (names.size >= NAME_CACHE) names.delete(names.keys().next().value!);
    }
    names.set(key, found);
    return found;
  };
  const fatal = (error: unknown): boolean => ctx.signal.aborted || error instanceof NotSignedInError || error instanceof InterruptedError;
  const itemWork = async (line: BatchLine, request: RequestOptions): Promise<R> => {
    if (line.problem !== undefined) throw new UsageError(line.problem);
    return work(client, await resolve(line.item, request), request);
  };
  let lines: AsyncIterable<BatchLine> = batchItems(ctx.io.stdin);
  if (resumed) lines = resumed.skip(lines);
  // Live progress while a person waits, the summary at the end (walk-progress.ts).
  const { batchProgress } = await import('./walk-progress.js');
  const progress = await batchProgress(ctx, () => resumed?.skipped ?? 0);
  const failures = new Map<string, number>();
  let failed = 0;
  let done = 0;
  async function* outcomes(): AsyncGenerator<Outcome<R>> {
    try {
      for await (const outcome of inInputOrder(lines, itemWork, { window, fatal, clock: ctx.clock, signal: ctx.signal })) {
        progress.item(++done);
        if (!outcome.ok) {
          failed++;
          failures.set(outcome.error.code, (failures.get(outcome.error.code) ?? 0) + 1);
          const message = outcome.error.message.replace(/\s*\n\s*/g, ' ');
          const { code, exitCode, hint } = outcome.error as Partial<CliError>;
          // The error line goes above the live line (which is redrawn after it).
          const line = errorsAsJson(ctx.env)
            ? errorJsonLine({
                code: code ?? 'unexpected',
                exit: exitCode ?? ExitCode.unexpected,
                message,
                hint,
                input: outcome.input,
              }).replace(/\n$/, '')
            : `rsi: ${outcome.input}: ${message}`;
          progress.log(line);
        }
        yield outcome;
      }
    } finally {
      progress.stop();
    }
  }
  return {
    outcomes: outcomes(),
    client,
    output: (target) => (resumed?.hasHeader ? { ...target, headerWritten: true } : target),
    alreadyPrinted: (input) => resumed?.alreadyPrinted(input) ?? 0,
    finish: (rows) => {
      const kinds = [...failures].map(([code, n]) => `${n} ${code}`).join(', ');
      progress.summary({ inputs: done, rows, failed, kinds });
      if (failed > 0) {
        throw new BatchItemsFailedError(`${failed} of ${done} items failed (${kinds})`, {
          hint: 'their error rows carry the input, the error and its code; --resume FILE retries the ones that may pass now',
        });
      }
    },
  };
}

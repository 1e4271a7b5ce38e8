/**
 * Batches from stdin (`rsi keywords get -`, `rsi keywords relations - --relation R`): one process
 * fetches every item through the read-ahead walk `--all` uses (client/paging.ts) and prints the results in
 * input order as they become ready. A failed item is an error line on stderr and an error row,
 * and the batch goes on; the exit code is then 11 (BatchItemsFailedError).
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
import type { InFlight, PageWindow } from '../../client/window.js';
import { maxPages, pageWindow, readAhead } from '../../client/paging.js';
import { readInput } from './flags.js';
import { resolveKeyword, type ResolvedKeyword } from '../../ops/resolve.js';

/**
 * The items of a batch: one id or name a line (blank lines and `#` comments skipped), or NDJSON
 * objects carrying `id` or `name` (an `id` wins). A line that is neither is an item too, the raw
 * line, with the problem that makes it fail: it gets its error line and error row like any failed
 * item, and the rest of the batch still runs.
 */
export function parseBatch(text: string): { items: string[]; problems: ReadonlyMap<string, string> } {
  const items: string[] = [];
  const problems = new Map<string, string>();
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    if (!line.startsWith('{')) {
      items.push(line);
      continue;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch (error) {
      items.push(line);
      problems.set(line, `stdin line ${i + 1} is not valid JSON (${(error as Error).message})`);
      continue;
    }
    const { id, name } = (parsed ?? {}) as { id?: unknown; name?: unknown };
    const value = typeof id === 'string' && id.trim() ? id : typeof name === 'string' && name.trim() ? name : undefined;
    if (value === undefined) {
      items.push(line);
      problems.set(line, `stdin line ${i + 1}: a JSON line needs a string "id" or "name"`);
      continue;
    }
    items.push(value.trim());
  }
  return { items, problems };
}

/** One item's outcome: its result, or the error it met. */
export type Outcome<R> = { input: string; ok: true; value: R } | { input: string; ok: false; error: CliError };

/**
 * Runs `work` over `items` through the read-ahead walk (client/paging.ts), one item a "page", at
 * most the window's size in flight, yielding outcomes in input order: an item is printed as soon as
 * it and every item before it are done. A failed item is an outcome, unless `fatal` says the error
 * would fail every item (signed out, Ctrl-C): that ends the batch.
 */
export function inInputOrder<R>(
  items: readonly string[],
  work: (input: string) => Promise<R>,
  window: PageWindow | InFlight,
  fatal: (error: unknown) => boolean,
): AsyncGenerator<Outcome<R>> {
  return readAhead<Outcome<R>>({
    by: 'row',
    start: 0,
    window,
    total: items.length,
    maxPages: items.length,
    // The items say nothing of each other: the window fills at once.
    probe: false,
    fetch: async (position) => {
      const input = items[position];
      if (input === undefined) return { rows: [] };
      try {
        return { rows: [{ input, ok: true, value: await work(input) }] };
      } catch (error) {
        if (fatal(error)) throw error;
        return { rows: [{ input, ok: false, error: error instanceof CliError ? error : new CliError(String(error)) }] };
      }
    },
  });
}

export interface BatchRun<R> {
  items: string[];
  outcomes: AsyncGenerator<Outcome<R>>;
  client: ApiClient;
  /** Call after printing: throws exit 11 when some items failed. */
  finish(): void;
}

/**
 * Reads the batch from stdin and prepares its walk: `work(client, id, input)` runs per item once
 * the name resolved (names resolve like single commands, each distinct one once).
 */
export async function startBatch<R>(
  ctx: Context,
  work: (client: ApiClient, keyword: ResolvedKeyword, input: string) => Promise<R>,
): Promise<BatchRun<R>> {
  const { items, problems } = parseBatch(await readInput('the keyword', '-', ctx));
  const window = pageWindow(ctx.env, ctx.clock);
  // The page cap bounds a batch too: each item is a request, and all are checked before the first.
  const cap = maxPages(ctx.env);
  if (items.length > cap)
    throw new UsageError(`stdin holds ${items.length} items, more than the cap of ${cap} a batch takes`, {
      hint: 'split the input, or raise the cap with RSI_MAX_PAGES',
    });
  const client = await ctx.client();
  const names = new Map<string, Promise<ResolvedKeyword>>();
  const resolve = (input: string): Promise<ResolvedKeyword> => {
    const key = input.toLowerCase();
    let found = names.get(key);
    if (!found) {
      found = resolveKeyword(client, input, ctx.signal);
      names.set(key, found);
    }
    return found;
  };
  let failed = 0;
  const fatal = (error: unknown): boolean => ctx.signal.aborted || error instanceof NotSignedInError || error instanceof InterruptedError;
  const itemWork = async (input: string): Promise<R> => {
    const problem = problems.get(input);
    if (problem !== undefined) throw new UsageError(problem);
    return work(client, await resolve(input), input);
  };
  // `fetched N of M` on stderr while the rows go to a file (walk-progress.ts).
  const progress = await (await import('./walk-progress.js')).walkProgress(ctx);
  let done = 0;
  async function* outcomes(): AsyncGenerator<Outcome<R>> {
    try {
      for await (const outcome of inInputOrder(items, itemWork, window, fatal)) {
        progress?.items(++done, items.length);
        if (!outcome.ok) {
          failed++;
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
          if (progress) progress.log(line);
          else ctx.io.stderr.write(`${line}\n`);
        }
        yield outcome;
      }
    } finally {
      progress?.stop();
    }
  }
  return {
    items,
    outcomes: outcomes(),
    client,
    finish: () => {
      if (failed > 0) {
        throw new BatchItemsFailedError(`${failed} of ${items.length} items failed`, {
          hint: 'their error rows carry the input and the error',
        });
      }
    },
  };
}

/**
 * Progress where a person waits (issue 43, item 6): a long walk (`--all`, a batch from stdin) whose
 * output goes to a file or a pipe leaves the terminal blank for seconds. When stdout is not a
 * terminal but stderr is, one live line on stderr says `fetched N of M` (M once a page has said
 * it), redrawn in place and cleared at the end. Never in CI, never when stderr is not a terminal
 * (a log would fill with it), never when stdout is the terminal (the rows themselves show progress).
 */
import type { Context } from '../../context.js';
import { inCI } from '../../io/ci.js';

export interface WalkProgress {
  /** The page callback for one walk (`onPage`): several walks (several relations) add up. */
  walk(): (rows: number, total: number | undefined) => void;
  /** A permanent line above the live one (an item's error). */
  log(line: string): void;
  /** Clears the line. Safe to call twice. */
  stop(): void;
}

export async function walkProgress(ctx: Context): Promise<WalkProgress | undefined> {
  if (ctx.io.stdoutIsTTY || !ctx.io.stderrIsTTY || inCI(ctx.env)) return undefined;
  const line = await ctx.progress();
  const walks: Array<{ rows: number; total: number | undefined }> = [];
  const show = (): void => {
    const rows = walks.reduce((n, w) => n + w.rows, 0);
    // A total only when every walk has said its own: a sum of some would read as the whole.
    const known = walks.every((w) => w.total !== undefined);
    const total = walks.reduce((n, w) => n + (w.total ?? 0), 0);
    line.update(known && total >= rows ? `fetched ${rows} of ${total}` : `fetched ${rows}`);
  };
  return {
    walk() {
      const mine = { rows: 0, total: undefined as number | undefined };
      walks.push(mine);
      return (rows, total) => {
        mine.rows += rows;
        if (total !== undefined) mine.total = total;
        show();
      };
    },
    log: (text) => line.log(text),
    stop: () => line.stop(),
  };
}

/** A batch's progress: a live line at a terminal, error lines above it, and the summary at the end. */
export interface BatchProgress {
  /** One more input answered (or failed). */
  item(done: number): void;
  /** A permanent line on stderr (an item's error), above the live line when there is one. */
  log(line: string): void;
  /** Clears the live line. Safe to call twice. */
  stop(): void;
  /** The summary line (at a terminal): inputs, rows, failures by kind, the time. */
  summary(counts: { inputs: number; rows: number; failed: number; kinds: string }): void;
}

/** `1 min 12 s`, `4.2 s`, `380 ms`. */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h > 0 ? `${h} h ${m} min` : `${m} min ${s % 60} s`;
}

const count = (n: number): string => n.toLocaleString('en-US');

/**
 * A batch's progress (issue 57): when stderr is a terminal (and not in CI), `fetched 1,234 of
 * 30,000 · 410/s · 1 min 10 s left` (the total when stdin is a file, counted beside the run), else
 * `fetched 1,234 · 410/s`; cleared at the end, then one summary line. `skipped` inputs (`--resume`) are
 * neither counted nor timed. The live line follows walkProgress's rule (not when the rows
 * themselves show on the terminal); the summary shows whenever stderr is a terminal.
 */
export async function batchProgress(ctx: Context, skipped: () => number): Promise<BatchProgress> {
  const started = ctx.clock.now();
  const atTerminal = ctx.io.stderrIsTTY && !inCI(ctx.env);
  const line = atTerminal && !ctx.io.stdoutIsTTY ? await ctx.progress() : undefined;
  let counted: number | undefined;
  if (line) void countStdinItems(ctx.io.stdin).then((n) => (counted = n));
  return {
    item(done) {
      if (!line) return;
      const total = counted === undefined ? undefined : Math.max(0, counted - skipped());
      const now = ctx.clock.now();
      const rate = done / Math.max(0.001, (now - started) / 1000);
      const parts = [total !== undefined && total >= done ? `fetched ${count(done)} of ${count(total)}` : `fetched ${count(done)}`];
      if (now - started >= 1000) parts.push(`${count(Math.round(rate))}/s`);
      if (total !== undefined && total > done && now - started >= 1000) parts.push(`${duration(((total - done) / rate) * 1000)} left`);
      line.update(parts.join(' · '));
    },
    log: (text) => (line ? line.log(text) : void ctx.io.stderr.write(`${text}\n`)),
    stop: () => line?.stop(),
    summary({ inputs, rows, failed, kinds }) {
      if (!atTerminal) return;
      const ms = ctx.clock.now() - started;
      const rate = inputs / Math.max(0.001, ms / 1000);
      const resumed = skipped() > 0 ? ` after ${count(skipped())} already answered` : '';
      const failures = failed > 0 ? `; ${count(failed)} failed: ${kinds}` : '';
      ctx.io.stderr.write(
        `${count(inputs)} inputs${resumed}, ${count(rows)} rows in ${duration(ms)} (${count(Math.round(rate))}/s)${failures}\n`,
      );
    },
  };
}

/**
 * The items stdin holds, when it is a regular file (`rsi … - < ids.txt`): its lines that are not
 * blank or `#` comments, counted with reads at explicit positions, so the batch's own reading of
 * the same descriptor goes on undisturbed. Undefined for a pipe or a terminal (no end known).
 */
async function countStdinItems(stdin: unknown): Promise<number | undefined> {
  const fd = (stdin as { fd?: unknown }).fd;
  if (typeof fd !== 'number') return undefined;
  const { fstat, read } = await import('node:fs');
  const { promisify } = await import('node:util');
  try {
    const info = await promisify(fstat)(fd);
    if (!info.isFile()) return undefined;
    const buffer = Buffer.alloc(1 << 20);
    let items = 0;
    // Per line: 0 at its start, 1 once a byte other than a blank showed it holds an item, 2 for a comment.
    let state = 0;
    for (let position = 0; position < info.size; ) {
      const { bytesRead } = await promisify(read)(fd, buffer, 0, buffer.length, position);
      if (bytesRead === 0) break;
      position += bytesRead;
      for (let i = 0; i < bytesRead; i++) {
        const b = buffer[i]!;
        if (b === 0x0a) state = 0;
        else if (state === 0 && b !== 0x20 && b !== 0x09 && b !== 0x0d) {
          state = b === 0x23 ? 2 : 1;
          if (state === 1) items++;
        }
      }
    }
    return items;
  } catch {
    return undefined;
  }
}

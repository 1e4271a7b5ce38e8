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
  /** A batch: items done of all items. */
  items(done: number, total: number): void;
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
    items(done, total) {
      line.update(`fetched ${done} of ${total}`);
    },
    log: (text) => line.log(text),
    stop: () => line.stop(),
  };
}

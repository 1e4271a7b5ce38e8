/**
 * Whether this command's output goes through a pager: only tables, only on a terminal, never with
 * --no-pager, --watch or --wait (a live line and a pager cannot share the screen), and only for the
 * commands that print lists (a command that asks questions while it prints, such as `analyses run`,
 * keeps the terminal).
 */
import type { Command } from 'commander';
import type { Context } from '../../context.js';

const PAGED = new Set([
  'keywords search',
  'keywords get',
  'keywords relations',
  'projects list',
  'signals',
  'opportunities',
  'scoreboard',
  'mcp tools',
  'status',
]);

export async function pageOutput(ctx: Context, path: string, action: Command, pagerFlag: unknown): Promise<void> {
  if (!PAGED.has(path) || pagerFlag === false || !ctx.io.stdoutIsTTY) return;
  const opts = action.opts();
  if (opts.watch || opts.wait || opts.web) return;
  if (ctx.globals().format !== 'table') return;
  const { choosePager, lazyPager } = await import('../../io/pager.js');
  const command = choosePager(ctx.env, ctx.settings().pager);
  if (!command) return;
  const pager = lazyPager(command, ctx.env, ctx.io.stdout, ctx.io.stderr);
  // The Io is the one object every layer writes through: from here on, stdout is the pager's input.
  ctx.io.stdout = pager.stream;
  ctx.onClose(() => pager.finish());
}

/**
 * Whether this command's output goes through a pager: only tables, only on a terminal, never with
 * --no-pager, --watch or --wait (a live line and a pager cannot share the screen), and only for the
 * commands that print lists (a command that asks questions while it prints, such as `analyses run`,
 * keeps the terminal).
 */
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { forPeople } from '../../formats.js';

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
  const fds = ctx.io.fds;
  if (!PAGED.has(path) || pagerFlag === false || !ctx.io.stdoutIsTTY || !fds) return;
  const opts = action.opts();
  if (opts.watch || opts.wait || opts.web) return;
  if (!forPeople(ctx.globals().format)) return;
  const [{ besidePager, choosePager, endOf, lazyPager }, { sanitizingStream }] = await Promise.all([
    import('../../io/pager.js'),
    import('../../io/sanitize.js'),
  ]);
  const command = choosePager(ctx.env, ctx.settings().pager);
  if (!command) return;
  const stderr = ctx.io.stderr;
  const pager = lazyPager(command, ctx.env, ctx.io.stdout, stderr, fds);
  // The Io is the one object every layer (and main's error report) writes through: from here on,
  // stdout is the pager's input, and stderr joins it while the pager has the screen.
  const stdout = ctx.io.stdout;
  // What the pager shows is for the terminal too: ASCII where its locale is not UTF-8 (io/ascii.ts).
  const { utf8Locale } = await import('../../io/pictures.js');
  const paged = utf8Locale(ctx.env) ? pager.stream : (await import('../../io/ascii.js')).asciiStream(pager.stream);
  const beside = besidePager(stderr, sanitizingStream(paged, ctx.io.secrets), pager, ctx.io.stderrIsTTY);
  ctx.io.stdout = paged;
  ctx.io.stderr = beside;
  ctx.onClose(async () => {
    // Messages still queued for the pager reach it before its input ends; then the streams are
    // given back, and rsi waits until the person has left the pager.
    ctx.io.stdout = stdout;
    ctx.io.stderr = stderr;
    await endOf(beside);
    await pager.finish();
  });
}

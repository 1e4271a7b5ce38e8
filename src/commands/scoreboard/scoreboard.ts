import { Command } from 'commander';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';

export interface ScoreboardOptions {
  project: string;
  limit: number | undefined;
}

export function build(ctx: Context, runF: typeof run = run): Command {
  return new Command('scoreboard')
    .description("a project's opportunities ranked by score (an MCP-only feature: sign in with rsi login --resource mcp)")
    .argument(
      '[project]',
      'project UUID or exact name (a name is resolved through the API: `rsi login`); at a terminal, left out: picked from a list',
    )
    .option('--limit <n>', 'how many ranks to show, 1-100 (default: the server decides, 20 on the sandbox)')
    .addHelpText('after', '\nExamples:\n  rsi scoreboard "Oncology watchlist"\n  rsi scoreboard 0b7c…-uuid --limit 5 --format csv')
    .action(async (given: string | undefined, flags: { limit?: string }) => {
      const { intFlag } = await import('../shared/flags.js');
      const project = await (await import('../shared/pick.js')).projectOrPick(ctx, given);
      if (!project.trim()) throw new UsageError('<project> must not be empty');
      await runF({ project: project.trim(), limit: await intFlag('--limit', flags.limit, 1, 100) }, ctx);
    });
}

/** The body is loaded only when the command runs, so `rsi --help` and the other commands do not parse it. */
export async function run(opts: ScoreboardOptions, ctx: Context): Promise<void> {
  return (await import('./scoreboard-run.js')).run(opts, ctx);
}

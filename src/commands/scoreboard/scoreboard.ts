import { Command } from 'commander';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { note, printJson, printRows } from '../../io/output.js';
import { intFlag, target } from '../shared/flags.js';

export interface ScoreboardOptions {
  project: string;
  limit: number | undefined;
}

export function build(ctx: Context, runF: typeof run = run): Command {
  return new Command('scoreboard')
    .description("a project's opportunities ranked by score (an MCP-only feature: sign in with rsi login --resource mcp)")
    .argument(
      '[project]',
      'project UUID or exact name (a name is resolved through the API: `rsi login`); left out: the default project (rsi config set project), else picked at a terminal',
    )
    .option('--limit <n>', 'how many ranks to show, 1-100 (default: the server decides, 20 on the sandbox)')
    .addHelpText('after', '\nExamples:\n  rsi scoreboard "Oncology watchlist"\n  rsi scoreboard 0b7c…-uuid --limit 5 --format csv')
    .action(async (given: string | undefined, flags: { limit?: string }) => {
      const project = await (await import('../shared/pick.js')).projectOrPick(ctx, given);
      if (!project.trim()) throw new UsageError('<project> must not be empty');
      await runF({ project: project.trim(), limit: await intFlag('--limit', flags.limit, 1, 100) }, ctx);
    });
}

export async function run(opts: ScoreboardOptions, ctx: Context): Promise<void> {
  const [{ withMcp }, { resolveProjectLazily }, { readScoreboard }] = await Promise.all([
    import('../mcp/connect.js'),
    import('../../ops/resolve.js'),
    import('../../ops/scoreboard.js'),
  ]);
  // A UUID needs no API sign-in; a name is resolved through GET /projects like every command.
  const project = await resolveProjectLazily(() => ctx.client(), opts.project, ctx.signal);
  const { raw, board } = await withMcp(ctx, (mcp) => readScoreboard(mcp, { projectId: project.id, limit: opts.limit }));
  const reply = { content: raw };
  const out = target(ctx);
  if (out.format === 'json') {
    await printJson(ctx.io, reply.content);
    return;
  }
  // In a table, scores as every other table shows them (`54.4`, `7`); tsv and csv keep their fixed
  // two decimals, which scripts already read.
  const { formatNumber } = await import('../../io/pictures.js');
  const figure = out.format === 'table' ? formatNumber : (n: number) => n.toFixed(2);
  const fixed = (n: number | null | undefined): string => (typeof n === 'number' ? figure(n) : '');
  type Row = (typeof board.scoreboard)[number];
  const columns: Array<import('../../io/output.js').Column<Row>> = [
    { header: 'RANK', value: (r) => r.rank, numeric: true },
    { header: 'NAME', value: (r) => r.name, flexible: true },
    { header: 'TYPE', value: (r) => r.type },
    { header: 'SCORE', value: (r) => fixed(r.score), numeric: true },
    { header: 'MOMENTUM', value: (r) => fixed(r.momentum), numeric: true },
    { header: 'MATURITY', value: (r) => fixed(r.maturity), numeric: true },
    { header: 'COMPETITION', value: (r) => fixed(r.competition), numeric: true },
    { header: 'RISK', value: (r) => fixed(r.risk), numeric: true },
    { header: 'TRANSLATION', value: (r) => fixed(r.translation), numeric: true },
    { header: 'KEYWORD ID', value: (r) => r.keyword_id, id: true },
  ];
  // On a terminal, as in `rsi opportunities`: a bar of the score beside it (scores run 0–100),
  // only where the table still fits.
  const { pictureStyle, bar, columnBarWidth, tableWidth } = await import('../../io/pictures.js');
  // On a terminal the names stay whole: where the table is too wide, the id goes first, then the
  // lesser scores from the right, before a name would be cut (SCORE always stays).
  const leftOut: string[] = [];
  if (out.format === 'table' && !out.wide) {
    for (const header of ['KEYWORD ID', 'TRANSLATION', 'RISK', 'COMPETITION', 'MATURITY', 'MOMENTUM']) {
      if (tableWidth(board.scoreboard, columns) <= Math.max(20, ctx.io.columns)) break;
      columns.splice(
        columns.findIndex((c) => c.header === header),
        1,
      );
      leftOut.push(header);
    }
  }
  const style = pictureStyle(ctx.io, out.format, ctx.env);
  if (style && board.scoreboard.some((r) => typeof r.score === 'number')) {
    const max = Math.max(100, ...board.scoreboard.map((r) => r.score ?? 0));
    const width = columnBarWidth(style, tableWidth(board.scoreboard, columns));
    if (width > 0)
      columns.splice(4, 0, { header: '', value: (r) => (typeof r.score === 'number' ? bar(r.score, max, width, style) : ''), keep: true });
  }
  const printed = await printRows<Row>(out, board.scoreboard, columns);
  if (leftOut.length > 0) note(ctx.io, `left out: ${leftOut.join(', ')} (see all with --format tsv or --json)`);
  if (out.format === 'table') {
    const name = board.project?.name ?? project.name;
    const total = board.total ?? printed;
    ctx.io.stderr.write(
      printed === 0
        ? `No scored opportunities yet for "${name}": run analyses first (\`rsi analyses run\`).\n`
        : `${printed} of ${total} scored ${total === 1 ? 'opportunity' : 'opportunities'} in "${name}"\n`,
    );
  }
}

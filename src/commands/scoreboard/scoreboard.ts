import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { ScoreboardReply } from '../../ops/features.js';
import { printRows } from '../../io/output.js';
import { tableView } from '../../io/columns.js';
import { note } from '../../io/lines.js';
import { narrowTable, printReply, tableNote } from '../../io/replies.js';
import { int, type OptionSpecs, type OptionsOf, parseOptions, withOptions } from '../shared/options.js';
import { type CommandDeclaration, columnsOf, commandFor, type Field, field } from '../declaration.js';

/**
 * The options, as data (src/commands/shared/options.ts). The scoreboard is the MCP server's (the
 * service's tool sets its own most and default), so its range is the CLI's, not one of the API's.
 */
const OPTIONS = {
  limit: {
    flags: '--limit <n>',
    description: 'how many ranks to show, 1-100 (default: the server decides, 20 on the sandbox)',
    parse: int(1, 100),
  },
} satisfies OptionSpecs;

export type ScoreboardOptions = { project: string } & OptionsOf<typeof OPTIONS>;

type ScoreRow = ScoreboardReply['scoreboard'][number];

const SCORES = ['score', 'momentum', 'maturity', 'competition', 'risk', 'translation'] as const;

/** A score's column: tsv and csv as the JSON has it (`66`, `54.4`: numbers are never changed in any format). */
function scoreField(name: (typeof SCORES)[number]): Field<ScoreRow> {
  return field(name, {
    value: (r) => {
      const n = r[name];
      return typeof n === 'number' ? n : '';
    },
    numeric: true,
  });
}

/** Each field with its column: the JSON member, the csv key and the table's column are one declaration. */
const FIELDS: readonly Field<ScoreRow>[] = [
  field('rank', { numeric: true }),
  field('name', { flexible: true }),
  field('type'),
  ...SCORES.map(scoreField),
  field('keyword_id', { header: 'KEYWORD ID', id: true }),
];

export const command: CommandDeclaration = {
  path: 'scoreboard',
  description: "a project's opportunities ranked by score (an MCP-only feature: sign in with rsi login --resource mcp)",
  examples: ['rsi scoreboard "Oncology watchlist"', 'rsi scoreboard 0b7c…-uuid --limit 5 --format csv'],
  fields: { rows: 'scoreboard', list: FIELDS },
  sample: { line: ['{project}'] },
};

export function build(ctx: Context, runF: typeof run = run): Command {
  const cmd = commandFor(command).argument(
    '[project]',
    'project UUID or exact name (a name is resolved through the API: `rsi login`); left out: the default project (rsi config set project), else picked at a terminal',
  );
  return withOptions(cmd, OPTIONS).action(async (given: string | undefined, flags: Record<string, unknown>) => {
    const project = await (await import('../shared/pick.js')).projectOrPick(ctx, given);
    if (!project.trim()) throw new UsageError('<project> must not be empty');
    await runF({ project: project.trim(), ...parseOptions(OPTIONS, flags) }, ctx);
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
  const out = ctx.output();
  await printReply(out, reply.content, () => printBoard(ctx, board, project.name));
}

/** The scoreboard in tsv, csv or a table, and (under a table) how many of how many it shows. */
async function printBoard(ctx: Context, board: ScoreboardReply, projectName: string): Promise<void> {
  const out = ctx.output();
  const { formatNumber } = await import('../../io/pictures.js');
  // In a table, scores as every other table shows them (`54.4`, `7`).
  const columns = columnsOf(FIELDS).map((c) => {
    const score = SCORES.find((s) => s === c.key);
    if (score === undefined) return c;
    return { ...c, tableValue: (r: ScoreRow) => (typeof r[score] === 'number' ? formatNumber(r[score]) : '') };
  });
  // On a terminal, as in `rsi opportunities`: a bar of the score beside it (scores run 0–100),
  // only where the table still fits.
  const { pictureStyle, bar, columnBarWidth, tableWidth } = await import('../../io/pictures.js');
  // On a terminal the names stay whole: where the table is too wide, the id goes first, then the
  // lesser scores from the right, before a name would be cut (SCORE always stays).
  // Columns chosen with --fields are shown whatever the width: nothing is left out of them.
  const chosen = out.fields !== undefined;
  const leftOut = chosen
    ? []
    : await narrowTable(out, board.scoreboard, columns, ['KEYWORD ID', 'TRANSLATION', 'RISK', 'COMPETITION', 'MATURITY', 'MOMENTUM']);
  const style = pictureStyle(ctx.io, out.format, ctx.env);
  if (style && board.scoreboard.some((r) => typeof r.score === 'number')) {
    const max = Math.max(100, ...board.scoreboard.map((r) => r.score ?? 0));
    const width = columnBarWidth(style, tableWidth(board.scoreboard, tableView(columns, true)));
    if (width > 0)
      columns.splice(4, 0, { header: '', value: (r) => (typeof r.score === 'number' ? bar(r.score, max, width, style) : ''), keep: true });
  }
  const printed = await printRows<ScoreRow>(out, board.scoreboard, columns);
  if (leftOut.length > 0) note(ctx.io, `left out: ${leftOut.join(', ')} (see all with --format tsv or --json)`);
  const name = board.project?.name ?? projectName;
  const total = board.total ?? printed;
  // Nothing to print is said on stderr in every format (json has its document): never silence.
  if (printed === 0) ctx.io.stderr.write(`No scored opportunities yet for "${name}": run analyses first (\`rsi analyses run\`).\n`);
  else await tableNote(out, `${printed} of ${total} scored ${total === 1 ? 'opportunity' : 'opportunities'} in "${name}"`);
}

import type { Command } from 'commander';
import type { Context } from '../../context.js';
import type { OpportunityPayload } from '../../client/schemas.js';
import { printRows, printSections } from '../../io/output.js';
import { leftOutNote } from '../../io/lines.js';
import { forPeopleOr, inTable, printReplyOrLines } from '../../io/replies.js';
import { on, type OptionSpecs, type OptionsOf, parseOptions, withOptions } from '../shared/options.js';
import { type CommandDeclaration, columnsOf, commandFor, type Field, field, withProjectArgument } from '../declaration.js';

/** The options, as data: flags, help and parsers (src/commands/shared/options.ts). */
const OPTIONS = {
  analyses: {
    flags: '--analyses',
    description: "the project's analyses, one a row, instead of the scored keywords (table, csv, tsv, ndjson)",
    parse: on(),
  },
  web: { flags: '--web', description: "open the project's page in the browser instead", parse: on() },
} satisfies OptionSpecs;

export type OpportunitiesOptions = { project: string } & Partial<Omit<OptionsOf<typeof OPTIONS>, 'web'>>;

/** Why a column of one kind of row is not in the other's output (csv and tsv print one kind). */
const ONLY_KEYWORDS = (name: string) => (line: { opts: Readonly<Record<string, unknown>> }) =>
  line.opts.analyses === true ? `${name} is a column of the scored keywords: leave out --analyses` : undefined;
const ONLY_ANALYSES = (name: string) => (line: { opts: Readonly<Record<string, unknown>> }) =>
  line.opts.analyses === true ? undefined : `${name} is a column of the project's analyses: add --analyses`;

type Item = Record<string, unknown>;

/**
 * A member of a scored keyword (a row of `keywords`; csv and tsv's `keyword` part), its column
 * headed by the member's name. The spec leaves the scored datasets' and the analysis items'
 * members free-form: these are the members rsi knows they carry, and csv and tsv always have their
 * columns, in this order, whatever the data; members beyond them follow in first-seen order.
 */
const keyword = (name: string): Field<Item> => ({ ...field<Item>(name, { header: name }), part: 'keyword', requires: ONLY_KEYWORDS(name) });

/** A member of one of the project's analyses (`project_analyses.items`; the `analysis` part), which --fields leaves whole in JSON. */
const analysis = (name: string): Field<Item> => ({
  name,
  json: {
    refused: `${name} is a member of each analysis, in project_analyses.items: pick it with --jq '.project_analyses.items[] | {${name}}'`,
  },
  column: { header: name, value: (row) => row[name] },
  part: 'analysis',
  requires: ONLY_ANALYSES(name),
});

/** The scored keywords' members (the scores in the card's order), then the analyses' (keyword_id is both's). */
const FIELDS: readonly Field<Item>[] = [
  ...['name', 'type', 'score', 'momentum', 'maturity', 'competition', 'risk', 'translation', 'analysis_mode'].map(keyword),
  { ...field<Item>('keyword_id', { header: 'keyword_id' }), part: ['keyword', 'analysis'] },
  keyword('scored_at'),
  ...['id', 'keyword_name', 'kind', 'status', 'updated_at'].map(analysis),
];

/** A scored keyword's columns in csv and tsv. */
const KEYWORD_COLUMNS = columnsOf(FIELDS, { part: 'keyword' });

/** An analysis's columns in csv and tsv: its own id first, as in every list. */
const ANALYSIS_COLUMNS = columnsOf(FIELDS, { part: 'analysis' }).sort((a, b) => Number(b.key === 'id') - Number(a.key === 'id'));

export const command: CommandDeclaration = {
  path: 'opportunities',
  description: "show a project's scored opportunities and analysis counts",
  examples: [
    'rsi opportunities "My first project"',
    'rsi opportunities P --format csv > opportunities.csv',
    'rsi opportunities P --analyses --format csv > analyses.csv',
  ],
  // In JSON the rows are the scored keywords (`keywords`, one a line in ndjson); an analysis's
  // members live in `project_analyses.items`, which --fields leaves whole. csv and tsv print one
  // kind of row: the scored keywords, or with --analyses the analyses.
  fields: { rows: 'keywords', list: FIELDS },
  // csv and tsv print one kind of row: the scored keywords, or the analyses with --analyses.
  sample: { line: ['{project}'], more: [['{project}', '--analyses']] },
};

export function build(ctx: Context, runF: typeof run = run): Command {
  const cmd = withProjectArgument(commandFor(command));
  return withOptions(cmd, OPTIONS).action(async (given: string | undefined, flags: Record<string, unknown>) => {
    const project = await (await import('../shared/pick.js')).projectOrPick(ctx, given);
    const { web, ...options } = parseOptions(OPTIONS, flags);
    return web ? (await import('../shared/web.js')).openProjectPage(ctx, project) : runF({ project, ...options }, ctx);
  });
}

const PREFERRED = KEYWORD_COLUMNS.map((c) => c.key!);

/** Every member the rows carry, the preferred ones first, the rest sorted: nothing is dropped. */
function memberKeys(rows: readonly Item[], preferred: readonly string[] = []): string[] {
  const keys = new Set<string>();
  for (const row of rows) for (const key of Object.keys(row)) keys.add(key);
  return [...preferred.filter((k) => keys.has(k)), ...[...keys].filter((k) => !preferred.includes(k)).sort()];
}

/** How much of a name a narrow table keeps before it leaves sub-scores out. */
const NAME_ROOM = 24;

export async function run(opts: OpportunitiesOptions, ctx: Context): Promise<void> {
  const { resolveProject } = await import('../../ops/resolve.js');
  const client = await ctx.client();
  const project = await resolveProject(client, opts.project, ctx.signal);
  const payload = await client.getOpportunities(project.id, ctx.signal);
  const out = ctx.output();
  const items = analysisItems(payload);
  // ndjson: one scored keyword (or, with --analyses, one analysis) per line, as for every list.
  await printReplyOrLines(out, payload, opts.analyses ? items : payload.keywords, () => printBoard(ctx, payload, opts.analyses === true));
}

function analysisItems(payload: OpportunityPayload): Item[] {
  const pa = payload.project_analyses;
  return (Array.isArray(pa?.items) ? pa.items : []) as Item[];
}

/**
 * The scored keywords and the project's analyses: a table shows both, each as its block (only the
 * analyses with --analyses); csv and tsv one kind of row per output, so a loader (pandas, R, a csv
 * reader) gets one table with every row, never rows of the other kind's empty cells.
 */
async function printBoard(ctx: Context, payload: OpportunityPayload, analyses: boolean): Promise<void> {
  const out = ctx.output();
  const keywords = payload.keywords as Item[];
  const pa = payload.project_analyses;
  const items = analysisItems(payload);
  // The datasets' members are "not shown" in the spec. tsv/csv: the declared columns whatever the
  // data, then the members beyond them (docs/scripting.md, "Loading csv and tsv"); a table: the
  // members these rows carry, the known ones first.
  const keys = memberKeys(keywords, PREFERRED);
  const numeric = (key: string) => typeof keywords.find((k) => k[key] !== undefined && k[key] !== null)?.[key] === 'number';
  // On a terminal: what a researcher reads (name, type, scores); ids, mode, timestamps and nested
  // members are in tsv/csv/--json. The mode, when all rows share it, goes in the footer.
  const modes = new Set(keywords.map((k) => k.analysis_mode));
  const shown = keys.filter(
    (k) =>
      !/(^|_)id$|_at$/.test(k) &&
      !(k === 'analysis_mode' && modes.size <= 1) &&
      !keywords.some((row) => row[k] !== null && typeof row[k] === 'object'),
  );
  const tableColumns: Array<import('../../io/columns.js').Column<Item>> = shown.map((key) => ({
    header: key.toUpperCase(),
    value: (row: Item) => row[key],
    numeric: numeric(key),
  }));
  let rows = keywords;
  // On a terminal: ranked by score, with a bar of it beside the figure (scores run 0–100).
  const { pictureStyle, bar, columnBarWidth, tableWidth } = await import('../../io/pictures.js');
  const style = pictureStyle(ctx.io, out.format, ctx.env);
  const scoreAt = shown.indexOf('score');
  const leftOut: string[] = [];
  if (style && scoreAt >= 0) {
    const score = (r: Item): number => (typeof r.score === 'number' ? r.score : 0);
    rows = [...rows].sort((a, b) => score(b) - score(a));
    // A narrow terminal keeps what is read first — the names (up to NAME_ROOM characters), the
    // score and its bar — and leaves the sub-scores out from the right, said in one note at the
    // end; before, the names were cut to 10 characters and the bar went first.
    const nameAt = shown.indexOf('name');
    const nameWidth = nameAt < 0 ? 0 : tableWidth(rows, [tableColumns[nameAt]!]);
    const width = () => tableWidth(rows, tableColumns) - Math.max(0, nameWidth - NAME_ROOM);
    while (!out.wide && columnBarWidth(style, width()) === 0 && tableColumns.length - 1 > Math.max(scoreAt, nameAt)) {
      leftOut.unshift(tableColumns.pop()!.header);
    }
    const barWidth = columnBarWidth(style, width());
    if (barWidth > 0) tableColumns.splice(scoreAt + 1, 0, { header: '', value: (r) => bar(score(r), 100, barWidth, style), keep: true });
  }
  const keywordPart = { name: 'keyword', rows, columns: KEYWORD_COLUMNS, tableColumns };
  const analysisPart = {
    name: 'analysis',
    ...(items.length > 0 && !analyses ? { title: 'analyses' } : {}),
    rows: items,
    columns: ANALYSIS_COLUMNS,
    // On a terminal, as for the keywords: names and states; ids and timestamps are in tsv/csv/--json.
    tableColumns: memberKeys(items)
      .filter((key) => !/(^|_)id$|_at$/.test(key))
      .map((key) => ({ header: key.toUpperCase(), value: (row: Item) => row[key] })),
  };
  const part = analyses ? analysisPart : keywordPart;
  await forPeopleOr(
    out,
    () => printSections({ ...out, leftOut }, analyses ? [analysisPart] : [keywordPart, analysisPart]),
    () => printRows(out, part.rows, part.columns),
  );
  // Every column left out, this command's and the table's, in one note after the last block.
  if (leftOut.length > 0) leftOutNote(ctx.io, leftOut);
  const count = keywords.length;
  // The analysis counts are list-level metadata: on stderr (and in --json).
  if (pa) {
    const by = pa.by_status
      ? Object.entries(pa.by_status)
          .filter(([, n]) => n > 0)
          .map(([s, n]) => `${n} ${s}`)
          .join(', ')
      : '';
    const mode = modes.size === 1 ? [...modes][0] : undefined;
    const footer = `${count} scored${typeof mode === 'string' ? inTable(out, ` (${mode})`) : ''} · analyses: ${pa.total ?? 0} total${by ? ` (${by})` : ''}`;
    // Broken at spaces to a terminal's width, like the tables above it.
    const { wrap } = await import('../../io/sanitize.js');
    ctx.io.stderr.write(
      `${wrap(footer, ctx.io.stderrIsTTY ? ctx.io.columns : Number.POSITIVE_INFINITY, { breakWords: false }).join('\n')}\n`,
    );
  } else if (count === 0) ctx.io.stderr.write('No scored opportunities yet\n');
  if (payload.error) ctx.io.stderr.write(`warning: the service reported: ${payload.error}\n`);
}

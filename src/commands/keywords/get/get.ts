import type { Command } from 'commander';
import { RELATIONS } from '../../../client/enums.js';
import { hintLine } from '../../shared/hints.js';
import type { Context } from '../../../context.js';
import type { KeywordCard, KeywordScore } from '../../../client/schemas.js';
import { printRows, printSections } from '../../../io/output.js';
import { besideData, printDocumentOr, tableNote } from '../../../io/replies.js';
import { type CommandDeclaration, type Field, columnOnly, columnsOf, commandFor, field, jsonOnly, only } from '../../declaration.js';
import type { Column } from '../../../io/columns.js';
import { suggest } from '../../../io/text.js';
import { ledBy } from '../../../io/columns.js';
import { BATCH_OPTIONS, resumeFlag } from '../../shared/batch-flags.js';
import { names, type OptionSpecs, type OptionsOf, parseOptions, withOptions } from '../../shared/options.js';
import type { Outcome } from '../../shared/batch.js';

/** The options, as data: flags, help and parsers (src/commands/shared/options.ts); --resume is the batch's (BATCH_OPTIONS). */
const OPTIONS = {
  include: {
    flags: '--include <sections>',
    description: 'sections to add, comma-separated or repeated, e.g. indications,sponsors',
    parse: names('section names such as indications,sponsors'),
  },
  ...BATCH_OPTIONS,
} satisfies OptionSpecs;

/** `resume`: `--resume FILE`, with `-` only. */
export type GetOptions = { keyword: string } & Omit<OptionsOf<typeof OPTIONS>, 'resume'> & { resume?: string | undefined };

type Score = KeywordScore | undefined;
type Item = Record<string, unknown>;
/** A row of `rsi keywords get -`: an input and its card, or its error. */
type Row = Outcome<KeywordCard>;

const ACTIVITY = ['papers', 'patents', 'trials', 'assets'] as const;
const SCORES = ['composite', 'momentum', 'maturity', 'competition', 'risk', 'translation'] as const;
const ITEM_KEYS = ['id', 'name', 'count', 'stage'];
/** A KeywordScore's members by the spec: csv and tsv give each score these dotted columns, always. */
const SCORE_MEMBERS = ['score', 'raw', 'label', 'description'];
/** The card's columns in csv and tsv, in this order. */
const CARD = ['id', 'name', 'type', 'synonyms', 'description', ...ACTIVITY, 'scores_as_of', ...SCORES];
/** The card on a terminal: what people read first, the id last. */
const TABLE_CARD = ['name', 'type', 'synonyms', ...ACTIVITY, ...SCORES, 'scores_as_of', 'description', 'id'];
/** A row of many cards (`-`): led by its input, the id last, then the input's error. */
const BATCH_CARD = ['name', 'type', 'synonyms', 'description', ...ACTIVITY, 'scores_as_of', ...SCORES, 'id'];

export const command: CommandDeclaration = {
  path: 'keywords get',
  description: "show a keyword's card: activity, scores and optional sections",
  examples: [
    'rsi keywords get EGFR',
    'rsi keywords get NSCLC --include indications,assets --json',
    'printf "EGFR\\nKRAS\\n" | rsi keywords get - --format csv',
  ],
  fields: {
    list: [
      field<KeywordCard>('id', { id: true }),
      field<KeywordCard>('name'),
      field<KeywordCard>('type'),
      field<KeywordCard>('synonyms', { flexible: true }),
      field<KeywordCard>('description', { flexible: true }),
      jsonOnly('activity', 'activity', 'in csv, tsv and the table its parts are the columns papers, patents, trials and assets'),
      jsonOnly('scores', 'scores', 'in csv, tsv and the table its parts are the columns scores_as_of and composite … translation'),
      ...ACTIVITY.map((n) => field<KeywordCard>(n, `activity.${n}`, { numeric: true })),
      field<KeywordCard>('scores_as_of', 'scores.as_of', { header: 'SCORES AS OF' }),
      // A table shows the score; tsv/csv the whole KeywordScore, as dotted columns.
      ...SCORES.map((n) =>
        field<KeywordCard>(n, `scores.${n}`, {
          tableValue: (c) => (c.scores as Record<string, Score>)[n]?.score,
          numeric: true,
          members: SCORE_MEMBERS,
        }),
      ),
      ...['indications', 'sponsors', 'pipeline_targets'].map((n) => sectionField(n)),
      ...['count', 'stage'].map((n) =>
        only('single', {
          ...columnOnly(
            n,
            `${n} is a column of the sections' rows; in JSON it is inside each section: --json indications, or --jq '.indications.data[].${n}'`,
          ),
          requires: (line) => (sections(line).length > 0 ? undefined : `${n} is a column of the sections, which come with --include`),
        }),
      ),
      only('batch', field<Row>('input')),
      only('batch', field<Row>('error', { value: (r) => (r.ok ? undefined : r.error.message), flexible: true })),
      only('batch', field<Row>('error_code', { value: (r) => (r.ok ? undefined : r.error.code) })),
      only('single', {
        ...columnOnly(
          'section',
          'section names the part a row belongs to in csv and tsv; JSON keeps each part as its own member (--json indications)',
        ),
        table: { refused: 'section names the part a row belongs to in csv and tsv; a table shows each part under its title' },
      }),
    ],
    batch: (args) => String(args[0]).trim() === '-',
  },
  // The sections' columns (count, stage) come with --include.
  sample: { line: ['{keyword}', '--include', 'indications,sponsors,pipeline_targets'], batch: ['-'] },
};

/** The sections a line asked for (`--include indications,sponsors`). */
function sections(line: { opts: Readonly<Record<string, unknown>> }): string[] {
  // The flag's own parser (one home for what --include accepts); a bad value is its error, later.
  try {
    return OPTIONS.include.parse.parse('--include', line.opts.include);
  } catch {
    return [];
  }
}

/** A section of the card: a member in JSON (with --include), rows of their own in csv, tsv and the table. */
function sectionField(name: string): Field {
  return {
    ...jsonOnly(
      name,
      name,
      `${name} is a section: in csv, tsv and the table its items are rows of their own; choose their columns (name, count, stage, id) and section`,
    ),
    requires: (line) => (sections(line).includes(name) ? undefined : `${name} comes with --include ${name}`),
  };
}

export function build(ctx: Context, runF: typeof run = run): Command {
  const cmd = commandFor(command).argument(
    '<keyword>',
    'keyword UUID, or an exact name or synonym; - reads many from stdin (one a line, or NDJSON)',
  );
  return withOptions(cmd, OPTIONS).action(async (keyword: string, flags: Record<string, unknown>) => {
    const { include, resume } = parseOptions(OPTIONS, flags);
    await runF({ keyword, include, resume: resumeFlag(keyword, resume) }, ctx);
  });
}

export async function run(opts: GetOptions, ctx: Context): Promise<void> {
  if (opts.keyword.trim() === '-') return runBatch(opts, ctx);
  const { resolveKeyword } = await import('../../../ops/resolve.js');
  const client = await ctx.client();
  const { id } = await resolveKeyword(client, opts.keyword, ctx.signal);
  const card = await client.getKeyword(id, { include: opts.include }, ctx.signal);
  const out = ctx.output();
  await printDocumentOr(out, card, () => printCard(opts, ctx, card));
}

/** One card in tsv, csv or a table: the card's row, then its sections (`--include`). */
async function printCard(opts: GetOptions, ctx: Context, card: KeywordCard): Promise<void> {
  const out = ctx.output();
  type Card = typeof card;
  const scores = card.scores as Record<string, Score>;
  const { pictureStyle, scoreCells } = await import('../../../io/pictures.js');
  const style = pictureStyle(ctx.io, out.format, ctx.env);
  // On a terminal the six scores are bars (0–100) with their figures; elsewhere the figures alone.
  const bars = style
    ? scoreCells(
        SCORES.map((n) => ({ value: scores[n]?.score, note: scores[n]?.label ? `(${scores[n]!.label})` : undefined })),
        // the card's keys (at most "scores as of", 12 wide) and two spaces come before these.
        { ...style, columns: style.columns - 14 },
      )
    : undefined;
  // Every member of a KeywordScore is optional: show what there is, never "undefined".
  const scoreText = (s: Score, i: number): string =>
    s?.score !== undefined ? (bars?.[i] ?? `${s.score}${s.label ? ` (${s.label})` : ''}`) : (s?.label ?? '—');
  // One multi-part document (docs/scripting.md, "Formats"): the card's row, then one row per
  // section item; each KeywordScore as dotted columns (composite.score, composite.raw, …).
  const fields = command.fields?.list ?? [];
  const cardColumns = columnsOf<Card>(fields, { only: CARD });
  // As `key  value` lines: the names in lower case, each score its bar and figure.
  const tableCard = columnsOf<Card>(fields, { only: TABLE_CARD }).map((c) => {
    const i = (SCORES as readonly string[]).indexOf(c.key ?? '');
    return { ...c, header: c.header.toLowerCase(), ...(i >= 0 ? { value: () => scoreText(scores[SCORES[i]!], i) } : {}) };
  });
  const sections = [];
  const totals: string[] = [];
  const more: string[] = [];
  for (const section of opts.include) {
    const value = (card as Record<string, unknown>)[section] as { data?: unknown[]; total?: number } | unknown[] | undefined;
    const items = (Array.isArray(value) ? value : Array.isArray(value?.data) ? value.data : undefined) as Item[] | undefined;
    if (!items) continue;
    const total = !Array.isArray(value) && typeof value?.total === 'number' ? value.total : undefined;
    if (total !== undefined) totals.push(`${section}: ${items.length} of ${total}`);
    // The card carries the first items of a section: say so, and how to list them all.
    if (total !== undefined && total > items.length && (RELATIONS as readonly string[]).includes(section)) {
      more.push(
        `${section}: ${items.length} of ${total} shown; all of them: ${suggest(['rsi', 'keywords', 'relations', opts.keyword, '--relation', section, '--all'])}`,
      );
    }
    // Every member the items carry, the usual ones first: nothing the server sent is dropped.
    const keys = [...ITEM_KEYS];
    for (const item of items) for (const k of Object.keys(item)) if (!keys.includes(k)) keys.push(k);
    sections.push({
      name: section,
      title: `${section}${total !== undefined ? (total > items.length ? ` (${items.length} of ${total})` : ` (${total})`) : ''}`,
      rows: items,
      columns: keys.map((k) => ({ header: k, key: k, value: (r: Item) => r[k] })),
      tableColumns: [
        { header: 'NAME', value: (r: Item) => r.name, flexible: true },
        { header: 'COUNT', value: (r: Item) => r.count, numeric: true },
        { header: 'STAGE', value: (r: Item) => r.stage },
        { header: 'ID', value: (r: Item) => r.id, id: true },
      ],
    });
  }
  await printSections(out, [
    { name: 'keyword', rows: [card], columns: cardColumns, tableColumns: tableCard, card: true, elsewhere: opts.include },
    ...sections,
  ]);
  // Section totals are list-level metadata: on stderr (and in --json), not in the rows; a table
  // has them in its titles, and says instead how to list the rest, as every note: fitted to a
  // terminal, continuing under itself.
  if (totals.length > 0) besideData(out, totals.join(' · '));
  for (const line of more) await tableNote(out, hintLine(ctx, line).trimEnd(), 'note');
}

/**
 * `rsi keywords get -`: a card per input line, in input order. tsv/csv/table: one row per card
 * (the card's columns after the input; `--include` sections stay in the JSON); ndjson/json: each
 * card as the API sent it led by its `input`, a failed item as `{"input": …, "error": …, "error_code": …}`.
 */
async function runBatch(opts: GetOptions, ctx: Context): Promise<void> {
  const { errorRow, startBatch } = await import('../../shared/batch.js');
  const batch = await startBatch(ctx, (client, { id }, request) => client.getKeyword(id, { include: opts.include }, request), {
    resume: opts.resume,
    rows: 'one',
  });
  const out = batch.output(ctx.output());
  const fields = command.fields?.list ?? [];
  const card = (r: Row) => (r.ok ? r.value : undefined);
  // The card's columns, each read from the row's card.
  const ofCard = columnsOf<KeywordCard>(fields, { only: BATCH_CARD }).map(
    (c): Column<Row> => ({
      ...c,
      value: (r) => {
        const k = card(r);
        return k && c.value(k);
      },
      tableValue:
        c.tableValue &&
        ((r) => {
          const k = card(r);
          return k && c.tableValue!(k);
        }),
    }),
  );
  const rows = await printRows<Row>(
    out,
    batch.outcomes,
    [...columnsOf<Row>(fields, { only: ['input'] }), ...ofCard, ...columnsOf<Row>(fields, { only: ['error', 'error_code'] })],
    // Every row says which input line it answers, a card as `{"input": …, …the card}`.
    (r) => (r.ok ? ledBy('input', r.input, r.value) : errorRow(r)),
  );
  batch.finish(rows);
}

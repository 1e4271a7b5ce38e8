import type { Command } from 'commander';
import { RELATIONS } from '../../../client/enums.js';
import { hintLine } from '../../shared/hints.js';
import type { Context } from '../../../context.js';
import { UsageError } from '../../../errors.js';
import type { KeywordCard, KeywordScore } from '../../../client/schemas.js';
import { printRows, printSections } from '../../../io/output.js';
import { besideData, printDocumentOr, tableNote } from '../../../io/replies.js';
import { type CommandDeclaration, type Field, columnOnly, commandFor, field, jsonOnly, only } from '../../declaration.js';
import { suggest } from '../../../io/text.js';
import { ledBy } from '../../../io/columns.js';
import { batchFlags, resumeFlag } from '../../shared/batch-flags.js';

export interface GetOptions {
  keyword: string;
  include: string[];
  /** `--resume FILE`, with `-` only. */
  resume?: string | undefined;
}

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
      ...['id', 'name', 'type', 'synonyms', 'description'].map((n) => field(n)),
      jsonOnly('activity', 'activity', 'in csv, tsv and the table its parts are the columns papers, patents, trials and assets'),
      jsonOnly('scores', 'scores', 'in csv, tsv and the table its parts are the columns scores_as_of and composite … translation'),
      ...(['papers', 'patents', 'trials', 'assets'] as const).map((n) => field(n, `activity.${n}`)),
      field('scores_as_of', 'scores.as_of'),
      ...['composite', 'momentum', 'maturity', 'competition', 'risk', 'translation'].map((n) => field(n, `scores.${n}`)),
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
      only('batch', field('input')),
      only('batch', field('error')),
      only('batch', field('error_code')),
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
};

/** The sections a line asked for (`--include indications,sponsors`). */
function sections(line: { opts: Readonly<Record<string, unknown>> }): string[] {
  const given = line.opts.include;
  return Array.isArray(given)
    ? given
        .join(',')
        .split(',')
        .map((s) => s.trim().toLowerCase().replace(/-/g, '_'))
    : [];
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
  return batchFlags(
    commandFor(command)
      .argument('<keyword>', 'keyword UUID, or an exact name or synonym; - reads many from stdin (one a line, or NDJSON)')
      .option(
        '--include <sections>',
        'sections to add, comma-separated or repeated, e.g. indications,sponsors',
        (v: string, prev: string[] = []) => [...prev, v],
      ),
  ).action(async (keyword: string, flags: Record<string, unknown>) => {
    let include: string[] = [];
    if (flags.include !== undefined) {
      include = [
        ...new Set(
          (flags.include as string[])
            .join(',')
            .split(',')
            .map((s) => s.trim().toLowerCase().replace(/-/g, '_'))
            .filter(Boolean),
        ),
      ];
      const bad = include.find((s) => !/^[a-z][a-z0-9_]*$/.test(s));
      if (include.length === 0 || bad !== undefined) {
        throw new UsageError(
          `--include takes comma-separated section names such as indications,sponsors (got "${(flags.include as string[]).join(',')}")`,
        );
      }
    }
    await runF({ keyword, include, resume: resumeFlag(keyword, flags.resume) }, ctx);
  });
}

type Score = KeywordScore | undefined;
type Item = Record<string, unknown>;

const SCORES = ['composite', 'momentum', 'maturity', 'competition', 'risk', 'translation'] as const;
const ITEM_KEYS = ['id', 'name', 'count', 'stage'];
/** A KeywordScore's members by the spec: csv and tsv give each score these dotted columns, always. */
const SCORE_MEMBERS = ['score', 'raw', 'label', 'description'];

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
  const cardColumns = [
    { header: 'id', value: (c: Card) => c.id },
    { header: 'name', value: (c: Card) => c.name },
    { header: 'type', value: (c: Card) => c.type },
    { header: 'synonyms', value: (c: Card) => c.synonyms },
    { header: 'description', value: (c: Card) => c.description },
    ...(['papers', 'patents', 'trials', 'assets'] as const).map((n) => ({
      header: n,
      member: `activity.${n}`,
      value: (c: Card) => c.activity[n],
    })),
    { header: 'scores_as_of', member: 'scores.as_of', value: (c: Card) => c.scores.as_of },
    ...SCORES.map((n) => ({ header: n, member: `scores.${n}`, value: () => scores[n], members: SCORE_MEMBERS })),
  ];
  const tableCard = [
    { header: 'name', value: (c: Card) => c.name },
    { header: 'type', value: (c: Card) => c.type },
    { header: 'synonyms', value: (c: Card) => c.synonyms },
    ...(['papers', 'patents', 'trials', 'assets'] as const).map((n) => ({ header: n, value: (c: Card) => c.activity[n] })),
    ...SCORES.map((n, i) => ({ header: n, value: () => scoreText(scores[n], i) })),
    { header: 'scores as of', value: (c: Card) => c.scores.as_of },
    { header: 'description', value: (c: Card) => c.description },
    { header: 'id', value: (c: Card) => c.id },
  ];
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
  type Row = Awaited<ReturnType<typeof batch.outcomes.next>>['value'] & object;
  const card = (r: Row) => (r.ok ? r.value : undefined);
  const score = (r: Row, n: (typeof SCORES)[number]) => (card(r)?.scores as Record<string, Score> | undefined)?.[n];
  const rows = await printRows<Row>(
    out,
    batch.outcomes,
    [
      { header: 'INPUT', value: (r) => r.input },
      { header: 'NAME', value: (r) => card(r)?.name },
      { header: 'TYPE', value: (r) => card(r)?.type },
      { header: 'SYNONYMS', value: (r) => card(r)?.synonyms, flexible: true },
      { header: 'DESCRIPTION', value: (r) => card(r)?.description, flexible: true },
      ...(['papers', 'patents', 'trials', 'assets'] as const).map((n) => ({
        header: n.toUpperCase(),
        member: `activity.${n}`,
        value: (r: Row) => card(r)?.activity[n],
        numeric: true,
      })),
      { header: 'SCORES AS OF', member: 'scores.as_of', value: (r) => card(r)?.scores.as_of },
      ...SCORES.map((n) => ({
        header: n.toUpperCase(),
        key: n,
        member: `scores.${n}`,
        // A table shows the score; tsv/csv the whole KeywordScore, as the single card does.
        value: (r: Row) => score(r, n),
        tableValue: (r: Row) => score(r, n)?.score,
        numeric: true,
        members: SCORE_MEMBERS,
      })),
      { header: 'ID', value: (r) => card(r)?.id, id: true },
      { header: 'ERROR', value: (r) => (r.ok ? undefined : r.error.message), flexible: true },
      { header: 'ERROR_CODE', value: (r) => (r.ok ? undefined : r.error.code) },
    ],
    // Every row says which input line it answers, a card as `{"input": …, …the card}`.
    (r) => (r.ok ? ledBy('input', r.input, r.value) : errorRow(r)),
  );
  batch.finish(rows);
}

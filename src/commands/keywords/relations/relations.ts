import type { Command } from 'commander';
import type { Context } from '../../../context.js';
import { ACTIVITIES, RELATIONS } from '../../../client/enums.js';
import { maxPages, pageWindow } from '../../../client/paging.js';
import { printRows } from '../../../io/output.js';
import { note } from '../../../io/lines.js';
import { printListing } from '../../../io/replies.js';
import { ledBy } from '../../../io/columns.js';
import { type MultiLink, multiLinks, pairLinks, printMulti, type RelationQuery, relationQueries } from './relation-list.js';
import { given, int, on, type OptionSpecs, type OptionsOf, parseOptions, withOptions } from '../../shared/options.js';
import type { RelationItem } from '../../../client/schemas.js';
import type { Column } from '../../../io/columns.js';
import { type CommandDeclaration, columnsOf, commandFor, type Field, field, only } from '../../declaration.js';
import { BATCH_OPTIONS, resumeFlag } from '../../shared/batch-flags.js';
import { LIMITS, rangeText } from '../../../client/limits.js';

/** The options, as data: flags, help and parsers (src/commands/shared/options.ts). */
const OPTIONS = {
  relation: {
    flags: '--relation <r>',
    description: `one of ${RELATIONS.join(', ')}, a comma-separated list, or all (required)`,
    parse: given(),
  },
  activity: {
    flags: '--activity <a>',
    description: `for sponsors: ${ACTIVITIES.join(', ')}, a list, or all (required with sponsors alone; every activity by default with several relations)`,
    parse: given(),
  },
  limit: { flags: '--limit <n>', description: `links per page, ${rangeText(LIMITS.relationsLimit)}`, parse: int(LIMITS.relationsLimit) },
  offset: { flags: '--offset <n>', description: 'skip this many links (default 0)', parse: int(LIMITS.relationsOffset) },
  all: {
    flags: '--all',
    description: 'every link, streamed (fetches pages concurrently, prints in order)',
    parse: on(),
    rules: [{ conflicts: 'limit', message: '--all and --limit cannot be used together' }],
  },
  ...BATCH_OPTIONS,
} satisfies OptionSpecs;

export type RelationsOptions = {
  keyword: string;
  /** The (relation, activity) pairs asked for: one, or several (`--relation all`, lists), each row then tagged with its pair. */
  relations: RelationQuery[];
} & Omit<OptionsOf<typeof OPTIONS>, 'relation' | 'activity' | 'resume'> & {
    /** `--resume FILE`, with `-` only. */
    resume?: string | undefined;
  };

export const command: CommandDeclaration = {
  path: 'keywords relations',
  description: "list a keyword's indications, assets, pipeline targets or sponsors (or all of them)",
  examples: [
    'rsi keywords relations EGFR --relation indications',
    'rsi keywords relations NSCLC --relation sponsors --activity trials --all --format ndjson',
    'rsi keywords relations EGFR --relation all --all --format csv > egfr-relations.csv',
  ],
  fields: {
    rows: 'data',
    list: [
      // With more than one relation (`--relation all`, a list): which relation and activity a row came from.
      {
        ...field<MultiLink>('relation'),
        requires: ({ opts }) =>
          several(opts) ? undefined : 'relation is in the output only when more than one relation is asked (--relation all, or a list)',
      },
      {
        ...field<MultiLink>('activity'),
        requires: ({ opts }) =>
          several(opts)
            ? undefined
            : 'activity is in the output only when more than one relation or activity is asked (--relation all, or a list)',
      },
      field<RelationItem>('name', { flexible: true }),
      field<RelationItem>('count', { numeric: true }),
      field<RelationItem>('stage'),
      field<RelationItem>('id', { id: true }),
      // `rsi keywords relations -`: each row led by its input; a failed input is one error row.
      only('batch', field<Link>('input')),
      only('batch', field<Link>('error', { flexible: true })),
      only('batch', field<Link>('error_code')),
    ],
    batch: (args) => String(args[0]).trim() === '-',
  },
  // assets: the relation whose links carry a stage; sponsors: links with an activity.
  sample: { line: ['{keyword}', '--relation', 'assets,sponsors'], batch: ['-', '--relation', 'assets,sponsors'] },
};

/** Whether a command line asks for more than one (relation, activity) pair, so rows carry which. */
/** A row of `rsi keywords relations -`: one link of an input keyword (tagged when several relations were asked), or the input's error. */
type Link = { input: string; link?: Record<string, unknown>; error?: string; error_code?: string };

const LINK = ['name', 'count', 'stage', 'id'];

/** The columns of one relation's links; with several, led by the relation and activity each came from. */
function linkColumns<T extends RelationItem>(multi: boolean): Column<T>[] {
  return columnsOf<T>(command.fields?.list ?? [], { only: multi ? ['relation', 'activity', ...LINK] : LINK });
}

/** `rsi keywords relations -`'s columns: the input, the link's columns read from its link, the error. */
function batchColumns(multi: boolean): Column<Link>[] {
  const fields = (command.fields?.list ?? []) as readonly Field<Link>[];
  const ofLink = linkColumns<MultiLink>(multi).map(
    ({ tableValue: _, ...c }): Column<Link> => ({ ...c, value: (r) => (r.link ? c.value(r.link as MultiLink) : undefined) }),
  );
  return [...columnsOf(fields, { only: ['input'] }), ...ofLink, ...columnsOf(fields, { only: ['error', 'error_code'] })];
}

function several(opts: Readonly<Record<string, unknown>>): boolean {
  try {
    return relationQueries(opts.relation, opts.activity).length > 1;
  } catch {
    return false;
  }
}

export function build(ctx: Context, runF: typeof run = run): Command {
  const cmd = commandFor(command).argument(
    '<keyword>',
    'keyword UUID, or an exact name or synonym; - reads many from stdin (one a line, or NDJSON)',
  );
  return withOptions(cmd, OPTIONS).action(async (keyword: string, flags: Record<string, unknown>) => {
    const { relation, activity, resume, ...options } = parseOptions(OPTIONS, flags);
    await runF({ keyword, relations: relationQueries(relation, activity), ...options, resume: resumeFlag(keyword, resume) }, ctx);
  });
}

export async function run(opts: RelationsOptions, ctx: Context): Promise<void> {
  if (opts.keyword.trim() === '-') return runBatch(opts, ctx);
  const { resolveKeyword } = await import('../../../ops/resolve.js');
  // A bad RSI_PAGES_IN_FLIGHT is a usage error before any request.
  const concurrency = opts.all ? pageWindow(ctx.env, ctx.clock) : 1;
  const cap = maxPages(ctx.env);
  const client = await ctx.client();
  const { id } = await resolveKeyword(client, opts.keyword, ctx.signal);
  const out = ctx.output();
  const columns = linkColumns<RelationItem>(false);
  // With --all, `fetched N of M` on stderr while rows go to a file (walk-progress.ts).
  const progress = opts.all ? await (await import('../../shared/walk-progress.js')).walkProgress(ctx) : undefined;
  const walk = (q: RelationQuery) => ({
    ...q,
    pageSize: 100,
    concurrency,
    offset: opts.offset,
    maxPages: cap,
    onWarning: (m: string) => note(ctx.io, `warning: ${m}`),
    onPage: progress?.walk(),
  });
  const q = opts.relations[0]!;
  try {
    if (opts.relations.length > 1)
      return await printMulti(
        out,
        ctx,
        client,
        id,
        opts.relations,
        { all: opts.all, limit: opts.limit, offset: opts.offset, walk },
        linkColumns<MultiLink>(true),
      );
    if (opts.all)
      return void (await printListing(out, { rows: client.iterateRelations(id, walk(q), ctx.signal), columns, empty: 'No links' }));
  } finally {
    progress?.stop();
  }
  const page = await client.listRelations(id, { ...q, limit: opts.limit, offset: opts.offset }, ctx.signal);
  // On a terminal, each link's count as a bar against the page's largest (the service ranks them).
  const { pictureStyle, bar, columnBarWidth, tableWidth } = await import('../../../io/pictures.js');
  const style = pictureStyle(ctx.io, out.format, ctx.env);
  const width = style ? columnBarWidth(style, tableWidth(page.data, columns)) : 0;
  if (style && width > 0 && page.data.some((r) => typeof r.count === 'number')) {
    const max = Math.max(...page.data.map((r) => r.count ?? 0));
    columns.splice(2, 0, { header: '', value: (r: { count?: number }) => bar(r.count ?? 0, max, width, style), keep: true } as never);
  }
  const { offset, total } = page.meta;
  await printListing(out, {
    document: page,
    rows: page.data,
    columns,
    empty: total > 0 ? `No links at offset ${offset} (total ${total})` : 'No links',
    footer: (count) =>
      `Showing ${offset + 1}–${offset + count} of ${total}${offset + count < total ? `; more with --offset ${offset + count}, or --all` : ''}`,
  });
}

/**
 * `rsi keywords relations - --relation R`: the links of every input keyword, in input order, each
 * row led by its input (`{"input": …, …link}` in ndjson); a failed item is one error row. Each
 * keyword's page (or, with --all, its whole walk) is fetched before its rows print.
 */
async function runBatch(opts: RelationsOptions, ctx: Context): Promise<void> {
  const { errorRow, startBatch } = await import('../../shared/batch.js');
  const cap = maxPages(ctx.env);
  const multi = opts.relations.length > 1;
  const batch = await startBatch(
    ctx,
    async (client, { id }, request) => {
      // The batch already keeps a window of keywords in flight: one page at a time within each.
      const walk = (q: RelationQuery) => ({ ...q, pageSize: 100, concurrency: 1, offset: opts.offset, maxPages: cap });
      const how = { all: opts.all, limit: opts.limit, offset: opts.offset, walk };
      // One relation: each link as the service sent it; several: tagged with its relation and activity.
      const links = multi ? multiLinks(client, id, opts.relations, how, request) : pairLinks(client, id, opts.relations[0]!, how, request);
      const all: Record<string, unknown>[] = [];
      for await (const link of links) all.push(link);
      return all;
    },
    { resume: opts.resume, rows: 'many' },
  );
  async function* rows(): AsyncGenerator<Link> {
    for await (const o of batch.outcomes) {
      if (!o.ok) yield errorRow(o);
      // An input without links still has its row, so every input is answered in the output.
      else if (o.value.length === 0) yield { input: o.input };
      else for (const link of o.value.slice(batch.alreadyPrinted(o.input))) yield { input: o.input, link };
    }
  }
  const printed = await printRows<Link>(batch.output(ctx.output()), rows(), batchColumns(multi), (r) =>
    r.link === undefined ? { input: r.input, error: r.error, error_code: r.error_code } : ledBy('input', r.input, r.link),
  );
  batch.finish(printed);
}

import type { Command } from 'commander';
import type { Context } from '../../../context.js';
import { UsageError } from '../../../errors.js';
import { ACTIVITIES, RELATIONS } from '../../../client/enums.js';
import { maxPages, pageWindow } from '../../../client/paging.js';
import { printRows } from '../../../io/output.js';
import { note } from '../../../io/lines.js';
import { printListing } from '../../../io/replies.js';
import { ledBy } from '../../../io/columns.js';
import { type LinkRow as Link, RELATION_BATCH_COLUMNS, RELATION_COLUMNS } from './views.js';
import { enumFlag, intFlag, target } from '../../shared/flags.js';
import { type CommandDeclaration, commandFor, field, only } from '../../declaration.js';

/** `pipeline-targets`, `Pipeline_Targets`, `sponsor`: the intent is clear, so take it. */
export function relationName(raw: string): string {
  const snake = raw
    .trim()
    .toLowerCase()
    .replace(/[-\s]+/g, '_');
  return (RELATIONS as readonly string[]).includes(`${snake}s`) ? `${snake}s` : snake;
}

export interface RelationsOptions {
  keyword: string;
  relation: string;
  activity: string | undefined;
  limit: number | undefined;
  offset: number | undefined;
  all: boolean;
}

export const command: CommandDeclaration = {
  path: 'keywords relations',
  description: "list a keyword's indications, assets, pipeline targets or sponsors",
  examples: [
    'rsi keywords relations EGFR --relation indications',
    'rsi keywords relations NSCLC --relation sponsors --activity trials --all --format ndjson',
  ],
  fields: {
    rows: 'data',
    list: [
      field('name'),
      field('count'),
      field('stage'),
      field('id'),
      // `rsi keywords relations -`: each row led by its input; a failed input is one error row.
      only('batch', field('input')),
      only('batch', field('error')),
    ],
    batch: (args) => String(args[0]).trim() === '-',
  },
  paged: 'GET /keywords/{id}/relations',
};

export function build(ctx: Context, runF: typeof run = run): Command {
  return commandFor(command)
    .argument('<keyword>', 'keyword UUID, or an exact name or synonym; - reads many from stdin (one a line, or NDJSON)')
    .option('--relation <r>', `one of ${RELATIONS.join(', ')} (required)`)
    .option('--activity <a>', `for sponsors (required there): ${ACTIVITIES.join(', ')}`)
    .option('--limit <n>', 'links per page, 1 to 100 (default 20)')
    .option('--offset <n>', 'skip this many links (default 0)')
    .option('--all', 'every link, streamed (fetches pages concurrently, prints in order)')
    .action(async (keyword: string, flags: Record<string, unknown>) => {
      if (flags.relation === undefined) throw new UsageError(`--relation is required: one of ${RELATIONS.join(', ')}`);
      const relation = enumFlag('--relation', relationName(String(flags.relation)), RELATIONS)!;
      const activity = enumFlag('--activity', flags.activity === undefined ? undefined : String(flags.activity).toLowerCase(), ACTIVITIES);
      // The service ignores activity for other relations; silently dropping it would mislead.
      if (activity && relation !== 'sponsors')
        throw new UsageError(`--activity only applies with --relation sponsors (got --relation ${relation})`);
      if (relation === 'sponsors' && !activity)
        throw new UsageError(`--activity is required with --relation sponsors: one of ${ACTIVITIES.join(', ')}`);
      if (flags.all && flags.limit !== undefined) throw new UsageError('--all and --limit cannot be used together');
      await runF(
        {
          keyword,
          relation,
          activity,
          limit: intFlag('--limit', flags.limit, 1, 100),
          offset: intFlag('--offset', flags.offset, 0),
          all: flags.all === true,
        },
        ctx,
      );
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
  const out = target(ctx);
  const columns = [...RELATION_COLUMNS];
  const q = { relation: opts.relation, activity: opts.activity };
  if (opts.all) {
    const rows = client.iterateRelations(
      id,
      { ...q, pageSize: 100, concurrency, offset: opts.offset, maxPages: cap, onWarning: (m) => note(ctx.io, `warning: ${m}`) },
      ctx.signal,
    );
    await printListing(out, { rows, columns, empty: 'No links' });
    return;
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
  const { startBatch } = await import('../../shared/batch.js');
  const out = target(ctx);
  const q = { relation: opts.relation, activity: opts.activity };
  const cap = maxPages(ctx.env);
  const batch = await startBatch(ctx, async (client, { id }) => {
    if (!opts.all) return (await client.listRelations(id, { ...q, limit: opts.limit, offset: opts.offset }, ctx.signal)).data;
    const links = [];
    // The batch already keeps a window of keywords in flight: one page at a time within each.
    for await (const link of client.iterateRelations(
      id,
      { ...q, pageSize: 100, concurrency: 1, offset: opts.offset, maxPages: cap },
      ctx.signal,
    )) {
      links.push(link);
    }
    return links;
  });
  async function* rows(): AsyncGenerator<Link> {
    for await (const o of batch.outcomes) {
      if (!o.ok) yield { input: o.input, error: o.error.message };
      else for (const link of o.value) yield { input: o.input, link };
    }
  }
  await printRows<Link>(out, rows(), RELATION_BATCH_COLUMNS, (r) =>
    r.error !== undefined ? { input: r.input, error: r.error } : ledBy('input', r.input, r.link),
  );
  batch.finish();
}

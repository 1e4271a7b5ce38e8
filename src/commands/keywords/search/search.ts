import type { Command } from 'commander';
import type { Context } from '../../../context.js';
import { UsageError } from '../../../errors.js';
import { maxPages, pageWindow } from '../../../client/paging.js';
import { note } from '../../../io/lines.js';
import { printListing } from '../../../io/replies.js';
import { SEARCH_COLUMNS } from './views.js';
import { intFlag, target } from '../../shared/flags.js';
import { type CommandDeclaration, commandFor, field } from '../../declaration.js';

export interface SearchOptions {
  query: string;
  page: number | undefined;
  limit: number | undefined;
  all: boolean;
}

export const command: CommandDeclaration = {
  path: 'keywords search',
  description: 'search keywords by name or synonym',
  examples: ['rsi keywords search egfr', 'rsi keywords search kinase --all --format csv > kinases.csv'],
  fields: { rows: 'data', list: [field('name'), field('type'), field('synonyms'), field('id')] },
  paged: 'GET /keywords/search',
};

export function build(ctx: Context, runF: typeof run = run): Command {
  return commandFor(command)
    .argument('<query>', 'text to search for')
    .option('--page <n>', 'page number, from 1 (default 1)')
    .option('--limit <n>', 'results per page, 1 to 20 (default 10)')
    .option('--all', 'every page, streamed')
    .action(async (query: string, flags: Record<string, unknown>) => {
      if (!query.trim()) throw new UsageError('the search query must not be empty');
      if (flags.all && flags.page !== undefined) throw new UsageError('--all and --page cannot be used together');
      await runF(
        {
          query,
          page: intFlag('--page', flags.page, 1),
          limit: intFlag('--limit', flags.limit, 1, 20),
          all: flags.all === true,
        },
        ctx,
      );
    });
}

export async function run(opts: SearchOptions, ctx: Context): Promise<void> {
  // A bad RSI_PAGES_IN_FLIGHT is a usage error before any request.
  const window = opts.all ? pageWindow(ctx.env, ctx.clock) : 1;
  const cap = maxPages(ctx.env);
  const client = await ctx.client();
  const out = target(ctx);
  const columns = SEARCH_COLUMNS;
  const empty = `No keywords match "${opts.query}"`;
  if (opts.all) {
    const progress = await (await import('../../shared/walk-progress.js')).walkProgress(ctx);
    const onPage = progress?.walk();
    const onWarning = (m: string) => note(ctx.io, `warning: ${m}`);
    const rows = client.iterateKeywordSearch(
      { q: opts.query, limit: opts.limit ?? 20, window, maxPages: cap, onWarning, onPage },
      ctx.signal,
    );
    try {
      await printListing(out, { rows, columns, empty });
    } finally {
      progress?.stop();
    }
    return;
  }
  const page = await client.searchKeywords({ q: opts.query, page: opts.page, limit: opts.limit }, ctx.signal);
  await printListing(out, {
    document: page,
    rows: page.data,
    columns,
    empty,
    footer: (count) =>
      count === page.meta.pageSize ? `Page ${page.meta.page}; more may follow: --page ${page.meta.page + 1}, or --all` : undefined,
  });
}

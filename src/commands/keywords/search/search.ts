import type { Command } from 'commander';
import type { Context } from '../../../context.js';
import { UsageError } from '../../../errors.js';
import { maxPages, pageWindow } from '../../../client/paging.js';
import { note } from '../../../io/lines.js';
import { printListing } from '../../../io/replies.js';
import type { KeywordHit } from '../../../client/schemas.js';
import { int, on, type OptionSpecs, type OptionsOf, parseOptions, withOptions } from '../../shared/options.js';
import { type CommandDeclaration, columnsOf, commandFor, type Field, field } from '../../declaration.js';
import { LIMITS, rangeText } from '../../../client/limits.js';

/** The options, as data: flags, help and parsers (src/commands/shared/options.ts). */
const OPTIONS = {
  page: { flags: '--page <n>', description: 'page number, from 1 (default 1)', parse: int(LIMITS.searchPage) },
  limit: { flags: '--limit <n>', description: `results per page, ${rangeText(LIMITS.searchLimit)}`, parse: int(LIMITS.searchLimit) },
  all: {
    flags: '--all',
    description: 'every page, streamed',
    parse: on(),
    rules: [{ conflicts: 'page', message: '--all and --page cannot be used together' }],
  },
  type: {
    flags: '--type <types>',
    description: 'only hits of these types, e.g. target,disease (rsi filters each page)',
    parse: { parse: (_flag: string, raw: unknown) => typesOf(raw) },
  },
} satisfies OptionSpecs;

export type SearchOptions = { query: string } & Omit<OptionsOf<typeof OPTIONS>, 'type'> & {
    /** `--type a,b`: only hits of these types (filtered here: the service's search has no such filter). */
    types?: readonly string[] | undefined;
  };

/** Each field with its column: the JSON member, the csv key and the table's column are one declaration. */
const FIELDS: readonly Field<KeywordHit>[] = [
  field('name'),
  field('type'),
  field('synonyms', { flexible: true }),
  field('id', { id: true }),
];

export const command: CommandDeclaration = {
  path: 'keywords search',
  description: 'search keywords by name or synonym',
  examples: [
    'rsi keywords search egfr',
    'rsi keywords search kinase --all --format csv > kinases.csv',
    'rsi keywords search lung --type disease --all',
  ],
  fields: { rows: 'data', list: FIELDS },
  sample: { line: ['egfr'] },
};

export function build(ctx: Context, runF: typeof run = run): Command {
  return withOptions(commandFor(command).argument('<query>', 'text to search for'), OPTIONS).action(
    async (query: string, flags: Record<string, unknown>) => {
      if (!query.trim()) throw new UsageError('the search query must not be empty');
      const { type, ...options } = parseOptions(OPTIONS, flags);
      await runF({ query, ...options, types: type }, ctx);
    },
  );
}

/** `--type Target, disease` → ['target', 'disease']; none given: undefined. */
function typesOf(raw: unknown): string[] | undefined {
  if (raw === undefined) return undefined;
  const types = String(raw)
    .split(',')
    .map((t) => t.trim().toLowerCase())
    .filter(Boolean);
  if (types.length === 0) throw new UsageError('--type needs a type, e.g. --type target or --type target,disease');
  return types;
}

export async function run(opts: SearchOptions, ctx: Context): Promise<void> {
  // A bad RSI_PAGES_IN_FLIGHT is a usage error before any request.
  const window = opts.all ? pageWindow(ctx.env, ctx.clock) : 1;
  const cap = maxPages(ctx.env);
  const client = await ctx.client();
  const out = ctx.output();
  const columns = columnsOf(FIELDS);
  const types = opts.types;
  const wanted = (hit: { type: string }) => types === undefined || types.includes(hit.type.toLowerCase());
  const empty = `No keywords${types ? ` of type ${types.join(' or ')}` : ''} match "${opts.query}"`;
  if (opts.all) {
    const progress = await (await import('../../shared/walk-progress.js')).walkProgress(ctx);
    const onPage = progress?.walk();
    const onWarning = (m: string) => note(ctx.io, `warning: ${m}`);
    const all = client.iterateKeywordSearch(
      { q: opts.query, limit: opts.limit ?? 20, window, maxPages: cap, onWarning, onPage },
      ctx.signal,
    );
    const rows = types === undefined ? all : filtered(all, wanted);
    try {
      await printListing(out, { rows, columns, empty });
    } finally {
      progress?.stop();
    }
    return;
  }
  const page = await client.searchKeywords({ q: opts.query, page: opts.page, limit: opts.limit }, ctx.signal);
  // --type keeps the page's hits of those types, in the JSON document too (its meta as the service sent it).
  const data = page.data.filter(wanted);
  await printListing(out, {
    document: types === undefined ? page : { ...page, data },
    rows: data,
    columns,
    // A full page of other types: none here, but later pages may have some.
    empty: () =>
      types !== undefined && page.data.length === page.meta.pageSize
        ? `${empty} on page ${page.meta.page}; more may follow: --page ${page.meta.page + 1}, or --all`
        : empty,
    footer: () =>
      page.data.length === page.meta.pageSize
        ? `Page ${page.meta.page}; more may follow: --page ${page.meta.page + 1}, or --all`
        : undefined,
  });
}

async function* filtered<T>(rows: AsyncIterable<T>, keep: (row: T) => boolean): AsyncGenerator<T> {
  for await (const row of rows) if (keep(row)) yield row;
}

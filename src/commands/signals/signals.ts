import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { ANALYSIS_MODES } from '../../client/enums.js';
import { printListing } from '../../io/replies.js';
import type { Signal } from '../../client/schemas.js';
import { int, on, oneOf, type OptionSpecs, type OptionsOf, parseOptions, text, withOptions } from '../shared/options.js';
import { type CommandDeclaration, columnsOf, commandFor, type Field, field, withProjectArgument } from '../declaration.js';
import { LIMITS, rangeText } from '../../client/limits.js';

/** The options, as data: flags, help and parsers (src/commands/shared/options.ts). */
const OPTIONS = {
  type: { flags: '--type <t>', description: 'only signals of this type, e.g. target, disease, modality, mechanism', parse: text() },
  analysisMode: { flags: '--analysis-mode <m>', description: `ranking: ${ANALYSIS_MODES.join(', ')}`, parse: oneOf(ANALYSIS_MODES) },
  limit: { flags: '--limit <n>', description: `at most this many, ${rangeText(LIMITS.signalsLimit)}`, parse: int(LIMITS.signalsLimit) },
  web: { flags: '--web', description: "open the project's page in the browser instead", parse: on() },
} satisfies OptionSpecs;

export type SignalsOptions = { project: string } & Omit<OptionsOf<typeof OPTIONS>, 'web'>;

/**
 * Each field with its column: the JSON member, the csv key and the table's column are one
 * declaration. A table without --wide leaves the feed position out, and the watchlist keyword's id
 * when every row shares it (`signalColumns`); tsv and csv keep every member.
 */
const FIELDS: readonly Field<Signal>[] = [
  field('rank', { numeric: true }),
  field('name', { flexible: true }),
  field('type'),
  field('analysed'),
  field('keyword_id', { id: true }),
  field('signal_keyword_id', { id: true }),
  // Last, so the earlier columns keep their places for `cut -f`.
  field('position', { numeric: true, wideOnly: true }),
];

/** The columns, with the keyword's id only with --wide when every row shares it. */
function signalColumns(oneKeyword: boolean) {
  return columnsOf(FIELDS).map((c) => (c.key === 'keyword_id' ? { ...c, wideOnly: oneKeyword } : c));
}

export const command: CommandDeclaration = {
  path: 'signals',
  description: "list a project's signals (discovery candidates)",
  examples: [
    'rsi signals "KRAS inhibitors" --type target',
    "rsi signals P --json | jq '[.signals[] | select(.analysed | not)][:3]' | rsi analyses run P --selections -",
  ],
  fields: {
    rows: 'signals',
    list: FIELDS,
  },
  sample: { line: ['{project}'] },
};

export function build(ctx: Context, runF: typeof run = run): Command {
  const cmd = withProjectArgument(commandFor(command));
  return withOptions(cmd, OPTIONS).action(async (given: string | undefined, flags: Record<string, unknown>) => {
    const project = await (await import('../shared/pick.js')).projectOrPick(ctx, given);
    const { web, ...options } = parseOptions(OPTIONS, flags);
    return web ? (await import('../shared/web.js')).openProjectPage(ctx, project) : runF({ project, ...options }, ctx);
  });
}

/**
 * The watchlist keyword as people know it (`EGFR (b7a233d8-…)`), for the footer; its id alone when
 * the card cannot be read. One small request, on a terminal only.
 */
async function keywordName(client: import('../../client/client.js').ApiClient, id: string, signal: AbortSignal): Promise<string> {
  try {
    return `${(await client.getKeyword(id, { include: [] }, signal)).name} (${id})`;
  } catch (error) {
    if (signal.aborted) throw error;
    return id;
  }
}

export async function run(opts: SignalsOptions, ctx: Context): Promise<void> {
  const { resolveProject } = await import('../../ops/resolve.js');
  const client = await ctx.client();
  const project = await resolveProject(client, opts.project, ctx.signal);
  const list = await client.listSignals(project.id, { type: opts.type, analysis_mode: opts.analysisMode, limit: opts.limit }, ctx.signal);
  const out = ctx.output();
  // On a terminal the watchlist keyword's id is shown only when the rows do not all share it.
  const oneKeyword = new Set(list.signals.map((s) => s.keyword_id)).size <= 1;
  const columns = signalColumns(oneKeyword);
  await printListing(out, {
    document: list,
    rows: list.signals,
    columns,
    empty: `No signals yet for ${project.name}${list.total === 0 ? ' (the scan may still be running: `rsi status` tells)' : ''}`,
    footer: async (count) => {
      const kw = oneKeyword ? ` · keyword ${await keywordName(client, list.signals[0]!.keyword_id, ctx.signal)}` : '';
      // Broken at spaces to the terminal's width; the shared keyword id stays whole, to be copied.
      const { wrap } = await import('../../io/sanitize.js');
      const footer = `${count} of ${list.total} signals, ${list.unanalysed_total} not analysed · ranked by ${list.analysis_mode_label}${kw}`;
      return wrap(footer, ctx.io.stderrIsTTY ? ctx.io.columns : Number.POSITIVE_INFINITY, { breakWords: false }).join('\n');
    },
  });
}

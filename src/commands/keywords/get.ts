import { Command } from 'commander';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { KeywordScore } from '../../client/schemas.js';

export interface GetOptions {
  keyword: string;
  include: string[];
}

export function build(ctx: Context, runF: typeof run = run): Command {
  return new Command('get')
    .description("show a keyword's card: activity, scores and optional sections")
    .argument('<keyword>', 'keyword UUID, or an exact name or synonym')
    .option('--include <sections>', 'comma-separated sections to add, e.g. indications,sponsors')
    .addHelpText('after', '\nExamples:\n  rsi keywords get EGFR\n  rsi keywords get NSCLC --include indications,assets --json')
    .action(async (keyword: string, flags: Record<string, unknown>) => {
      let include: string[] = [];
      if (flags.include !== undefined) {
        include = String(flags.include)
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
        const bad = include.find((s) => !/^[a-z][a-z0-9_]*$/.test(s));
        if (include.length === 0 || bad !== undefined) {
          throw new UsageError(
            `--include takes comma-separated section names such as indications,sponsors (got "${String(flags.include)}")`,
          );
        }
      }
      await runF({ keyword, include }, ctx);
    });
}

type Score = KeywordScore | undefined;

export async function run(opts: GetOptions, ctx: Context): Promise<void> {
  const [{ printJson, printPairs, printRows, write }, { target }, { resolveKeyword }] = await Promise.all([
    import('../../io/output.js'),
    import('../shared/flags.js'),
    import('../shared/resolve.js'),
  ]);
  const client = await ctx.client();
  const { id } = await resolveKeyword(client, opts.keyword, ctx.signal);
  const card = await client.getKeyword(id, { include: opts.include }, ctx.signal);
  const out = target(ctx);
  if (out.format === 'json') return printJson(ctx.io, card);
  if (out.format === 'ndjson') return write(ctx.io.stdout, `${JSON.stringify(card)}\n`);
  const scores = card.scores as Record<string, Score>;
  const scoreText = (s: Score): string => (s ? `${s.score}${s.label ? ` (${s.label})` : ''}` : '—');
  const pairs: Array<[string, unknown]> = [
    ['name', card.name],
    ['type', card.type],
    ['synonyms', card.synonyms],
    ['papers', card.activity.papers],
    ['patents', card.activity.patents],
    ['trials', card.activity.trials],
    ['assets', card.activity.assets],
    ...(['composite', 'momentum', 'maturity', 'competition', 'risk', 'translation'] as const).map((n): [string, unknown] => [
      n,
      scoreText(scores[n]),
    ]),
    ['scores as of', card.scores.as_of],
    ['description', card.description],
    ['id', card.id],
  ];
  await printPairs(out, pairs);
  for (const section of opts.include) {
    const value = (card as Record<string, unknown>)[section] as { data?: unknown[]; total?: number } | unknown[] | undefined;
    const items = Array.isArray(value) ? value : Array.isArray(value?.data) ? value.data : undefined;
    if (!items) continue;
    if (out.format === 'table')
      ctx.io.stdout.write(`\n${section}${!Array.isArray(value) && value?.total !== undefined ? ` (${value.total})` : ''}\n`);
    await printRows(out, items as Array<Record<string, unknown>>, [
      { header: 'NAME', value: (r) => r.name },
      { header: 'COUNT', value: (r) => r.count, numeric: true },
      { header: 'STAGE', value: (r) => r.stage },
      { header: 'SECTION', value: () => section },
    ]);
  }
}

import { Command } from 'commander';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';

export interface GetOptions {
  keyword: string;
  include: string[];
}

export function build(ctx: Context, runF: typeof run = run): Command {
  return new Command('get')
    .description("show a keyword's card: activity, scores and optional sections")
    .argument('<keyword>', 'keyword UUID, or an exact name or synonym')
    .option(
      '--include <sections>',
      'sections to add, comma-separated or repeated, e.g. indications,sponsors',
      (v: string, prev: string[] = []) => [...prev, v],
    )
    .addHelpText('after', '\nExamples:\n  rsi keywords get EGFR\n  rsi keywords get NSCLC --include indications,assets --json')
    .action(async (keyword: string, flags: Record<string, unknown>) => {
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
      await runF({ keyword, include }, ctx);
    });
}

type Score = { score?: number; label?: string } | null | undefined;

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
  const { pictureStyle, scoreCells } = await import('../../io/pictures.js');
  const style = pictureStyle(ctx.io, out.format, ctx.env);
  const SCORES = ['composite', 'momentum', 'maturity', 'competition', 'risk', 'translation'] as const;
  // On a terminal the six scores are bars (0–100) with their figures; elsewhere the figures alone.
  const bars = style
    ? scoreCells(
        SCORES.map((n) => ({ value: scores[n]?.score, note: scores[n]?.label ? `(${scores[n]!.label})` : undefined })),
        // printPairs puts the keys (at most "scores as of", 12 wide) and two spaces before these.
        { ...style, columns: style.columns - 14 },
      )
    : undefined;
  const scoreText = (s: Score, i: number): string => bars?.[i] ?? (s ? `${s.score}${s.label ? ` (${s.label})` : ''}` : '—');
  const pairs: Array<[string, unknown]> = [
    ['name', card.name],
    ['type', card.type],
    ['synonyms', card.synonyms],
    ['papers', card.activity.papers],
    ['patents', card.activity.patents],
    ['trials', card.activity.trials],
    ['assets', card.activity.assets],
    ...SCORES.map((n, i): [string, unknown] => [n, scoreText(scores[n], i)]),
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

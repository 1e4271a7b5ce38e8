import { Command } from 'commander';
import type { Context } from '../../context.js';

export function build(ctx: Context, runF: typeof run = run): Command {
  return new Command('opportunities')
    .description("show a project's scored opportunities and analysis counts")
    .argument('<project>', 'project UUID or exact name')
    .action(async (project: string) => runF({ project }, ctx));
}

const PREFERRED = ['name', 'type', 'score', 'momentum', 'maturity', 'competition', 'risk', 'translation', 'analysis_mode', 'keyword_id'];

type Item = Record<string, unknown>;

/** Every member the rows carry, the preferred ones first, the rest sorted: nothing is dropped. */
function memberKeys(rows: readonly Item[], preferred: readonly string[] = []): string[] {
  const keys = new Set<string>();
  for (const row of rows) for (const key of Object.keys(row)) keys.add(key);
  return [...preferred.filter((k) => keys.has(k)), ...[...keys].filter((k) => !preferred.includes(k)).sort()];
}

export async function run(opts: { project: string }, ctx: Context): Promise<void> {
  const [{ printJson, printRows, printSections }, { target }, { resolveProject }] = await Promise.all([
    import('../../io/output.js'),
    import('../shared/flags.js'),
    import('../shared/resolve.js'),
  ]);
  const client = await ctx.client();
  const project = await resolveProject(client, opts.project, ctx.signal);
  const payload = await client.getOpportunities(project.id, ctx.signal);
  const out = target(ctx);
  if (out.format === 'json') return printJson(ctx.io, payload);
  const keywords = payload.keywords as Item[];
  // ndjson: one scored keyword per line, as for every list.
  if (out.format === 'ndjson') return void (await printRows(out, keywords, []));
  const pa = payload.project_analyses;
  const items = (Array.isArray(pa?.items) ? pa.items : []) as Item[];
  // The datasets' members are "not shown" in the spec: the known ones first, then the rest; nested
  // members go JSON-encoded into their cell (docs/scripting.md, "Formats").
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
  await printSections(out, [
    {
      name: 'keyword',
      rows: keywords,
      columns: keys.map((key) => ({ header: key, key, value: (row: Item) => row[key] })),
      tableColumns: shown.map((key) => ({ header: key.toUpperCase(), value: (row: Item) => row[key], numeric: numeric(key) })),
    },
    {
      name: 'analysis',
      ...(items.length > 0 ? { title: 'analyses' } : {}),
      rows: items,
      columns: memberKeys(items).map((key) => ({ header: key, key, value: (row: Item) => row[key] })),
    },
  ]);
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
    ctx.io.stderr.write(
      `${count} scored${typeof mode === 'string' && out.format === 'table' ? ` (${mode})` : ''} · analyses: ${pa.total ?? 0} total${by ? ` (${by})` : ''}\n`,
    );
  } else if (count === 0) ctx.io.stderr.write('No scored opportunities yet\n');
  if (payload.error) ctx.io.stderr.write(`warning: the service reported: ${payload.error}\n`);
}

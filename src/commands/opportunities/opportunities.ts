import { Command } from 'commander';
import type { Context } from '../../context.js';

export function build(ctx: Context, runF: typeof run = run): Command {
  return new Command('opportunities')
    .description("show a project's scored opportunities and analysis counts")
    .argument('<project>', 'project UUID or exact name')
    .option('--web', "open the project's page in the browser instead")
    .action(async (project: string, flags: { web?: boolean }) =>
      flags.web ? (await import('../shared/web.js')).openProjectPage(ctx, project) : runF({ project }, ctx),
    );
}

const PREFERRED = ['name', 'type', 'score', 'momentum', 'maturity', 'competition', 'risk', 'translation', 'analysis_mode', 'keyword_id'];

export async function run(opts: { project: string }, ctx: Context): Promise<void> {
  const [{ printJson, printRows }, { target }, { resolveProject }] = await Promise.all([
    import('../../io/output.js'),
    import('../shared/flags.js'),
    import('../shared/resolve.js'),
  ]);
  const client = await ctx.client();
  const project = await resolveProject(client, opts.project, ctx.signal);
  const payload = await client.getOpportunities(project.id, ctx.signal);
  const out = target(ctx);
  if (out.format === 'json') return printJson(ctx.io, payload);
  // The datasets' members are "not shown" in the spec: show the known ones first, then the rest.
  const keys = new Set<string>();
  for (const k of payload.keywords) for (const [key, v] of Object.entries(k)) if (v === null || typeof v !== 'object') keys.add(key);
  let ordered = [...PREFERRED.filter((k) => keys.has(k)), ...[...keys].filter((k) => !PREFERRED.includes(k)).sort()];
  // On a terminal: what a researcher reads (name, type, scores); ids, mode and timestamps are in
  // tsv/csv/--json. The mode, when all rows share it, goes in the footer.
  const modes = new Set(payload.keywords.map((k) => (k as Record<string, unknown>).analysis_mode));
  if (out.format === 'table') ordered = ordered.filter((k) => !/(^|_)id$|_at$/.test(k) && !(k === 'analysis_mode' && modes.size <= 1));
  const columns: Array<import('../../io/output.js').Column<Record<string, unknown>>> = ordered.map((key) => ({
    header: out.format === 'table' ? key.toUpperCase() : key,
    value: (row: Record<string, unknown>) => row[key],
    numeric: typeof payload.keywords[0]?.[key] === 'number',
  }));
  let rows = payload.keywords;
  // On a terminal: ranked by score, with a bar of it beside the figure (scores run 0–100).
  const { pictureStyle, bar, columnBarWidth, tableWidth } = await import('../../io/pictures.js');
  const style = pictureStyle(ctx.io, out.format, ctx.env);
  const scoreAt = ordered.indexOf('score');
  if (style && scoreAt >= 0) {
    const score = (r: Record<string, unknown>): number => (typeof r.score === 'number' ? r.score : 0);
    rows = [...rows].sort((a, b) => score(b) - score(a));
    const width = columnBarWidth(style, tableWidth(rows, columns));
    if (width > 0) columns.splice(scoreAt + 1, 0, { header: '', value: (r) => bar(score(r), 100, width, style), keep: true });
  }
  const count = await printRows(out, rows, columns);
  const pa = payload.project_analyses;
  if (out.format === 'table' || count === 0) {
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
  }
  if (payload.error) ctx.io.stderr.write(`warning: the service reported: ${payload.error}\n`);
}

import { Command } from 'commander';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';

export const GOALS = ['target', 'indication', 'modality'] as const;

export interface CreateOptions {
  name: string;
  brief: string | undefined;
  watchlist: unknown[] | undefined;
  operand: '$and' | '$or' | undefined;
  goals: string[];
  primaryFilterType: string | undefined;
  openSetup: boolean;
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export function build(ctx: Context, runF: typeof run = run): Command {
  return new Command('create')
    .description('create a project; prints its id and the setup URL where scoring setup is finished')
    .option('--name <name>', 'project name (required)')
    .option('--brief <text>', 'the project brief')
    .option('--brief-file <path>', 'read the brief from a file')
    .option('--watchlist-file <path>', 'JSON array of scope items ({entity_id, entity_type, entity_name?, data?}); - for stdin')
    .option('--operand <op>', 'combine watchlist items with "and" or "or"')
    .option('--goal <goal>', `a goal, repeatable: ${GOALS.join(', ')}`, collect)
    .option('--primary-filter-type <type>', 'primary filter type (default keyword)')
    .option('--open-setup', 'open the setup page in the browser')
    .addHelpText(
      'after',
      '\nExamples:\n  rsi projects create --name "KRAS landscape" --goal target --goal modality\n  rsi projects create --name Fibrosis --brief-file brief.md --watchlist-file items.json --operand or',
    )
    .action(async (flags: Record<string, unknown>) => runF(await parseCreateFlags(flags, ctx), ctx));
}

export async function parseCreateFlags(flags: Record<string, unknown>, ctx: Context): Promise<CreateOptions> {
  const { enumFlag, nonEmpty, conflicting, readInput, parseJsonInput } = await import('../shared/flags.js');
  if (flags.name === undefined) throw new UsageError('--name is required');
  const name = nonEmpty('--name', flags.name)!;
  if (name.length > 200) throw new UsageError('--name must be at most 200 characters');
  conflicting({ '--brief': flags.brief, '--brief-file': flags.briefFile });
  let brief = flags.brief === undefined ? undefined : String(flags.brief);
  if (flags.briefFile !== undefined) {
    brief = await readInput('--brief-file', String(flags.briefFile), ctx, 1024 * 1024);
    if (!brief.trim()) throw new UsageError(`--brief-file: ${String(flags.briefFile)} is empty`);
  }
  if (flags.briefFile === '-' && flags.watchlistFile === '-')
    throw new UsageError('--brief-file and --watchlist-file cannot both read stdin');
  let watchlist: unknown[] | undefined;
  if (flags.watchlistFile !== undefined) {
    const path = String(flags.watchlistFile);
    const source = path === '-' ? 'stdin' : path;
    const data = parseJsonInput('--watchlist-file', await readInput('--watchlist-file', path, ctx), source);
    const { z } = await import('zod');
    const { ScopeItem } = await import('../../client/schemas.js');
    const parsed = z.array(ScopeItem).safeParse(data);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new UsageError(
        `--watchlist-file: ${source}: ${issue.path.length ? `item ${issue.path.join('.')}` : 'expected a JSON array of scope items'}: ${issue.message}`,
        {
          hint: 'each item needs entity_id and entity_type (strings); entity_name and data are optional',
        },
      );
    }
    watchlist = parsed.data;
  }
  const operand = await enumFlag('--operand', flags.operand, ['and', 'or'] as const);
  const goals = (flags.goal as string[] | undefined) ?? [];
  for (const g of goals) await enumFlag('--goal', g, GOALS);
  return {
    name,
    brief,
    watchlist,
    operand: operand === undefined ? undefined : operand === 'and' ? '$and' : '$or',
    goals: [...new Set(goals)],
    primaryFilterType: nonEmpty('--primary-filter-type', flags.primaryFilterType),
    openSetup: flags.openSetup === true,
  };
}

export async function run(opts: CreateOptions, ctx: Context): Promise<void> {
  const [{ printJson, printPairsText, printRows }, { target }] = await Promise.all([
    import('../../io/output.js'),
    import('../shared/flags.js'),
  ]);
  const client = await ctx.client();
  const created = await client.createProject(
    {
      name: opts.name,
      ...(opts.brief !== undefined ? { brief: opts.brief } : {}),
      ...(opts.watchlist !== undefined ? { watchlist_items: opts.watchlist as never } : {}),
      ...(opts.operand ? { operand: opts.operand } : {}),
      ...(opts.goals.length ? { goals: opts.goals } : {}),
      ...(opts.primaryFilterType ? { primary_filter_type: opts.primaryFilterType } : {}),
    },
    ctx.signal,
  );
  const out = target(ctx);
  const err = ctx.io.stderr;
  if (out.format !== 'json') err.write(`✓ Created project ${created.name}\n`);
  if (out.format === 'json') await printJson(ctx.io, created);
  else if (out.format === 'table') {
    await printPairsText(ctx.io, [
      ['id', created.id],
      ['setup_url', created.setup_url],
    ]);
  } else {
    await printRows(
      out,
      [created],
      [
        { header: 'id', value: (c) => c.id },
        { header: 'name', value: (c) => c.name },
        { header: 'role', value: (c) => c.role },
        { header: 'setup_url', value: (c) => c.setup_url },
        { header: 'scan_error', value: (c) => c.scan_error },
      ],
    );
  }
  if (created.scan_error) err.write(`warning: the initial scan did not start: ${created.scan_error}\n`);
  if (out.format === 'table') err.write(`Next: finish scoring setup at ${created.setup_url}, then \`rsi status ${created.id} --watch\`\n`);
  if (opts.openSetup) {
    const { openBrowser } = await import('../../io/browser.js');
    err.write(`Opening ${created.setup_url}\n`);
    if (!(await openBrowser(created.setup_url, { env: ctx.env }))) err.write('Could not open a browser; open the URL above yourself.\n');
  }
}

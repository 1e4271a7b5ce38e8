import { suggest } from '../../../io/text.js';
import { openSetupPage } from '../../shared/open-setup.js';
import type { Command } from 'commander';
import type { Context } from '../../../context.js';
import { NotFoundError, UsageError } from '../../../errors.js';
import { GOALS } from '../../../client/enums.js';
import { isUuid } from '../../../client/ids.js';
import { noteUnlessJson, printMade, tableNote } from '../../../io/replies.js';
import { conflicting, enumFlag, nonEmpty, parseJsonInput, readInput } from '../../shared/flags.js';
import { type CommandDeclaration, commandFor } from '../../declaration.js';

export interface CreateOptions {
  name: string;
  brief: string | undefined;
  watchlist: unknown[] | undefined;
  operand: '$and' | '$or' | undefined;
  goals: string[];
  primaryFilterType: string | undefined;
  openSetup: boolean;
  /** --if-absent: a project of this name already there is the answer, not a reason to make another. */
  ifAbsent?: boolean;
}

/** Repeatable, and each value may be a comma list: `--goal target,modality`. */
/** `--goal a,b` and `--goal a --goal b` alike, each lowercased (checked against GOALS later). */
function goalList(value: string, previous: string[] = []): string[] {
  return [...previous, ...value.split(',').map((v) => v.trim().toLowerCase())];
}

export const command: CommandDeclaration = {
  path: 'projects create',
  description: 'create a project; prints its id and the setup URL where scoring setup is finished',
  examples: [
    'rsi projects create --name "KRAS landscape" --goal target --goal modality',
    'rsi projects create --name Fibrosis --brief-file brief.md --watchlist-file items.json --operand or',
    'rsi projects create --from-brief brief.md          # shows the matched scope, then asks',
    'rsi projects create --name Nightly --if-absent --json   # scripts: the existing one, or a new one',
  ],
};

export function build(ctx: Context, runF: typeof run = run): Command {
  return commandFor(command)
    .option('--name <name>', 'project name (required; at a terminal, asked for when left out)')
    .option('--brief <text>', 'the project brief')
    .option('--brief-file <path>', 'read the brief from a file')
    .option(
      '--watchlist-file <path>',
      'JSON array of scope items ({entity_id, entity_type, entity_name?, data?}) or keyword names; - for stdin',
    )
    .option('--operand <op>', 'combine watchlist items with "and" or "or"')
    .option('--goal <goal>', `a goal, repeatable: ${GOALS.join(', ')}`, goalList)
    .option('--primary-filter-type <type>', 'primary filter type (default keyword)')
    .option('--open-setup', 'open the setup page in the browser')
    .option('--if-absent', 'if a project of this name exists (case-insensitive), print it instead of creating another (exit 0)')
    .option(
      '--from-brief <path|->',
      "create from a brief file (or stdin) with the service's scope matching (MCP: rsi login --resource mcp)",
    )
    .option('-y, --yes', 'with --from-brief: create without asking after the matched scope is shown')
    .action(async (flags: Record<string, unknown>) => {
      if (flags.fromBrief !== undefined) {
        if (flags.ifAbsent !== undefined) throw new UsageError('--if-absent cannot be used with --from-brief');
        const fromBrief = await import('./from-brief.js');
        return fromBrief.runFromBrief(await fromBrief.parseFromBriefFlags(flags), ctx);
      }
      if (flags.yes !== undefined) throw new UsageError('--yes only applies with --from-brief');
      // At a terminal a left-out name is asked for; elsewhere parseCreateFlags says it is required.
      const { canAsk, nameOrAsk } = await import('../../shared/pick.js');
      const named = flags.name === undefined && canAsk(ctx) ? { ...flags, name: await nameOrAsk(ctx, undefined) } : flags;
      return runF(await parseCreateFlags(named, ctx), ctx);
    });
}

export async function parseCreateFlags(flags: Record<string, unknown>, ctx: Context): Promise<CreateOptions> {
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
    const { watchlistSchema } = await import('../../shared/flag-schemas.js');
    const { ScopeItem } = await import('../../../client/schemas.js');
    // A plain string is a keyword name (or id), resolved to a scope item when the command runs.
    const parsed = watchlistSchema(ScopeItem()).safeParse(data);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new UsageError(
        `--watchlist-file: ${source}: ${issue.path.length ? `item ${issue.path.join('.')}` : 'expected a JSON array of scope items'}: ${issue.message}`,
        {
          hint: 'each item is a keyword name, or an object with entity_id and entity_type (strings); entity_name and data are optional',
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
    ...(flags.ifAbsent === true ? { ifAbsent: true } : {}),
  };
}

export async function run(opts: CreateOptions, ctx: Context): Promise<void> {
  const client = await ctx.client();
  const { deadline } = ctx;
  deadline.step('the keywords of the watchlist');
  const watchlist = opts.watchlist === undefined ? undefined : await resolveWatchlist(opts.watchlist, client, ctx);
  const [{ createProject, confirmedByReadingBack, READ_BACK_NOTE }, { shielded }] = await Promise.all([
    import('../../../ops/writes.js'),
    import('../../../io/shield.js'),
  ]);
  const err = ctx.io.stderr;
  // Sent once; a lost reply is read back against the list read first (src/ops/writes.ts). That
  // first look is best effort without --if-absent, within one --http-timeout (issue 46).
  const outcome = await createProject(
    client,
    {
      name: opts.name,
      ...(opts.brief !== undefined ? { brief: opts.brief } : {}),
      ...(watchlist !== undefined ? { watchlist_items: watchlist as never } : {}),
      ...(opts.operand ? { operand: opts.operand } : {}),
      ...(opts.goals.length ? { goals: opts.goals } : {}),
      ...(opts.primaryFilterType ? { primary_filter_type: opts.primaryFilterType } : {}),
    },
    {
      signal: ctx.signal,
      step: (what) => deadline.step(what),
      shield: (fn) => shielded(fn, 'reading the service back to see whether the project was created'),
      ifAbsent: opts.ifAbsent === true,
      lookMs: ctx.globals().timeoutMs,
      onWarning: (line) => void err.write(`warning: ${line}\n`),
    },
  );
  const created = outcome.project;
  const out = ctx.output();
  const namesakes = outcome.outcome === 'created' ? (outcome.namesakes ?? []) : [];
  // What happened is said in every format when it is not the plain case: a script's log shows it.
  if (outcome.outcome === 'existed') err.write(`✓ Project ${created.name} already exists (--if-absent): nothing was created\n`);
  else if (confirmedByReadingBack(created)) err.write(`✓ Created project ${created.name} (${READ_BACK_NOTE})\n`);
  else noteUnlessJson(out, `✓ Created project ${created.name}`);
  if (namesakes.length > 0) {
    // Created all the same (the service allows it), but the name no longer picks one project.
    err.write(
      `warning: you already have a project named "${opts.name}" (${namesakes.join(', ')}); use the id to pick one: ${created.id}\n`,
    );
  }
  await printMade(out, {
    json: created,
    row: created,
    columns: [
      { header: 'id', value: (c) => c.id },
      { header: 'name', value: (c) => c.name },
      { header: 'role', value: (c) => c.role },
      { header: 'setup_url', value: (c) => c.setup_url },
      { header: 'scan_error', value: (c) => c.scan_error },
    ],
    pairs: [
      ['id', created.id],
      ['setup_url', created.setup_url],
    ],
  });
  // Server text inside a message of rsi's: line breaks folded, so it stays one line.
  if (created.scan_error) err.write(`warning: the initial scan did not start: ${created.scan_error.replace(/\s*[\r\n]+\s*/g, ' ')}\n`);
  // The name as typed, unless another project shares it: then only the id picks this one.
  const ref = namesakes.length > 0 ? created.id : created.name;
  await tableNote(out, `Next: finish scoring setup at ${created.setup_url}, then ${suggest(['rsi', 'status', ref, '--watch'])}`);
  if (opts.openSetup) await openSetupPage(ctx, created.setup_url);
}

/**
 * Keyword names in the watchlist become scope items; keyword ids the service does not know are
 * warned about (the service stores whatever it is sent, so a typo would pass silently).
 */
async function resolveWatchlist(
  items: unknown[],
  client: Awaited<ReturnType<Context['client']>>,
  ctx: Context,
): Promise<Array<Record<string, unknown>>> {
  const { resolveKeyword } = await import('../../../ops/resolve.js');
  const out: Array<Record<string, unknown>> = [];
  for (const item of items) {
    if (typeof item === 'string') {
      const { id } = await resolveKeyword(client, item, ctx.signal);
      const card = await client.getKeyword(id, {}, ctx.signal);
      out.push({ entity_id: card.id, entity_type: card.type ?? 'keyword', entity_name: card.name });
      continue;
    }
    const scoped = item as Record<string, unknown> & { entity_id: string; entity_name?: string };
    if (isUuid(scoped.entity_id)) {
      try {
        await client.getKeyword(scoped.entity_id, {}, ctx.signal);
      } catch (error) {
        if (!(error instanceof NotFoundError)) throw error;
        ctx.io.stderr.write(
          `warning: watchlist item ${scoped.entity_name ? `"${scoped.entity_name}" ` : ''}(${scoped.entity_id}) is not a known keyword id; sent as given\n`,
        );
      }
    }
    out.push(scoped);
  }
  return out;
}

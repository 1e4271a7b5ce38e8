import { suggest } from '../../../io/text.js';
import { openSetupPage } from '../../shared/open-setup.js';
import type { Command } from 'commander';
import type { Context } from '../../../context.js';
import { NotFoundError, UsageError } from '../../../errors.js';
import { GOALS } from '../../../client/enums.js';
import { isUuid } from '../../../client/ids.js';
import { noteUnlessJson, printMade, tableNote } from '../../../io/replies.js';
import { enumFlag, parseJsonInput, readInput } from '../../shared/flags.js';
import {
  given,
  list,
  on,
  oneOf,
  type OptionRule,
  type OptionSpecs,
  type OptionsOf,
  parseOptions,
  text,
  withOptions,
} from '../../shared/options.js';
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

/** --from-brief takes the brief and its scope from the service: the flags that set them do not apply. */
const fromTheBrief = (option: string, flag: string): OptionRule => ({
  conflicts: option,
  message: `${flag} cannot be used with --from-brief (the brief and its matched scope come from the file)`,
});

/** The options, as data: flags, help, parsers and rules (src/commands/shared/options.ts). */
const OPTIONS = {
  name: { flags: '--name <name>', description: 'project name (required; at a terminal, asked for when left out)', parse: text(200) },
  brief: {
    flags: '--brief <text>',
    description: 'the project brief',
    parse: given(),
    rules: [{ conflicts: 'briefFile', message: '--brief and --brief-file cannot be used together' }],
  },
  briefFile: { flags: '--brief-file <path>', description: 'read the brief from a file', parse: given() },
  watchlistFile: {
    flags: '--watchlist-file <path>',
    description: 'JSON array of scope items ({entity_id, entity_type, entity_name?, data?}) or keyword names; - for stdin',
    parse: given(),
  },
  operand: { flags: '--operand <op>', description: 'combine watchlist items with "and" or "or"', parse: oneOf(['and', 'or'] as const) },
  // `--goal a,b` and `--goal a --goal b` alike, each lowercased.
  goal: {
    flags: '--goal <goal>',
    description: `a goal, repeatable: ${GOALS.join(', ')}`,
    parse: list({ split: /,/, item: (flag, value) => enumFlag(flag, value.trim().toLowerCase(), GOALS) }),
  },
  primaryFilterType: { flags: '--primary-filter-type <type>', description: 'primary filter type (default keyword)', parse: text() },
  openSetup: { flags: '--open-setup', description: 'open the setup page in the browser', parse: on() },
  ifAbsent: {
    flags: '--if-absent',
    description: 'if a project of this name exists (case-insensitive), print it instead of creating another (exit 0)',
    parse: on(),
  },
  fromBrief: {
    flags: '--from-brief <path|->',
    description: "create from a brief file (or stdin) with the service's scope matching (MCP: rsi login --resource mcp)",
    parse: text(),
    rules: [
      { conflicts: 'ifAbsent', message: '--if-absent cannot be used with --from-brief' },
      fromTheBrief('brief', '--brief'),
      fromTheBrief('briefFile', '--brief-file'),
      fromTheBrief('watchlistFile', '--watchlist-file'),
      fromTheBrief('operand', '--operand'),
      fromTheBrief('goal', '--goal'),
      fromTheBrief('primaryFilterType', '--primary-filter-type'),
    ],
  },
  yes: {
    flags: '-y, --yes',
    description: 'with --from-brief: create without asking after the matched scope is shown',
    parse: on(),
    rules: [{ needs: 'fromBrief' }],
  },
} satisfies OptionSpecs;

/** The typed options of a command line (parseOptions over OPTIONS). */
export type CreateFlags = OptionsOf<typeof OPTIONS>;

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
  return withOptions(commandFor(command), OPTIONS).action(async (flags: Record<string, unknown>) => {
    const options = parseOptions(OPTIONS, flags);
    if (options.fromBrief !== undefined) {
      const fromBrief = await import('./from-brief.js');
      return fromBrief.runFromBrief(fromBrief.fromBriefOptions(options.fromBrief, options), ctx);
    }
    // At a terminal a left-out name is asked for (and read as --name is); elsewhere it is required.
    const { canAsk, nameOrAsk } = await import('../../shared/pick.js');
    const name = options.name ?? (canAsk(ctx) ? OPTIONS.name.parse.parse('--name', await nameOrAsk(ctx, undefined)) : undefined);
    return runF(await createOptions({ ...options, name }, ctx), ctx);
  });
}

/** The typed flags into what run takes: the brief and the watchlist read (a file or stdin), checked. */
async function createOptions(flags: CreateFlags, ctx: Context): Promise<CreateOptions> {
  if (flags.name === undefined) throw new UsageError('--name is required');
  let brief = flags.brief;
  if (flags.briefFile !== undefined) {
    brief = await readInput('--brief-file', flags.briefFile, ctx, 1024 * 1024);
    if (!brief.trim()) throw new UsageError(`--brief-file: ${flags.briefFile} is empty`);
  }
  if (flags.briefFile === '-' && flags.watchlistFile === '-')
    throw new UsageError('--brief-file and --watchlist-file cannot both read stdin');
  let watchlist: unknown[] | undefined;
  if (flags.watchlistFile !== undefined) {
    const path = flags.watchlistFile;
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
  return {
    name: flags.name,
    brief,
    watchlist,
    operand: flags.operand === undefined ? undefined : flags.operand === 'and' ? '$and' : '$or',
    goals: [...new Set(flags.goal)],
    primaryFilterType: flags.primaryFilterType,
    openSetup: flags.openSetup,
    ...(flags.ifAbsent ? { ifAbsent: true } : {}),
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

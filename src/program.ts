/**
 * Builds the commander tree. Each command lives in its own file under `src/commands/` and exports
 * `build(ctx)`; heavy modules are imported inside the actions, so building the tree is cheap.
 * Help and usage text go to the injected streams.
 */
import type { EventEmitter } from 'node:events';
import { Command, Help, Option } from 'commander';
import { MIN_DESCRIPTION_WIDTH, OUTPUT_FORMATS, helpWidth, reflowHelp, stackedItem, type Context } from './context.js';
import * as help from './commands/help/help.js';
import * as layout from './commands/help/layout.js';
import * as login from './commands/auth/login.js';
import * as logout from './commands/auth/logout.js';
import * as authStatus from './commands/auth/status.js';
import * as authToken from './commands/auth/token.js';
import * as authSwitch from './commands/auth/switch.js';
import * as config from './commands/config/config.js';
import * as doctor from './commands/doctor/doctor.js';
import * as keywordsSearch from './commands/keywords/search.js';
import * as keywordsGet from './commands/keywords/get.js';
import * as keywordsRelations from './commands/keywords/relations.js';
import * as projectsList from './commands/projects/list.js';
import * as projectsCreate from './commands/projects/create.js';
import * as status from './commands/status/status.js';
import * as signals from './commands/signals/signals.js';
import * as opportunities from './commands/opportunities/opportunities.js';
import * as analysesRun from './commands/analyses/run.js';
import * as api from './commands/api/api.js';
import * as sandbox from './commands/sandbox/sandbox.js';
import * as completion from './commands/completion/completion.js';
import * as mcpTools from './commands/mcp/tools.js';
import * as mcpCall from './commands/mcp/call.js';
import * as mcpServe from './commands/mcp/serve.js';
import * as scoreboard from './commands/scoreboard/scoreboard.js';
import { FIELDS } from './commands/shared/fields.js';
import { oneJq } from './commands/shared/flags.js';
import { pageOutput } from './commands/shared/pager.js';
import { commandHabit, optionHabit, quoteHint } from './commands/shared/habits.js';

/**
 * Every top-level command in the order help lists them. A run builds only the command it names
 * (`commandWord`); help, completion and a word no command has get the whole tree. Building every
 * command's options and help texts was ~4 ms of one GET on Node 24 (docs/performance.md, round 3);
 * their code stays in this one chunk (a chunk per command cost more in loading than it saved).
 */
const COMMANDS: readonly { name: string; hidden?: boolean; build: (ctx: Context, program: Command) => Command }[] = [
  { name: 'login', build: (ctx) => login.build(ctx) },
  { name: 'logout', build: (ctx) => logout.build(ctx) },
  group('auth', 'show and use the stored sign-in', [authStatus, authToken, authSwitch]),
  { name: 'config', build: (ctx) => config.build(ctx) },
  { name: 'doctor', build: (ctx) => doctor.build(ctx) },
  group('keywords', 'search keywords, read cards and relations', [keywordsSearch, keywordsGet, keywordsRelations]),
  group('projects', 'list and create projects', [projectsList, projectsCreate]),
  { name: 'status', build: (ctx) => status.build(ctx) },
  { name: 'signals', build: (ctx) => signals.build(ctx) },
  { name: 'opportunities', build: (ctx) => opportunities.build(ctx) },
  { name: 'scoreboard', build: (ctx) => scoreboard.build(ctx) },
  group('analyses', 'start scoring analyses', [analysesRun]),
  { name: 'api', build: (ctx) => api.build(ctx) },
  { name: 'sandbox', build: (ctx) => sandbox.build(ctx) },
  { name: 'completion', build: (ctx) => completion.build(ctx) },
  { name: '__complete', hidden: true, build: (ctx) => completion.buildValues(ctx) },
  { name: 'help', build: (_ctx, program) => help.build(program) },
  group('mcp', "the service's MCP server from the terminal", [mcpTools, mcpCall, mcpServe]),
];

/** Words that need the whole tree: help renders it, completion walks it. */
const WHOLE_TREE = new Set(['help', 'completion', '__complete']);

/**
 * The command word of a command line, if it names one the tree can be built for alone: the first
 * word that is neither a flag of `root` nor the value of one (`--profile work`). Anything else
 * (none, `--`, an unknown word, help, completion) gets the whole tree, so commander's own errors
 * and suggestions are unchanged.
 */
export function commandWord(argv: readonly string[], root: Command): string | undefined {
  const takesValue = new Set(root.options.filter((o) => o.required || o.optional).flatMap((o) => [o.long, o.short]));
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') return undefined;
    if (arg.startsWith('-')) {
      if (takesValue.has(arg)) i++;
      continue;
    }
    return COMMANDS.some((c) => c.name === arg) && !WHOLE_TREE.has(arg) ? arg : undefined;
  }
  return undefined;
}

/**
 * The commander tree for `argv`: only the command it names when `commandWord` finds one, else every
 * command. Without `argv`, the whole tree (tests, docs, completion).
 */
export function buildProgram(ctx: Context, argv?: readonly string[]): Command {
  const program = new Command('rsi')
    .description('Command-line client for the Research Intelligence Service')
    .version(ctx.version, '-V, --version', 'print the version')
    .option('--profile <name>', 'named set of base URL and credentials (env: RSI_PROFILE)')
    .option('--base-url <url>', 'service base address (env: RSI_BASE_URL)')
    .option('--json', 'machine output: the API JSON on stdout, nothing else')
    .addOption(new Option('--format <format>', 'output format').choices(OUTPUT_FORMATS))
    .option('--no-color', 'no colour (env: NO_COLOR)')
    .option('--debug', 'HTTP trace on stderr, secrets redacted (env: RSI_DEBUG=1)')
    .option('--http-timeout <seconds>', 'per-request timeout (env: RSI_HTTP_TIMEOUT, default 30)')
    .option('--jq <expr>', 'filter the JSON output with a jq expression (implies --json; strings print raw)', oneJq)
    .option('--fields <names>', 'only these columns / JSON members, comma-separated, in this order (see each command)')
    .option('--no-pager', 'never page long tables (env: RSI_PAGER, PAGER choose the pager)')
    .option('--wide', 'tables keep full ids and every column')
    .addOption(
      new Option('--time <style>', 'times in tables: relative ("5 min ago") or absolute (env: RSI_TIME)').choices(['relative', 'absolute']),
    )
    .showSuggestionAfterError(true)
    // `rsi help analyses run` must reach the subcommand; commander's own help command stops at one word.
    .helpCommand(false);
  const word = argv && commandWord(argv, program);
  for (const c of word ? COMMANDS.filter((one) => one.name === word) : COMMANDS) {
    program.addCommand(c.build(ctx, program), c.hidden ? { hidden: true } : {});
  }
  // The person's settings (`rsi config`) are read once, before the action, never for --help; the
  // commands that use none (the sandbox, completion on every Tab) skip the read.
  program.hook('preAction', async (_program, action) => {
    const path = commandPath(action);
    if (NO_SETTINGS.has(path.split(' ')[0] ?? '')) return;
    await ctx.loadSettings();
    await pageOutput(ctx, path, action, program.opts().pager);
  });
  // A base URL ending in /api/v1 (the sandbox prints both) is taken as the base, with a note.
  program.hook('preAction', () => {
    const raw = program.opts().baseUrl ?? ctx.env.RSI_BASE_URL;
    if (typeof raw === 'string' && /\/api\/v1\/*$/.test(raw.trim())) {
      ctx.io.stderr.write(`note: using ${raw.trim().replace(/\/api\/v1\/*$/, '')} as the base URL (the API is at <base>/api/v1)\n`);
    }
  });
  // --fields and --jq are checked (and jq compiled) once the command is known, before any request.
  program.hook('preAction', async (_program, action) => {
    const globals = ctx.globals();
    if (globals.fields === undefined && globals.jq === undefined) return;
    const { prepareOutput } = await import('./commands/shared/scripting.js');
    await prepareOutput(ctx, commandPath(action));
  });
  applyToAll(program, (cmd) => {
    const examples = EXAMPLES[commandPath(cmd)];
    if (examples) cmd.addHelpText('after', `\nExamples:\n${examples.map((e) => `  ${e}`).join('\n')}`);
    const fields = FIELDS[commandPath(cmd)];
    if (fields) cmd.addHelpText('after', `\nFields (--fields, --json a,b): ${fields.fields.join(', ')}`);
    cmd
      .configureOutput({
        writeOut: (text) => void ctx.io.stdout.write(text),
        // The width comes from the injected Io, not from commander's look at process.stdout.
        getOutHelpWidth: () => helpWidth(ctx.io),
        writeErr: (text) => void ctx.io.stderr.write(text),
        outputError: (text, write) => write(explainUsage(cmd, text.replace(/^error: /, '').trimEnd())),
      })
      // Global options are listed once (`rsi help environment`); every screen points there.
      .configureHelp({
        showGlobalOptions: false,
        minWidthToWrap: MIN_DESCRIPTION_WIDTH,
        visibleOptions(c) {
          return layout.visibleOptions(c, this as Help);
        },
        subcommandTerm: layout.subcommandTerm,
        formatHelp(c, helper) {
          return layout.withGlobalsPointer(Help.prototype.formatHelp.call(helper, c, helper), helper.helpWidth ?? 80);
        },
        formatItem(term, termWidth, description, helper) {
          const width = helper.helpWidth ?? 80;
          if (description && width - termWidth - 4 < MIN_DESCRIPTION_WIDTH) return stackedItem(term, description, width);
          return Help.prototype.formatItem.call(helper, term, termWidth, description, helper);
        },
      })
      .exitOverride();
    reflowAddedHelp(cmd, () => helpWidth(ctx.io));
  });
  return program;
}

/**
 * Flags that mean the same on a sibling command under another name: `status --watch` and
 * `analyses run --wait` both follow the status. A wrong one names the right one.
 */
const SIBLING_FLAGS: Record<string, readonly string[]> = {
  '--wait': ['--watch'],
  '--watch': ['--wait'],
  '--follow': ['--watch', '--wait'],
  '--scopes': ['--scope', '--add-scope'],
  '--relations': ['--relation'],
  '--goals': ['--goal'],
  '--limit': ['--top'],
  '--top': ['--limit'],
};

/**
 * commander's usage error as rsi prints it: a habit of gh, kubectl or az (`rsi auth login`,
 * `-o json`) named with rsi's equivalent, a flag of a sibling command named, and an unquoted name
 * (`rsi status My first project`) with a hint to quote it.
 */
export function explainUsage(cmd: Command, message: string): string {
  const typed = { path: commandPath(cmd), argv: (rootOf(cmd) as unknown as { rawArgs?: string[] }).rawArgs ?? [] };
  const command = /^unknown command '([^']+)'/.exec(message)?.[1];
  const option = /^unknown option '([^']+)'/.exec(message)?.[1];
  const habit = command !== undefined ? commandHabit(command, typed) : option !== undefined ? optionHabit(option, typed) : undefined;
  if (habit) return `rsi: ${habit}\n`;
  const excess = /^too many arguments for '[^']+'\. Expected (\d+) arguments? but got/.exec(message);
  const quote = excess ? quoteHint(typed.argv, cmd.args, Number(excess[1])) : undefined;
  return `rsi: ${suggestSibling(cmd, message)}\n${quote ? `hint: ${quote}\n` : ''}`;
}

function rootOf(cmd: Command): Command {
  let root = cmd;
  while (root.parent) root = root.parent;
  return root;
}

export function suggestSibling(cmd: Command, message: string): string {
  // commander puts its own suggestion on a second line: keep the error to one line.
  const oneLine = message.replace(/\s*\n\(Did you mean ([^)]*)\)$/s, ' (did you mean $1)');
  const unknown = /^unknown option '([^'=]+)/.exec(message)?.[1];
  if (!unknown) return oneLine;
  const own = new Set(cmd.options.map((o) => o.long));
  const sibling = SIBLING_FLAGS[unknown]?.find((f) => own.has(f));
  if (!sibling) return oneLine;
  return `${message.replace(/\s*\(Did you mean [^)]*\)$/s, '')} (did you mean ${sibling}?)`;
}

const NO_SETTINGS = new Set(['sandbox', 'completion', '__complete', 'help']);

function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** Examples for the commands whose own file does not carry them. */
const EXAMPLES: Record<string, readonly string[]> = {
  '': [
    'rsi login --base-url https://research.example.com',
    'rsi projects list',
    'rsi status "My first project" --watch',
    'rsi help analyses run',
  ],
  auth: ['rsi auth status', 'rsi auth switch work', 'curl -H "Authorization: Bearer $(rsi auth token)" "$BASE/api/v1/projects"'],
  config: ['rsi config list', 'rsi config set format csv', 'rsi config unset pager'],
  'config list': ['rsi config list', 'rsi config list --json'],
  'config get': ['rsi config get format'],
  'config unset': ['rsi config unset pager'],
  keywords: ['rsi keywords search egfr --limit 5', 'rsi keywords get EGFR', 'rsi keywords relations EGFR --relation indications'],
  projects: ['rsi projects list', 'rsi projects create --name "My first project" --brief "EGFR in NSCLC"'],
  analyses: ['rsi analyses run "My first project" --top 5 --type target --wait'],
  mcp: ['rsi mcp tools', 'rsi mcp serve --print-config claude-desktop'],
  help: ['rsi help analyses run', 'rsi help environment'],
  logout: ['rsi logout', 'rsi --profile work logout'],
  'auth status': ['rsi auth status', "rsi auth status --json | jq -r '.profiles[].profile'"],
  'auth token': ['curl -H "Authorization: Bearer $(rsi auth token)" "$BASE/api/v1/projects"'],
  doctor: ['rsi doctor', "rsi doctor --json | jq '.[] | select(.ok == false)'"],
  'projects list': ['rsi projects list', "rsi projects list --json | jq -r '.projects[].name'"],
  status: ['rsi status "My first project"', 'rsi status "My first project" --watch --timeout 600', 'rsi status P --json | jq -r .next'],
  opportunities: ['rsi opportunities "My first project"', 'rsi opportunities P --format csv > opportunities.csv'],
  'analyses run': [
    'rsi analyses run "My first project" --top 5 --type target --yes --wait',
    'rsi analyses run P --select EGFR:NSCLC --wait',
    "rsi signals P --json | jq '[.signals[] | select(.analysed | not)][:3]' | rsi analyses run P --selections -",
  ],
  sandbox: ['rsi sandbox --port 8765 --auto-approve --quiet &', 'rsi sandbox --time-scale 60 --fault analyses-504'],
  completion: ['source <(rsi completion bash)', 'rsi completion powershell >> $PROFILE'],
};

/** A group command (`rsi keywords …`) of the COMMANDS table, built with its subcommands in order. */
function group(name: string, description: string, subcommands: readonly { build(ctx: Context): Command }[]) {
  return {
    name,
    build: (ctx: Context) => {
      const cmd = new Command(name).description(description);
      for (const sub of subcommands) cmd.addCommand(sub.build(ctx));
      return cmd;
    },
  };
}

/**
 * The paragraphs and examples added with `addHelpText` (here and in the command files) are written
 * through their listeners' `write`: re-flowing there fits every one of them, present and future,
 * to the width commander wraps the rest of the screen to.
 */
function reflowAddedHelp(cmd: Command, width: () => number): void {
  // A Command is an EventEmitter; commander's types do not say so.
  const emitter = cmd as unknown as EventEmitter;
  for (const event of ['beforeHelp', 'afterHelp', 'beforeAllHelp', 'afterAllHelp']) {
    for (const listener of emitter.listeners(event)) {
      emitter.off(event, listener as (...args: unknown[]) => void);
      emitter.on(event, (context: { write: (text: string) => void }) =>
        listener({ ...context, write: (text: string) => context.write(reflowHelp(text, width())) }),
      );
    }
  }
}

/** Settings set with configureOutput/exitOverride are not inherited through addCommand. */
export function applyToAll(cmd: Command, apply: (cmd: Command) => void): void {
  apply(cmd);
  for (const sub of cmd.commands) applyToAll(sub, apply);
}

/**
 * gh's habit `--json name,id` (or `--json=name`) means `--json --fields name,id`. commander cannot
 * take an optional value there without swallowing a positional argument (`--json EGFR`), so
 * `--json=…`, a comma-separated list of names after `--json`, and one name after it that is a field
 * of the command the line names (`rsi projects list --json name`, as gh takes it; a dotted path
 * such as `scores.composite.score` counts by its first name) are read that way. Any other word
 * after `--json` stays an argument (`rsi keywords get --json EGFR`).
 */
export function expandJsonFields(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      out.push(...argv.slice(i));
      break;
    }
    const next = argv[i + 1] ?? '';
    if (arg.startsWith('--json=')) out.push('--json', `--fields=${arg.slice('--json='.length)}`);
    else if (arg === '--json' && (FIELD_LIST.test(next) || (FIELD_NAME.test(next) && isField(argv.slice(0, i), next)))) {
      out.push('--json', `--fields=${argv[++i]}`);
    } else out.push(arg);
  }
  return out;
}

const FIELD_NAME = /^[a-z_][a-z0-9_]*(?:\.[a-z0-9_-]+)*$/i;
const FIELD_LIST = /^[a-z_][a-z0-9_]*(?:\.[a-z0-9_-]+)*(?:,[a-z_][a-z0-9_]*(?:\.[a-z0-9_-]+)*)+$/i;

/** Whether `name` is a field of the command the words before `--json` name (`projects list`). */
function isField(before: readonly string[], name: string): boolean {
  let found: string | undefined;
  let at = Number.POSITIVE_INFINITY;
  for (const path of Object.keys(FIELDS)) {
    const words = path.split(' ');
    for (let i = 0; i + words.length <= before.length && i <= at; i++) {
      if (!words.every((w, k) => before[i + k] === w)) continue;
      // The earliest match wins, and of two at the same place the longer (`keywords get`).
      if (i < at || words.length > (found?.split(' ').length ?? 0)) [found, at] = [path, i];
      break;
    }
  }
  return found !== undefined && FIELDS[found]!.fields.includes(name.split('.')[0]!);
}

/**
 * main asks this to improve an error's hint with what only the commands know: the scopes already
 * granted (a 403), and the profile and base URL in force (every hint).
 */
export async function explainError(error: unknown, ctx: Context): Promise<unknown> {
  const [{ explainError: explainScope }, { withGlobals }, { explainDefaultProject }] = await Promise.all([
    import('./commands/auth/login.js'),
    import('./commands/shared/hints.js'),
    import('./commands/shared/default-project.js'),
  ]);
  return withGlobals(explainDefaultProject(await explainScope(error, ctx), ctx), ctx);
}

/**
 * Builds the commander tree from the command registry (src/commands/registry.ts): each command's
 * declaration (src/commands/<group>/<command>/) gives its description, examples and fields, and its
 * `build` its arguments and options; heavy modules are imported inside the actions, so building the
 * tree is cheap. A run loads and builds only the command its line names (`programFor`). Help and
 * usage text go to the injected streams.
 */
import type { EventEmitter } from 'node:events';
import { Command, Help, Option } from 'commander';
import type { Context } from './context.js';
import { OUTPUT_FORMATS } from './formats.js';
import { MIN_DESCRIPTION_WIDTH, reflowHelp, stackedItem } from './io/help-text.js';
import { helpWidth } from './io/io.js';
import { suggest } from './io/text.js';
import * as layout from './commands/help/layout.js';
import { type CommandDeclaration, isGroup, type RegistryEntry } from './commands/declaration.js';
import { INDEX, declarationsOf, loadRegistry } from './commands/registry.js';
import { HELP_OPTION, ROOT, renderRootHelp, VERSION_OPTION } from './commands/help/root-help.js';
import { type CommandSummary, commandSummaries } from './commands/summaries.js';
import { oneJq } from './commands/shared/flags.js';
import { on, type OptionSpecs, withOptions } from './commands/shared/options.js';
import { pageOutput } from './commands/shared/pager.js';
import { usageText } from './commands/shared/usage-json.js';
import { commandHabit, nameFlagHint, optionHabit, quoteHint } from './commands/shared/habits.js';
import { unknownFields } from './commands/shared/unknown-fields.js';

/** A registry entry as a commander command: a group with its subcommands in order, or the command's own build. */
function buildEntry(entry: RegistryEntry, ctx: Context): Command {
  if (!isGroup(entry)) return entry.build(ctx);
  const cmd = new Command(entry.command.path).description(entry.command.description);
  for (const sub of entry.subcommands) cmd.addCommand(sub.build(ctx));
  return cmd;
}

/** Defined `true` by `npm run build` when it rendered the completion scripts (src/commands/completion/scripts.ts). */
declare const RSI_COMPLETION_PRERENDERED: boolean | undefined;

/**
 * Words that need every command built: completion walks the tree, unless the build rendered its
 * scripts (`rsi help` is told apart below).
 */
const WHOLE_TREE = new Set(typeof RSI_COMPLETION_PRERENDERED !== 'undefined' && RSI_COMPLETION_PRERENDERED ? [] : ['completion']);

/**
 * Which commands a command line needs loaded and built, read from its words that are neither flags
 * of `root` nor their values (`--profile work`): the command the first names, alone; for the root's
 * own screen (`rsi`, `rsi --help`) and a word no command has (commander's "did you mean" needs only
 * the names) none, and for `rsi help …` help and the command it asks about, the others listed by
 * name and description (`list`). Undefined: every command (completion, `rsi help reference`, and
 * `--` first, after which commander runs whatever command the next word names).
 */
export function commandsNeeded(argv: readonly string[], root: Command): { build: string[]; list: boolean } | undefined {
  const takesValue = new Set(root.options.filter((o) => o.required || o.optional).flatMap((o) => [o.long, o.short]));
  const words: string[] = [];
  for (let i = 0; i < argv.length && words.length < 2; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      if (words.length === 0) return undefined;
      break;
    }
    if (arg.startsWith('-')) {
      if (takesValue.has(arg)) i++;
      continue;
    }
    words.push(arg);
  }
  const [first, second] = words;
  const known = (word: string | undefined): word is string => INDEX.some((c) => c.name === word);
  if (first === undefined) return { build: [], list: true };
  if (first === 'help') {
    if (second === 'reference') return undefined;
    return { build: known(second) && second !== 'help' ? ['help', second] : ['help'], list: true };
  }
  if (!known(first)) return { build: [], list: true };
  return WHOLE_TREE.has(first) ? undefined : { build: [first], list: false };
}

/**
 * What a run parses: the commander tree with the commands `argv` needs (`commandsNeeded`), and the
 * words to parse (gh's `--json a,b` expanded with those commands' fields). Only their modules are
 * loaded; the root's list of commands comes from their summaries (src/commands/summaries.ts).
 */
export async function programFor(ctx: Context, argv: readonly string[]): Promise<{ program: Command; words: string[] }> {
  const program = rootCommand(ctx);
  // `--json a,b` and `--json=a` are expanded before the words are read (`rsi --json a,b projects
  // list` names projects); `--json name` needs the named command's fields, so it is expanded after.
  const needed = commandsNeeded(expandJsonFields(argv, declarationsOf([])), program);
  const [entries, listed] = await Promise.all([
    needed ? Promise.all(needed.build.map(async (word) => loadRegistry(word))).then((e) => e.flat()) : loadRegistry(),
    needed?.list ? commandSummaries() : [],
  ]);
  const words = expandJsonFields(argv, declarationsOf(entries));
  // Were the expanded words to name another command, every command is built rather than a listed one run.
  if (JSON.stringify(commandsNeeded(words, program)) !== JSON.stringify(needed)) {
    const all = await loadRegistry();
    return { program: addCommands(program, ctx, all, []), words: expandJsonFields(argv, declarationsOf(all)) };
  }
  return { program: addCommands(program, ctx, entries, listed), words };
}

/** The commander tree for `argv` as `programFor` builds it; without `argv`, the whole tree (tests, docs, man pages). */
export async function loadProgram(ctx: Context, argv?: readonly string[]): Promise<Command> {
  if (argv === undefined) return buildProgram(ctx, await loadRegistry());
  return (await programFor(ctx, argv)).program;
}

/** The commander tree of these registry entries (all of them, or the ones a command line needs). */
export function buildProgram(ctx: Context, entries: readonly RegistryEntry[]): Command {
  return addCommands(rootCommand(ctx), ctx, entries, []);
}

/**
 * A command the root lists but this run did not load: its name and description for the root's
 * screen. Never run (`commandsNeeded` lists only where the command run is another); if it were, it
 * says so instead of doing nothing.
 */
function listedOnly(summary: CommandSummary): Command {
  return new Command(summary.name)
    .description(summary.description)
    .helpOption(false)
    .allowUnknownOption()
    .allowExcessArguments()
    .action(() => {
      throw new Error(`internal: the command "${summary.name}" was listed but not loaded`);
    });
}

/**
 * The option of every command that prints rows, as data: tsv gets a header row with --header (csv
 * always has one); read with the globals (the first preAction hook).
 */
const ROWS_OPTIONS = {
  header: { flags: '--header', description: 'tsv: start with a header row, as csv does', parse: on() },
} satisfies OptionSpecs;

/** rsi itself with its global options, before any command is added. */
function rootCommand(ctx: Context): Command {
  return (
    new Command('rsi')
      .description(ROOT.description)
      .version(ctx.version, VERSION_OPTION.flags, VERSION_OPTION.description)
      .helpOption(HELP_OPTION.flags, HELP_OPTION.description)
      .option('--profile <name>', 'named set of base URL and credentials (env: RSI_PROFILE)')
      .option('--base-url <url>', 'service base address (env: RSI_BASE_URL)')
      .option('--json', 'machine output: the API JSON on stdout, nothing else')
      .addOption(new Option('--format <format>', 'output format').choices(OUTPUT_FORMATS))
      .option('--no-color', 'no colour (env: NO_COLOR)')
      .option('--debug', 'HTTP trace on stderr, secrets redacted (env: RSI_DEBUG=1)')
      .option('--http-timeout <seconds>', 'per-request timeout (env: RSI_HTTP_TIMEOUT, default 30)')
      .option('--timeout <duration>', 'bound the whole command, wall-clock: 90s, 5m, 1h (env: RSI_TIMEOUT; 0 = none; watches: default 1h)')
      .option('--jq <expr>', 'filter the JSON output with a jq expression (implies --json; strings print raw)', oneJq)
      .option('--fields <names>', 'only these columns / JSON members, comma-separated, in this order (see each command)')
      .option('--no-pager', 'never page long tables (env: RSI_PAGER, PAGER choose the pager)')
      .option('--wide', 'tables keep full ids and every column')
      .addOption(
        new Option('--time <style>', 'times in tables: relative ("5 min ago") or absolute (env: RSI_TIME)').choices([
          'relative',
          'absolute',
        ]),
      )
      .showSuggestionAfterError(true)
      // `rsi help analyses run` must reach the subcommand; commander's own help command stops at one word.
      .helpCommand(false)
  );
}

function addCommands(program: Command, ctx: Context, entries: readonly RegistryEntry[], listed: readonly CommandSummary[]): Command {
  const declarations = declarationsOf(entries);
  const built = new Map<string, RegistryEntry | CommandSummary>(entries.map((e) => [e.command.path, e]));
  // In help order: the built commands where the list has them, the others by name and description.
  for (const summary of listed) if (!built.has(summary.name)) built.set(summary.name, summary);
  const order = listed.length > 0 ? listed.map((s) => s.name) : [...built.keys()];
  for (const name of order) {
    const one = built.get(name)!;
    const cmd = 'command' in one ? buildEntry(one, ctx) : listedOnly(one);
    program.addCommand(cmd, ('command' in one ? one.command.hidden : one.hidden) ? { hidden: true } : {});
  }
  // The person's settings (`rsi config`) are read once, before the action, never for --help; the
  // commands that use none (the sandbox, completion on every Tab) skip the read.
  program.hook('preAction', async (_program, action) => {
    // A command's --header (tsv) is read with the globals, which read the root's options.
    if (action.opts().header === true) program.setOptionValue('header', true);
    const path = commandPath(action);
    if (NO_SETTINGS.has(path.split(' ')[0] ?? '')) return;
    await ctx.loadSettings();
    await pageOutput(ctx, path, action, program.opts().pager);
  });
  // --timeout bounds the command from its start: set before the action, so a watch's default yields to it.
  program.hook('preAction', (_program, action) => {
    const given = ctx.globals().commandTimeoutMs;
    if (given !== undefined && !declarations.get(commandPath(action))?.ownTimeout) ctx.deadline.limit(given);
  });
  // A base URL ending in /api/v1 (the sandbox prints both) is taken as the base, with a note.
  program.hook('preAction', () => {
    const raw = program.opts().baseUrl ?? ctx.env.RSI_BASE_URL;
    if (typeof raw === 'string' && /\/api\/v1\/*$/.test(raw.trim())) {
      ctx.io.stderr.write(`note: using ${raw.trim().replace(/\/api\/v1\/*$/, '')} as the base URL (the API is at <base>/api/v1)\n`);
    }
  });
  // The run's one output, built once the command is known and before any request: --fields and
  // --jq are checked (and jq compiled) against the command's declaration first.
  program.hook('preAction', async (_program, action) => {
    const globals = ctx.globals();
    const path = commandPath(action);
    const shape =
      globals.fields === undefined && globals.jq === undefined
        ? {}
        : await (await import('./commands/shared/scripting.js')).outputShape(ctx, declarations.get(path) ?? { path, description: '' }, {
            args: action.processedArgs,
            opts: action.opts(),
          });
    await ctx.prepareOutput(shape);
  });
  applyToAll(program, (cmd) => {
    const declaration = declarations.get(commandPath(cmd));
    // The root's examples are on its screen (./commands/help/root-help.ts), which bin/rsi.js also prints.
    const examples = cmd.parent ? declaration?.examples : undefined;
    if (examples) cmd.addHelpText('after', `\nExamples:\n${examples.map((e) => `  ${e}`).join('\n')}`);
    const fields = declaration?.fields?.list;
    // Every command that prints rows: tsv gets a header row with --header (csv always has one). On
    // the commands, not the root: a root `--header` would take `rsi api --header 'Name: value'`'s.
    if (fields) withOptions(cmd, ROWS_OPTIONS);
    if (fields) cmd.addHelpText('after', `\nFields (--fields, --json a,b): ${fields.map((f) => f.name).join(', ')}`);
    cmd
      .configureOutput({
        writeOut: (text) => void ctx.io.stdout.write(text),
        // The width comes from the injected Io, not from commander's look at process.stdout.
        getOutHelpWidth: () => helpWidth(ctx.io),
        writeErr: (text) => void ctx.io.stderr.write(text),
        outputError: (text, write) => write(usageText(explainUsage(cmd, text.replace(/^error: /, '').trimEnd(), declaration), ctx.env)),
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
          // The root's screen has one home, which bin/rsi.js renders too before anything loads.
          if (!c.parent)
            return renderRootHelp(
              helper.visibleCommands(c).map((sub) => ({ name: sub.name(), description: sub.description() })),
              helper.helpWidth ?? 80,
            );
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
export function explainUsage(cmd: Command, message: string, declaration?: CommandDeclaration): string {
  const secretArguments = declaration?.secretArguments;
  const typed = {
    path: commandPath(cmd),
    argv: (rootOf(cmd) as unknown as { rawArgs?: string[] }).rawArgs ?? [],
    takes: {
      options: cmd.options.flatMap((o) => o.long ?? []),
      args: cmd.registeredArguments.map((a) => a.name()),
      rows: declaration?.fields?.rows,
      fields: declaration?.fields?.list.flatMap((f) => ('paths' in f.json ? [{ name: f.name, path: f.json.paths[0]! }] : [])),
      // The range its help gives (`1 to 20`, `1-100`): past it, a count is every page cut to N.
      limitMax: Number(/\b1(?: to |-)(\d+)/.exec(cmd.options.find((o) => o.long === '--limit')?.description ?? '')?.[1]) || undefined,
    },
  };
  const command = /^unknown command '([^']+)'/.exec(message)?.[1];
  const option = /^unknown option '([^']+)'/.exec(message)?.[1];
  const habit = command !== undefined ? commandHabit(command, typed) : option !== undefined ? optionHabit(option, typed) : undefined;
  if (habit) return `rsi: ${habit}\n`;
  const excess = /^too many arguments for '[^']+'\. Expected (\d+) arguments? but got/.exec(message);
  // commander lists what it got: a token pasted as an argument must not be repeated on stderr.
  if (excess && secretArguments !== undefined)
    return `rsi: ${suggest(['rsi', ...typed.path.split(' ')])} takes no arguments; ${cmd.args.length === 1 ? 'the one' : `the ${cmd.args.length}`} given ${cmd.args.length === 1 ? 'was' : 'were'} not used (and ${cmd.args.length === 1 ? 'is' : 'are'} not repeated here: a token is a secret)\nhint: ${secretArguments}\n`;
  // `--json nmae`: a word after --json that is no field stays an argument (`--json EGFR` names a
  // keyword); when it is one too many, it was a field name: said so, with the closest ones.
  const afterJson = typed.argv.flatMap((w, i) => (w === '--json' && typed.argv[i + 1] !== undefined ? [typed.argv[i + 1]!] : []));
  const field = excess && declaration?.fields ? afterJson.find((w) => cmd.args.slice(Number(excess[1])).includes(w)) : undefined;
  if (field !== undefined && declaration) {
    const error = unknownFields('--json', [field], declaration, true);
    return `rsi: ${error.message}\nhint: ${error.hint}\n`;
  }
  const quote = excess
    ? (quoteHint(typed.argv, cmd.args, Number(excess[1])) ?? nameFlagHint(typed.argv, cmd.args, Number(excess[1]), typed.takes.options))
    : undefined;
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
      // A renderer that fills the text itself (the man pages: roff) names its own width.
      emitter.on(event, (context: { write: (text: string) => void; helpWidth?: number }) =>
        listener({ ...context, write: (text: string) => context.write(reflowHelp(text, context.helpWidth ?? width())) }),
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
export function expandJsonFields(argv: readonly string[], declarations: ReadonlyMap<string, CommandDeclaration>): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      out.push(...argv.slice(i));
      break;
    }
    const next = argv[i + 1] ?? '';
    if (arg.startsWith('--json=')) out.push('--json', `--fields=${arg.slice('--json='.length)}`);
    else if (arg === '--json' && (FIELD_LIST.test(next) || (FIELD_NAME.test(next) && isField(argv.slice(0, i), next, declarations)))) {
      out.push('--json', `--fields=${argv[++i]}`);
    } else out.push(arg);
  }
  return out;
}

const FIELD_NAME = /^[a-z_][a-z0-9_]*(?:\.[a-z0-9_-]+)*$/i;
const FIELD_LIST = /^[a-z_][a-z0-9_]*(?:\.[a-z0-9_-]+)*(?:,[a-z_][a-z0-9_]*(?:\.[a-z0-9_-]+)*)+$/i;

/** Whether `name` is a field of the command the words before `--json` name (`projects list`). */
function isField(before: readonly string[], name: string, declarations: ReadonlyMap<string, CommandDeclaration>): boolean {
  let found: string | undefined;
  let at = Number.POSITIVE_INFINITY;
  for (const [path, declaration] of declarations) {
    if (!declaration.fields) continue;
    const words = path.split(' ');
    for (let i = 0; i + words.length <= before.length && i <= at; i++) {
      if (!words.every((w, k) => before[i + k] === w)) continue;
      // The earliest match wins, and of two at the same place the longer (`keywords get`).
      if (i < at || words.length > (found?.split(' ').length ?? 0)) [found, at] = [path, i];
      break;
    }
  }
  const head = name.split('.')[0];
  return found !== undefined && (declarations.get(found)?.fields?.list.some((f) => f.name === head) ?? false);
}

/**
 * main asks this to improve an error's hint with what only the commands know: the scopes already
 * granted (a 403), and the profile and base URL in force (every hint).
 */
export async function explainError(error: unknown, ctx: Context): Promise<unknown> {
  const [{ explainError: explainScope }, { withGlobals }, { explainDefaultProject }] = await Promise.all([
    import('./commands/login/login.js'),
    import('./commands/shared/hints.js'),
    import('./commands/shared/default-project.js'),
  ]);
  return withGlobals(explainDefaultProject(await explainScope(error, ctx), ctx), ctx);
}

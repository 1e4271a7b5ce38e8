/**
 * `rsi config get|set|list|unset`: defaults a person would otherwise retype (output format, pager,
 * default profile, prompts on/off, how times show), kept in config.json beside the profiles and
 * written under the same store lock. Flags and environment still win (docs/commands.md, "Settings").
 */
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { parseSetting, SETTING_KEYS, settingKey, type SettingKey, type Settings } from '../../settings.js';
import { UsageError } from '../../errors.js';
import * as output from '../../io/output.js';
import { printReply } from '../../io/replies.js';
import { type CommandDeclaration, commandFor } from '../declaration.js';
import { placeholder, suggest } from '../../io/text.js';

export type ConfigOptions =
  | { action: 'list' }
  | { action: 'get'; key: string }
  | { action: 'set'; key: string; value: string }
  | { action: 'unset'; key: string };

const KEYS_HELP = `
Keys:
  format    default output format: table, tsv, csv, json, ndjson (--format and --json win)
  pager     the pager for long tables, e.g. "less -FRX"; cat: none (RSI_PAGER wins; PAGER is used when unset)
  profile   the profile used without --profile (RSI_PROFILE wins); \`rsi auth switch\` sets it
  prompts   on or off: pickers and questions at a terminal (RSI_NO_PROMPT=1 wins)
  project   the default project of this profile, for commands that take one (RSI_PROJECT wins)
  time      relative or absolute: how tables show times (--time and RSI_TIME win)`;

export const command: CommandDeclaration = {
  path: 'config',
  description: 'read and change your defaults (format, pager, profile, project, prompts, time)',
  examples: ['rsi config list', 'rsi config set format csv', 'rsi config unset pager'],
};

/** The subcommands this module builds, which share the keys' help and one `run`. */
export const inner: readonly CommandDeclaration[] = [
  { path: 'config list', description: 'every setting and its value', examples: ['rsi config list', 'rsi config list --json'] },
  { path: 'config get', description: "print one setting's value (nothing when it is not set)", examples: ['rsi config get format'] },
  {
    path: 'config set',
    description: 'set one setting',
    examples: [
      'rsi config set pager "less -FRX"',
      'rsi config set prompts off',
      'rsi --profile work config set project "My first project"',
    ],
  },
  { path: 'config unset', description: 'remove one setting (back to the built-in default)', examples: ['rsi config unset pager'] },
];
const [list, get, set, unset] = inner as [CommandDeclaration, CommandDeclaration, CommandDeclaration, CommandDeclaration];

export function build(ctx: Context, runF: typeof run = run): Command {
  const config = commandFor(command);
  config.addCommand(
    commandFor(list)
      .alias('ls')
      .addHelpText('after', KEYS_HELP)
      .action(async () => runF({ action: 'list' }, ctx)),
  );
  config.addCommand(
    commandFor(get)
      .argument('<key>', 'format, pager, profile, project, prompts or time')
      .action(async (key: string) => runF({ action: 'get', key }, ctx)),
  );
  config.addCommand(
    commandFor(set)
      .argument('<key>', 'format, pager, profile, project, prompts or time')
      .argument('[value]', 'its new value (project, at a terminal: picked from a list when left out)')
      .addHelpText('after', KEYS_HELP)
      .action(async (key: string, value: string | undefined) => {
        if (value === undefined) {
          // `rsi config set project` at a terminal: the picker, the current default on top.
          if (key !== 'project') throw new UsageError("missing required argument 'value'");
          const { canAsk, defaultProject, pickProject } = await import('../shared/pick.js');
          if (!canAsk(ctx)) throw new UsageError("missing required argument 'value'");
          value = await pickProject(ctx, defaultProject(ctx)?.name);
        }
        await runF({ action: 'set', key, value }, ctx);
      }),
  );
  config.addCommand(
    commandFor(unset)
      .argument('<key>', 'format, pager, profile, project, prompts or time')
      .action(async (key: string) => runF({ action: 'unset', key }, ctx)),
  );
  return config;
}

export async function run(opts: ConfigOptions, ctx: Context): Promise<void> {
  const { configStore } = await import('../../auth/credentials.js');
  // set/unset read no profile, so they still work when a setting in the file is bad (and fix it).
  const store = opts.action === 'set' || opts.action === 'unset' ? configStore(ctx.env) : (await ctx.credentials()).config;
  // The default project is the profile's own: `work` and `default` each keep theirs.
  const { profile } = ctx.globals();
  const settingValue = (settings: Settings, key: SettingKey): string | undefined =>
    key === 'project'
      ? settings.projects && Object.hasOwn(settings.projects, profile)
        ? settings.projects[profile]
        : undefined
      : settings[key];
  if (opts.action === 'list') {
    const settings = await store.settings();
    return printReply(ctx.output(), settings, () => {
      const lines = SETTING_KEYS.map((k) => {
        const value = settingValue(settings, k);
        if (k === 'project') return `project=${value ?? ''}  # ${value === undefined ? 'not set' : 'set'} for profile ${profile}\n`;
        return value !== undefined ? `${k}=${value}\n` : `${k}=${builtIn(k, ctx)}  # default${BUILT_IN_NOTE[k] ?? ''}\n`;
      });
      return output.printText(ctx.io, lines.join(''));
    });
  }
  const key = settingKey(opts.key);
  if (opts.action === 'get') {
    const value = settingValue(await store.settings(), key);
    if (value !== undefined) await output.printText(ctx.io, `${value}\n`);
    return;
  }
  if (opts.action === 'set') {
    let value = parseSetting(key, opts.value);
    if (key === 'profile') await requireProfile(ctx, value);
    // The default project is checked with the service when it can be (default-project.ts).
    let warning: string | undefined;
    if (key === 'project')
      ({ name: value, warning } = await (await import('../shared/default-project.js')).checkProjectSetting(ctx, value));
    await store.updateSettings((s) =>
      key === 'project' ? { ...s, projects: { ...(s.projects as Record<string, string>), [profile]: value } } : { ...s, [key]: value },
    );
    ctx.io.stderr.write(`✓ Set ${key} to ${value}${key === 'project' ? ` for profile ${profile}` : ''}\n`);
    if (warning) ctx.io.stderr.write(`${warning}\n`);
    warnIfOverridden(ctx, key);
    return;
  }
  await store.updateSettings((s) => {
    if (key === 'project') {
      const { [profile]: _gone, ...others } = (s.projects ?? {}) as Record<string, string>;
      const { projects: _all, ...rest } = s;
      return Object.keys(others).length ? { ...rest, projects: others } : rest;
    }
    const { [key]: _dropped, ...rest } = s;
    return rest;
  });
  ctx.io.stderr.write(`✓ Unset ${key}${key === 'project' ? ` for profile ${profile}` : ''}\n`);
}

/** What a setting left unset amounts to here (`config list` shows it, not an empty value). */
function builtIn(key: string, ctx: Context): string {
  switch (key) {
    case 'format':
      return ctx.io.stdoutIsTTY ? 'table' : 'tsv';
    case 'pager':
      return ctx.env.PAGER || 'less -FRX';
    case 'profile':
      return 'default';
    case 'prompts':
      return 'on';
    default:
      return 'relative';
  }
}

const BUILT_IN_NOTE: Record<string, string> = {
  format: ' (table at a terminal, tsv piped)',
  pager: ' (PAGER, else less -FRX when installed)',
};

/** A default profile that does not exist would leave every command "not signed in". */
export async function requireProfile(ctx: Context, name: string): Promise<void> {
  const { profiles } = await (await ctx.credentials()).config.read();
  if (Object.hasOwn(profiles, name)) return;
  const names = Object.keys(profiles).sort();
  throw new UsageError(`no profile named "${name}"`, {
    hint: names.length
      ? `your profiles: ${names.join(', ')}`
      : `sign in first: ${suggest(['rsi', '--profile', name, 'login', '--base-url', placeholder('url')])}`,
  });
}

/** Says when a flag or variable in this very environment will hide the setting just made. */
export function warnIfOverridden(ctx: Context, key: string): void {
  const env: Record<string, string> = {
    profile: 'RSI_PROFILE',
    project: 'RSI_PROJECT',
    prompts: 'RSI_NO_PROMPT',
    time: 'RSI_TIME',
    pager: 'RSI_PAGER',
  };
  const name = env[key];
  if (name && ctx.env[name]) ctx.io.stderr.write(`note: ${name} is set in this environment and wins over the setting\n`);
}

/**
 * `rsi config get|set|list|unset`: defaults a person would otherwise retype (output format, pager,
 * default profile, prompts on/off, how times show), kept in config.json beside the profiles and
 * written under the same store lock. Flags and environment still win (docs/commands.md, "Settings").
 */
import { Command } from 'commander';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import * as output from '../../io/output.js';

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
  time      relative or absolute: how tables show times (--time and RSI_TIME win)`;

export function build(ctx: Context, runF: typeof run = run): Command {
  const config = new Command('config').description('read and change your defaults (format, pager, profile, prompts, time)');
  config.addCommand(
    new Command('list')
      .description('every setting and its value')
      .addHelpText('after', KEYS_HELP)
      .action(async () => runF({ action: 'list' }, ctx)),
  );
  config.addCommand(
    new Command('get')
      .description("print one setting's value (nothing when it is not set)")
      .argument('<key>', 'format, pager, profile, prompts or time')
      .action(async (key: string) => runF({ action: 'get', key }, ctx)),
  );
  config.addCommand(
    new Command('set')
      .description('set one setting')
      .argument('<key>', 'format, pager, profile, prompts or time')
      .argument('<value>', 'its new value')
      .addHelpText('after', `${KEYS_HELP}\n\nExamples:\n  rsi config set pager "less -FRX"\n  rsi config set prompts off`)
      .action(async (key: string, value: string) => runF({ action: 'set', key, value }, ctx)),
  );
  config.addCommand(
    new Command('unset')
      .description('remove one setting (back to the built-in default)')
      .argument('<key>', 'format, pager, profile, prompts or time')
      .action(async (key: string) => runF({ action: 'unset', key }, ctx)),
  );
  return config;
}

export async function run(opts: ConfigOptions, ctx: Context): Promise<void> {
  const { SETTING_KEYS, parseSetting, configStore } = await import('../../auth/credentials.js');
  // set/unset read no profile, so they still work when a setting in the file is bad (and fix it).
  const store = opts.action === 'set' || opts.action === 'unset' ? configStore(ctx.env) : (await ctx.credentials()).config;
  const checkKey = (key: string): (typeof SETTING_KEYS)[number] => {
    if ((SETTING_KEYS as readonly string[]).includes(key)) return key as (typeof SETTING_KEYS)[number];
    throw new UsageError(`unknown setting "${key}": the settings are ${SETTING_KEYS.join(', ')}`);
  };
  if (opts.action === 'list') {
    const settings = await store.settings();
    if (ctx.globals().format === 'json') return output.printJson(ctx.io, settings);
    return output.printText(ctx.io, SETTING_KEYS.map((k) => `${k}=${settings[k] ?? ''}\n`).join(''));
  }
  const key = checkKey(opts.key);
  if (opts.action === 'get') {
    const value = (await store.settings())[key];
    if (value !== undefined) await output.printText(ctx.io, `${value}\n`);
    return;
  }
  if (opts.action === 'set') {
    const value = parseSetting(key, opts.value);
    if (key === 'profile') await requireProfile(ctx, value);
    await store.updateSettings((s) => ({ ...s, [key]: value }));
    ctx.io.stderr.write(`✓ Set ${key} to ${value}\n`);
    warnIfOverridden(ctx, key);
    return;
  }
  await store.updateSettings((s) => {
    const { [key]: _dropped, ...rest } = s;
    return rest;
  });
  ctx.io.stderr.write(`✓ Unset ${key}\n`);
}

/** A default profile that does not exist would leave every command "not signed in". */
export async function requireProfile(ctx: Context, name: string): Promise<void> {
  const { profiles } = await (await ctx.credentials()).config.read();
  if (profiles[name]) return;
  const names = Object.keys(profiles).sort();
  throw new UsageError(`no profile named "${name}"`, {
    hint: names.length ? `your profiles: ${names.join(', ')}` : `sign in first: \`rsi --profile ${name} login --base-url <url>\``,
  });
}

/** Says when a flag or variable in this very environment will hide the setting just made. */
export function warnIfOverridden(ctx: Context, key: string): void {
  const env: Record<string, string> = { profile: 'RSI_PROFILE', prompts: 'RSI_NO_PROMPT', time: 'RSI_TIME', pager: 'RSI_PAGER' };
  const name = env[key];
  if (name && ctx.env[name]) ctx.io.stderr.write(`note: ${name} is set in this environment and wins over the setting\n`);
}

import type { Command } from 'commander';
import type { Context } from '../../../context.js';
import { type CommandDeclaration, commandFor } from '../../declaration.js';
import { parseSetting } from '../../../settings.js';

export type SwitchOptions = { profile: string };

export const command: CommandDeclaration = {
  path: 'auth switch',
  description: 'use another signed-in profile by default (the `profile` setting; --profile and RSI_PROFILE still win)',
  examples: ['rsi auth switch work', 'rsi auth switch default'],
};

export function build(ctx: Context, runF: typeof run = run): Command {
  return commandFor(command)
    .argument('<profile>', 'a profile you signed in with (`rsi auth status` lists them)')
    .action(async (profile: string) => runF({ profile }, ctx));
}

export async function run(opts: SwitchOptions, ctx: Context): Promise<void> {
  const { requireProfile, warnIfOverridden } = await import('../../config/config.js');
  const name = parseSetting('profile', opts.profile.trim());
  await requireProfile(ctx, name);
  await (await ctx.credentials()).config.updateSettings((s) => ({ ...s, profile: name }));
  ctx.io.stderr.write(`✓ Now using profile ${name}\n`);
  warnIfOverridden(ctx, 'profile');
}

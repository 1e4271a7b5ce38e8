import type { Command } from 'commander';
import type { Context } from '../../../context.js';
import { printServiceText } from '../../../io/output.js';
import { type CommandDeclaration, commandFor } from '../../declaration.js';
import { on, type OptionSpecs, type OptionsOf, parseOptions, withOptions } from '../../shared/options.js';

/** The options, as data: flags, help and parsers (src/commands/shared/options.ts). */
const OPTIONS = {
  // Print the refresh token (with its client) for `rsi login --with-token`, and give it up here.
  refresh: {
    flags: '--refresh',
    description:
      'hand this sign-in over: print its refresh token for `rsi login --with-token` (CI), a line that works once, and remove it here',
    parse: on(),
  },
} satisfies OptionSpecs;

export type TokenOptions = Partial<OptionsOf<typeof OPTIONS>>;

export const command: CommandDeclaration = {
  path: 'auth token',
  description: 'print a valid access token (refreshing it first if needed), e.g. for curl',
  examples: [
    'BASE="$(rsi auth status --json | jq -r .baseUrl)"',
    'curl -H "Authorization: Bearer $(rsi auth token)" "$BASE/api/v1/projects"',
  ],
  secretArguments: '`rsi auth token` prints the token of the sign-in in force; to sign in with one, pipe it to `rsi login --with-token`',
};

export function build(ctx: Context, runF: typeof run = run): Command {
  return withOptions(
    commandFor(command).addHelpText('after', '\nThe token is a secret: do not paste it into logs or tickets.'),
    OPTIONS,
  ).action(async (flags: Record<string, unknown>) => runF(parseOptions(OPTIONS, flags), ctx));
}

export async function run(opts: TokenOptions, ctx: Context): Promise<void> {
  if (opts.refresh) return (await import('../with-token.js')).exportRefreshToken(ctx);
  const { tokenForProfile } = await import('../status/status.js');
  const { token } = await tokenForProfile(ctx, true);
  // The token comes from the service: exact to a pipe (`$(rsi auth token)`), sanitised on a
  // terminal like every other service text (issue 20), so a crafted token cannot act on it.
  await printServiceText(ctx.io, token);
}

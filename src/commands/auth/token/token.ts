import { Command } from 'commander';
import type { Context } from '../../../context.js';
import { printServiceText } from '../../../io/output.js';

/** `rsi auth token` takes no flags of its own. */
export type TokenOptions = Record<string, never>;

export function build(ctx: Context, runF: typeof run = run): Command {
  return new Command('token')
    .description('print a valid access token (refreshing it first if needed), e.g. for curl')
    .addHelpText(
      'after',
      '\nThe token is a secret: do not paste it into logs or tickets.\n\nExample:\n  BASE="$(rsi auth status --json | jq -r .baseUrl)"\n  curl -H "Authorization: Bearer $(rsi auth token)" "$BASE/api/v1/projects"',
    )
    .action(async () => runF({}, ctx));
}

export async function run(_opts: TokenOptions, ctx: Context): Promise<void> {
  const { tokenForProfile } = await import('../status/status.js');
  const { token } = await tokenForProfile(ctx, true);
  // The token comes from the service: exact to a pipe (`$(rsi auth token)`), sanitised on a
  // terminal like every other service text (issue 20), so a crafted token cannot act on it.
  await printServiceText(ctx.io, token);
}

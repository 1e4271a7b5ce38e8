import type { Command } from 'commander';
import type { Context } from '../../../context.js';
import { NotSignedInError, UsageError } from '../../../errors.js';
import { type CommandDeclaration, commandFor } from '../../declaration.js';

export type AdoptOptions = Record<string, never>;

export const command: CommandDeclaration = {
  path: 'auth adopt',
  description: 'keep the sign-in of a config folder moved here from another file system (not for a copy)',
  examples: ['rsi auth adopt', 'rsi --profile cron auth adopt'],
};

export function build(ctx: Context, runF: typeof run = run): Command {
  return commandFor(command)
    .addHelpText(
      'after',
      '\nrsi tells a copy of its credentials file from the file itself: a folder moved to another file system looks like a copy until adopted. Adopt only when no other copy is left: a copy that refreshes signs the original out.',
    )
    .action(async () => runF({}, ctx));
}

/**
 * The sign-in of the profile in force, found in another file than it was saved in, becomes this
 * folder's own (docs/auth.md, "Copies, moves and containers"): the person says it was moved.
 */
export async function run(_opts: AdoptOptions, ctx: Context): Promise<void> {
  const creds = await ctx.credentials();
  if (creds.envToken) throw new UsageError('RSI_TOKEN is set: it is used as is, with nothing stored to adopt; unset it');
  const store = creds.store();
  if (!store.adopt)
    throw new UsageError('this profile keeps its tokens in the OS keychain, which no folder carries: there is nothing to adopt', {
      hint: 'a keychain sign-in belongs to the folder path it was made for; sign in again here, or hand it over with `rsi auth token --refresh`',
    });
  const { credentialKeyFor } = await import('../../../auth/resources.js');
  const key = creds.key();
  // The MCP server's sign-in (`rsi login --resource mcp`) moved with the folder too.
  const api = await store.adopt(key);
  const was = api ?? (await store.adopt(credentialKeyFor(key, 'mcp')));
  if (api) await store.adopt(credentialKeyFor(key, 'mcp'));
  if (was === undefined) {
    if (!(await store.load(key)))
      throw new NotSignedInError(`not signed in to ${key.baseUrl} (profile ${creds.profileName}): nothing to adopt`);
    ctx.io.stderr.write(`The sign-in of profile ${creds.profileName} already belongs to this folder: nothing to adopt.\n`);
    return;
  }
  ctx.io.stderr.write(
    `✓ The sign-in of profile ${creds.profileName} (saved in ${was.dir} on ${was.host}) now belongs to ${creds.configDir}; it refreshes here from now on.\n`,
  );
  if (was.originalHere)
    ctx.io.stderr.write(
      `warning: ${was.dir} still holds a credentials file: if it keeps this sign-in too, the first of the two to refresh signs the other out; delete it there.\n`,
    );
}

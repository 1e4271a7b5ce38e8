import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { type CommandDeclaration, commandFor } from '../declaration.js';

/** `rsi logout` takes no flags of its own (the profile is global). */
export type LogoutOptions = Record<string, never>;

export const command: CommandDeclaration = {
  path: 'logout',
  description: 'revoke the stored refresh token at the service and delete the stored credentials',
  examples: ['rsi logout', 'rsi --profile work logout'],
};

export function build(ctx: Context, runF: typeof run = run): Command {
  return commandFor(command).action(async () => runF({}, ctx));
}

export async function run(_opts: LogoutOptions, ctx: Context): Promise<void> {
  const [creds, { revokeToken }] = await Promise.all([ctx.credentials(), import('../../auth/oauth.js')]);
  const globals = ctx.globals();
  const { profile, baseUrl } = creds;
  const err = ctx.io.stderr;
  if (!baseUrl || !profile) {
    err.write(`Not signed in (profile ${globals.profile}); nothing to do\n`);
    return;
  }
  const store = creds.store();
  const key = creds.key();
  const oauth = { userAgent: creds.userAgent, network: await ctx.network() };
  const tokens = await store.load(key);
  // The MCP server's tokens (`rsi login --resource mcp`) end with the API's.
  const mcp = await (await import('../../auth/mcp.js')).signOutMcp(creds, store, oauth);
  if (mcp.revokeError)
    err.write(
      `warning: could not revoke the MCP session at the service (${mcp.revokeError.message}); deleting the local credentials anyway\n`,
    );
  if (mcp.removed) err.write(`✓ Signed out of the MCP server of ${baseUrl}\n`);
  if (!tokens) {
    err.write(`Not signed in to ${baseUrl} (profile ${globals.profile}); nothing to do\n`);
    return;
  }
  if (tokens.copiedFrom) {
    // The copy's refresh token is the original's too: revoking it would sign the original out.
    await store.delete(key);
    err.write(
      `✓ Deleted this copy of the sign-in of profile ${globals.profile} (saved in ${tokens.copiedFrom.dir} on ${tokens.copiedFrom.host}); the original was not revoked and keeps working\n`,
    );
    return;
  }
  if (profile.authServer?.revocation_endpoint) {
    try {
      // Revoking the refresh token ends the whole session at the service (RFC 7009 §2.1).
      await revokeToken(profile.authServer, tokens.clientId, tokens.refreshToken ?? tokens.accessToken, oauth);
    } catch (error) {
      err.write(
        `warning: could not revoke the session at the service (${(error as Error).message}); deleting the local credentials anyway\n`,
      );
    }
  }
  await store.delete(key);
  err.write(`✓ Signed out of ${baseUrl} (profile ${globals.profile})\n`);
  if (creds.envToken) err.write('note: RSI_TOKEN is still set in your environment\n');
}

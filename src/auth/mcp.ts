/**
 * Signing out of the service's MCP server (`<base>/mcp`). Its token provider is the credentials'
 * `tokenProvider('mcp')`.
 */
import type { CredentialStore } from '../storage/credentials.js';
import type { Credentials } from './credentials.js';
import { credentialKeyFor } from './resources.js';

/** Revokes (best effort) and deletes the stored MCP tokens; `rsi logout` calls it beside the API's. */
export async function signOutMcp(creds: Credentials, store: CredentialStore): Promise<{ removed: boolean; revokeError?: Error }> {
  const key = credentialKeyFor(creds.key(), 'mcp');
  const tokens = await store.load(key);
  if (!tokens) return { removed: false };
  let revokeError: Error | undefined;
  const authServer = creds.profile?.authServer;
  if (authServer?.revocation_endpoint) {
    const { revokeToken } = await import('./oauth.js');
    try {
      // Revoking the refresh token ends the whole MCP session at the service (RFC 7009 §2.1).
      await revokeToken(authServer, tokens.clientId, tokens.refreshToken ?? tokens.accessToken, creds.oauth);
    } catch (error) {
      revokeError = error as Error;
    }
  }
  await store.delete(key);
  return { removed: true, ...(revokeError ? { revokeError } : {}) };
}

/**
 * The token for the service's MCP server (`<base>/mcp`): RSI_MCP_TOKEN as is, else the tokens
 * `rsi login --resource mcp` stored beside the API's, refreshed by the same StoredTokenProvider
 * (under the same lock discipline) with `resource=<base>/mcp`. This is the only token cache: the
 * MCP SDK asks it for a token on every request and keeps none of its own.
 */
import { NotSignedInError } from '../errors.js';
import type { AuthProvider } from '../http/types.js';
import type { Clock, Io } from '../io/io.js';
import type { CredentialStore } from '../storage/credentials.js';
import { profileFlag, type Credentials, type Env } from './credentials.js';
import { credentialKeyFor, resourceUrl } from './resources.js';
import { StaticTokenProvider, StoredTokenProvider } from './tokens.js';

export interface McpAuth {
  /** `<base>/mcp`. */
  url: string;
  source: 'RSI_MCP_TOKEN' | 'keychain' | 'file';
  auth: AuthProvider;
}

export async function openMcpAuth(creds: Credentials, options: { env: Env; io: Io; clock: Clock }): Promise<McpAuth> {
  const baseUrl = creds.requireBaseUrl();
  const url = resourceUrl(baseUrl, 'mcp');
  const envToken = options.env.RSI_MCP_TOKEN?.trim();
  if (envToken) return { url, source: 'RSI_MCP_TOKEN', auth: new StaticTokenProvider(envToken) };
  const hint = `run \`rsi${profileFlag(creds.profileName)} login --resource mcp\` (or set RSI_MCP_TOKEN)`;
  const notSignedIn = () => new NotSignedInError(`not signed in to the MCP server of ${baseUrl} (profile ${creds.profileName})`, { hint });
  // With RSI_TOKEN and RSI_BASE_URL the resolver skips the config; an MCP sign-in may still be stored.
  const profile = creds.profile ?? (await creds.config.profile(creds.profileName));
  if (!profile?.authServer || profile.baseUrl !== baseUrl) throw notSignedIn();
  const store =
    creds.profile || options.env.RSI_CREDENTIAL_STORE ? creds.store() : creds.store({ insecure: profile.credentialStore === 'file' });
  const provider = new StoredTokenProvider({
    store,
    key: credentialKeyFor(creds.key(), 'mcp'),
    resource: url,
    authServer: profile.authServer,
    configDir: creds.configDir,
    clock: options.clock,
    oauth: creds.oauth,
    warn: (message) => void options.io.stderr.write(`${message}\n`),
  });
  // The provider's own "not signed in" names the internal `<profile>+mcp` account: say it plainly.
  const plain = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (error) {
      if (error instanceof NotSignedInError) throw notSignedIn();
      throw error;
    }
  };
  const auth: AuthProvider = {
    getAccessToken: (signal) => plain(() => provider.getAccessToken(signal)),
    refreshAfterUnauthorized: (rejected, signal) => plain(() => provider.refreshAfterUnauthorized(rejected, signal)),
  };
  return { url, source: store.kind === 'file' ? 'file' : 'keychain', auth };
}

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

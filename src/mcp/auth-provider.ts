/**
 * The thin OAuth provider the MCP SDK's transport gets: it answers `tokens()` with rsi's current
 * access token (from rsi's AuthProvider, refreshed there) and keeps nothing. It cannot sign in:
 * rsi's MCP fetch turns a refused token into NotSignedInError before the SDK could start its own
 * flow, and should the SDK try anyway, every step of that flow throws the same error.
 */
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { NotSignedInError } from '../errors.js';
import type { AuthProvider } from '../http/types.js';

export function tokenOnlyProvider(auth: AuthProvider, hint: string, signal?: AbortSignal): OAuthClientProvider {
  const refuse = (): never => {
    throw new NotSignedInError('not signed in to the MCP server', { hint });
  };
  return {
    redirectUrl: undefined,
    clientMetadata: { client_name: 'rsi', redirect_uris: [] },
    clientInformation: () => undefined,
    tokens: async () => ({ access_token: await auth.getAccessToken(signal), token_type: 'Bearer' }),
    // rsi's credential store is the only cache: nothing the SDK hands back is kept.
    saveTokens: () => undefined,
    redirectToAuthorization: refuse,
    saveCodeVerifier: refuse,
    codeVerifier: refuse,
  };
}

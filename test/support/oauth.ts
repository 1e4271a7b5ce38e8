import { createHash, randomBytes } from 'node:crypto';

export const ALL_SCOPES = ['service:read', 'projects:write', 'analyses:run'] as const;

export interface TokenSet {
  access_token: string;
  refresh_token: string;
  expires_in: number;
  scope: string;
  token_type: string;
  client_id: string;
}

/**
 * Gets tokens from a sandbox started with `--auto-approve` through the real OAuth flow (register,
 * authorize with PKCE, exchange) using plain HTTP: tests of API commands use the result as
 * RSI_TOKEN, without a browser or keychain.
 */
export async function obtainTokens(baseUrl: string, options: { scopes?: readonly string[]; resource?: string } = {}): Promise<TokenSet> {
  const redirectUri = 'http://127.0.0.1:9/callback';
  const reg = await fetch(`${baseUrl}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'rsi-tests',
      redirect_uris: [redirectUri],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
    }),
  });
  if (reg.status !== 201) throw new Error(`register: ${reg.status} ${await reg.text()}`);
  const { client_id: clientId } = (await reg.json()) as { client_id: string };

  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const state = randomBytes(8).toString('hex');
  const resource = options.resource ?? `${baseUrl}/api/v1`;
  const authorize = new URL(`${baseUrl}/oauth/authorize`);
  authorize.search = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    resource,
    scope: (options.scopes ?? ALL_SCOPES).join(' '),
    state,
  }).toString();
  const auth = await fetch(authorize, { redirect: 'manual' });
  const location = auth.headers.get('location');
  if (auth.status !== 302 || !location) {
    throw new Error(`authorize: expected a redirect (is the sandbox --auto-approve?), got ${auth.status}`);
  }
  const back = new URL(location);
  const code = back.searchParams.get('code');
  if (!code || back.searchParams.get('state') !== state) throw new Error(`authorize: bad redirect ${location}`);

  const tok = await fetch(`${baseUrl}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      client_id: clientId,
      redirect_uri: redirectUri,
      code_verifier: verifier,
      resource,
    }),
  });
  if (tok.status !== 200) throw new Error(`token: ${tok.status} ${await tok.text()}`);
  return { ...((await tok.json()) as Omit<TokenSet, 'client_id'>), client_id: clientId };
}

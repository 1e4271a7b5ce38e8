/** Dynamic client registration for the sign-in (src/auth/login.ts): cached per profile and issuer. */
import * as oauth from 'oauth4webapi';
import { InterruptedError, ServiceUnavailableError, UnexpectedReplyError } from '../errors.js';
import { oauthFailure, requestOptions, type ClientCredentials, type OAuthEnv } from './oauth.js';
import type { LoopbackReceiver } from './loopback.js';
import { retryWait } from '../http/retry-after.js';
import type { LoginOptions, Target } from './login-types.js';

interface RegisteredClient {
  client: oauth.Client;
  credentials: ClientCredentials;
}

/**
 * Reuses the cached registration (tied to the issuer that made it: never replayed at another) when
 * its redirect URI matches this receiver, and, for one with a secret, the secret is still kept with
 * the tokens; else registers.
 */
export async function ensureRegistration(
  opts: LoginOptions,
  target: Target,
  as: oauth.AuthorizationServer,
  receiver: LoopbackReceiver,
): Promise<RegisteredClient> {
  const cached = registrationAt(target.registration(await opts.config.profile(opts.profile), as.issuer), as.issuer);
  if (cached && cached.redirectUri === receiver.redirectUri) {
    const method = cached.tokenEndpointAuthMethod;
    const secret = method ? (await opts.store.load(target.key).catch(() => undefined))?.clientSecret : undefined;
    if ((!method || secret) && (!target.probeRegistration || (await registrationAccepted(opts, as, cached)))) {
      return {
        client: { client_id: cached.clientId, token_endpoint_auth_method: method ?? 'none' },
        credentials: { method: method ?? 'none', secret },
      };
    }
  }
  const registered = await registerClient(opts, as, receiver.redirectUri);
  const credentials = registeredCredentials(registered, as);
  await opts.config.updateProfile(opts.profile, (p) =>
    target.remember(p, {
      clientId: registered.client_id,
      redirectUri: receiver.redirectUri,
      issuer: as.issuer,
      registeredAt: new Date(opts.clock.now()).toISOString(),
      ...(credentials.method !== 'none' ? { tokenEndpointAuthMethod: credentials.method } : {}),
    }),
  );
  return { client: { client_id: registered.client_id, token_endpoint_auth_method: credentials.method }, credentials };
}

/**
 * A cached registration applies only at the authorization server that made it. When the protected
 * resource names a new authorization server (its metadata changed, or the MCP server moved), the
 * old client id means nothing there: rsi registers anew, and never replays a client id at another
 * issuer.
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization
 */
export function registrationAt<R extends { issuer?: string | undefined }>(cached: R | undefined, issuer: string): R | undefined {
  return cached && cached.issuer === issuer ? cached : undefined;
}

/**
 * The metadata rsi registers with (RFC 7591 §2): a public client (PKCE, no secret) whose redirect
 * is its loopback listener, and, as OpenID Connect Dynamic Registration §2 and the next MCP
 * revision (2026-07-28) ask of a client on the user's own machine, `application_type: "native"`
 * (which is what lets a server accept an http://127.0.0.1 redirect).
 * @see https://www.rfc-editor.org/rfc/rfc7591#section-2
 * @see https://openid.net/specs/openid-connect-registration-1_0.html#ClientMetadata
 */
export function clientMetadata(redirectUri: string): Partial<oauth.OmitSymbolProperties<oauth.Client>> {
  return {
    client_name: 'rsi',
    application_type: 'native',
    redirect_uris: [redirectUri],
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
  };
}

/**
 * The token-endpoint authentication a registration gave: the method it returned; for one that
 * returned a secret but no method, RFC 7591 §2's default (`client_secret_basic`) unless the server
 * lists only others; `none` without a secret.
 * @see https://www.rfc-editor.org/rfc/rfc7591#section-2
 */
export function registeredCredentials(registered: oauth.Client, as: oauth.AuthorizationServer): ClientCredentials {
  const secret = typeof registered.client_secret === 'string' && registered.client_secret ? registered.client_secret : undefined;
  const returned = registered.token_endpoint_auth_method;
  if (returned === 'none' || (!secret && returned === undefined)) return { method: 'none' };
  if (returned === 'client_secret_basic' || returned === 'client_secret_post') {
    if (!secret) throw new UnexpectedReplyError(`the client registration says ${returned} but returned no client_secret`);
    return { method: returned, secret };
  }
  if (returned !== undefined) {
    throw new UnexpectedReplyError(
      `the client registration asks for token endpoint authentication "${String(returned).slice(0, 40)}", which rsi does not support`,
    );
  }
  const supported = as.token_endpoint_auth_methods_supported as string[] | undefined;
  if (!supported || supported.includes('client_secret_basic')) return { method: 'client_secret_basic', secret };
  if (supported.includes('client_secret_post')) return { method: 'client_secret_post', secret };
  // The server lists neither: the secret is of no use, PKCE alone authenticates the public client.
  return { method: 'none' };
}

/**
 * Asks the authorization endpoint about a deliberately incomplete request (no PKCE challenge): a
 * known client is redirected back with an error, an unknown one gets an error page. No code is
 * minted and the user sees nothing.
 */
export async function registrationAccepted(
  opts: { oauth: OAuthEnv },
  as: oauth.AuthorizationServer,
  client: { clientId: string; redirectUri: string },
): Promise<boolean> {
  const url = new URL(as.authorization_endpoint!);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: client.redirectUri,
    state: 'probe',
  }).toString();
  // The shared network path: proxy, deadline, trace; it never follows the redirect.
  const res = await opts.oauth.network.fetch(url, { redirect: 'manual', headers: { 'user-agent': opts.oauth.userAgent } });
  const location = res.headers.get('location');
  return res.status >= 300 && res.status < 400 && !!location && location.startsWith(client.redirectUri);
}

/**
 * RFC 7591 dynamic registration of a public client. A 429 `slow_down` is waited out a bounded
 * number of times, as src/http/retry-after.ts decides (the API's retry policy: Retry-After, cap,
 * backoff).
 * @see https://www.rfc-editor.org/rfc/rfc7591#section-3
 */
export async function registerClient(opts: LoginOptions, as: oauth.AuthorizationServer, redirectUri: string): Promise<oauth.Client> {
  for (let attempt = 0; ; attempt++) {
    const res = await oauth.dynamicClientRegistrationRequest(
      as,
      clientMetadata(redirectUri),
      requestOptions(as.registration_endpoint ?? as.issuer, opts.oauth),
    );
    if (res.status === 429) {
      // Registering is rarer than an API call: without Retry-After, a slower backoff (1 s, 2 s).
      const { waitMs, retry } = retryWait(res.headers.get('retry-after'), { now: opts.clock.now(), attempt, baseMs: 1000 });
      await res.body?.cancel();
      if (attempt >= 2 || !retry) {
        throw new ServiceUnavailableError('the service is limiting client registrations from this address (429 slow_down)', 429, {
          hint: `wait ${Math.ceil(waitMs / 1000)} s and run \`rsi login\` again`,
        });
      }
      opts.events.info(`The service asks us to slow down registering; retrying in ${Math.ceil(waitMs / 1000)} s…`);
      await opts.clock.sleep(waitMs, opts.signal).catch(() => {
        throw new InterruptedError();
      });
      continue;
    }
    try {
      return (await oauth.processDynamicClientRegistrationResponse(await lenientRegistration(res))) as oauth.Client;
    } catch (error) {
      throw oauthFailure(error, 'client registration');
    }
  }
}

/**
 * RFC 7591 §3.2.1 makes `client_secret_expires_at` required beside a `client_secret`, and
 * oauth4webapi refuses a reply without it; servers that leave it out exist (the MCP SDK's own
 * accepts them). Its absence is read as its documented "0: never expires", the only field so
 * forgiven: everything else is still checked.
 */
async function lenientRegistration(res: Response): Promise<Response> {
  if (res.status !== 201) return res;
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return new Response(text, { status: res.status, headers: res.headers });
  }
  if (json && typeof json === 'object' && 'client_secret' in json && !('client_secret_expires_at' in json)) {
    return new Response(JSON.stringify({ ...json, client_secret_expires_at: 0 }), { status: res.status, headers: res.headers });
  }
  return new Response(text, { status: res.status, headers: res.headers });
}

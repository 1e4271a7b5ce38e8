/**
 * OAuth protocol steps on oauth4webapi, named after the steps. Never prints, never asks.
 */
import * as oauth from 'oauth4webapi';
import { CliError, NotSignedInError, ServiceUnavailableError, UnexpectedReplyError, UsageError } from '../errors.js';
import type { AuthServerInfo } from '../storage/config.js';
import type { Network } from '../http/network.js';
import { apiResourceOf } from '../http/api-path.js';
import { isLoopbackHost } from './base-url.js';
import { shellCommand } from '../io/text.js';

export interface OAuthEnv {
  userAgent: string;
  /** The process's one network (proxies, deadline, caps, trace), shared with the API: the Context's, passed in. */
  network: Network;
  /** Ends the steps' requests early (a deadline of the caller's); the refresh of a hand-over never gets one. */
  signal?: AbortSignal | undefined;
}

/** oauth4webapi request options: loopback http allowed, our User-Agent, the shared network path. */
export interface RequestOptions {
  headers: Headers;
  [oauth.allowInsecureRequests]: boolean;
  // oauth4webapi calls it as (url, { method, headers, body, redirect, signal }).
  [oauth.customFetch]: (url: string, options: oauth.CustomFetchOptions<any, any>) => Promise<Response>;
  signal?: AbortSignal;
}

export function requestOptions(url: string, env: OAuthEnv): RequestOptions {
  const insecure = new URL(url).protocol === 'http:' && isLoopbackHost(new URL(url).hostname);
  return {
    [oauth.allowInsecureRequests]: insecure,
    headers: new Headers({ 'user-agent': env.userAgent }),
    [oauth.customFetch]: tracingFetch(env),
    ...(env.signal ? { signal: env.signal } : {}),
  };
}

/**
 * The customFetch given to oauth4webapi: the shared network path, whose trace (redacted, with
 * every token it has seen scrubbed), deadline, body cap and error messages are the API's.
 */
function tracingFetch(env: OAuthEnv): RequestOptions[typeof oauth.customFetch] {
  const { network } = env;
  return (url, init) => network.fetch(url, init);
}

/**
 * RFC 9728 then RFC 8414: the API's protected-resource document names the authorization server,
 * whose metadata must carry the same issuer. A service without the RFC 9728 document is taken to
 * be its own authorization server, as the spec states.
 * @see https://www.rfc-editor.org/rfc/rfc9728#section-3
 * @see https://www.rfc-editor.org/rfc/rfc8414#section-3.3
 */
export async function discoverAuthorizationServer(baseUrl: string, env: OAuthEnv): Promise<oauth.AuthorizationServer> {
  const resource = new URL(apiResourceOf(baseUrl));
  let issuer = new URL(baseUrl);
  try {
    const rs = await oauth.processResourceDiscoveryResponse(
      resource,
      await oauth.resourceDiscoveryRequest(resource, requestOptions(resource.href, env)),
    );
    const named = rs.authorization_servers?.[0];
    if (named) issuer = new URL(named);
  } catch (error) {
    if (error instanceof ServiceUnavailableError) throw error;
    // No usable RFC 9728 document: fall back to the base URL as the issuer.
  }
  if (issuer.protocol !== 'https:' && !(issuer.protocol === 'http:' && isLoopbackHost(issuer.hostname))) {
    throw new UnexpectedReplyError(`the service names an authorization server that is not https (${issuer.href}); refusing`);
  }
  let as: oauth.AuthorizationServer;
  try {
    as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { ...requestOptions(issuer.href, env), algorithm: 'oauth2' }),
    );
  } catch (error) {
    if (error instanceof ServiceUnavailableError) throw error;
    throw (
      issuerMismatch(error, issuer, baseUrl) ??
      new UnexpectedReplyError(`the service's OAuth metadata at ${issuer.origin} is not usable: ${(error as Error).message}`, {
        hint: 'check --base-url; `rsi doctor` tests discovery',
      })
    );
  }
  // Checked before anything is opened or sent: the browser gets the authorization endpoint, and
  // the token, registration and revocation endpoints receive codes and tokens.
  checkEndpoints(as);
  return as;
}

/**
 * The metadata names another issuer than the address asked (`--base-url http://localhost:8765`
 * where the service calls itself http://127.0.0.1:8765): said in rsi's words, and where both are
 * this machine, with the base URL to use instead. Another host is named but never suggested: a
 * service cannot send a person elsewhere by claiming a name.
 */
function issuerMismatch(error: unknown, asked: URL, baseUrl: string): CliError | undefined {
  if (!(error instanceof oauth.OperationProcessingError) || error.code !== oauth.JSON_ATTRIBUTE_COMPARISON) return undefined;
  const cause = error.cause as { attribute?: unknown; body?: { issuer?: unknown } } | undefined;
  if (cause?.attribute !== 'issuer' || typeof cause.body?.issuer !== 'string') return undefined;
  let named: URL;
  try {
    named = new URL(cause.body.issuer);
  } catch {
    return undefined;
  }
  const said = `the service at ${asked.origin} calls itself ${named.href.replace(/\/$/, '')} (its OAuth issuer), and the two must be the same address`;
  const sameMachine = isLoopbackHost(asked.hostname) && isLoopbackHost(named.hostname) && asked.protocol === named.protocol;
  if (!sameMachine || asked.href !== new URL(baseUrl).href) {
    return new UnexpectedReplyError(said, { hint: "check --base-url: it must be the service's own address; `rsi doctor` tests discovery" });
  }
  const instead = new URL(baseUrl);
  instead.host = named.host;
  return new UnexpectedReplyError(said, { hint: `use ${shellCommand(['--base-url', instead.href.replace(/\/$/, '')])} instead` });
}

const ENDPOINTS = ['authorization_endpoint', 'token_endpoint', 'registration_endpoint', 'revocation_endpoint'] as const;

/**
 * Every endpoint in the metadata is https, or http on a loopback host (the base URL's rule), so
 * tokens never cross a network in clear text; the authorization endpoint, handed to the browser,
 * is never `javascript:`, `file:` or another scheme.
 */
export function checkEndpoints(as: Partial<Record<(typeof ENDPOINTS)[number], unknown>>): void {
  for (const name of ENDPOINTS) {
    const value = as[name];
    if (value === undefined) continue;
    let url: URL | undefined;
    try {
      url = typeof value === 'string' ? new URL(value) : undefined;
    } catch {
      url = undefined;
    }
    const shown = JSON.stringify(String(value).slice(0, 80));
    const refuse = (why: string): never => {
      throw new UnexpectedReplyError(`the service's OAuth metadata gives ${name} ${shown}, ${why}; refusing to sign in`, {
        hint: 'check --base-url; if it is right, the service is misconfigured or an attacker is in the path',
      });
    };
    if (!url) refuse('which is not a URL');
    else if (url.protocol !== 'https:' && url.protocol !== 'http:') refuse('which is not an https:// URL');
    else if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) refuse('which is plain http to a host that is not loopback');
    else if (url.username || url.password) refuse('which carries credentials');
  }
}

/** How a client authenticates at the token endpoint (RFC 7591 `token_endpoint_auth_method`). */
export const CLIENT_AUTH_METHODS = ['none', 'client_secret_basic', 'client_secret_post'] as const;
export type ClientAuthMethod = (typeof CLIENT_AUTH_METHODS)[number];

/** A client's token-endpoint credentials; `none` (a public client, PKCE only) is the default. */
export interface ClientCredentials {
  method: ClientAuthMethod;
  secret?: string | undefined;
}

/**
 * oauth4webapi's ClientAuth for the method the registration returned (or the pre-registered
 * client was given). A method that needs a secret without one is refused, not sent as `none`.
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-2.3.1
 */
export function clientAuth(credentials: ClientCredentials | undefined): oauth.ClientAuth {
  const method = credentials?.method ?? 'none';
  if (method === 'none') return oauth.None();
  if (!credentials?.secret)
    throw new UsageError(`the client authenticates with ${method} but no client secret is known`, {
      hint: 'set RSI_CLIENT_SECRET to the secret of the pre-registered client',
    });
  return method === 'client_secret_basic' ? clientSecretBasic(credentials.secret) : oauth.ClientSecretPost(credentials.secret);
}

/**
 * HTTP Basic with the client id and secret form-urlencoded first (RFC 6749 §2.3.1), by the WHATWG
 * algorithm (URLSearchParams): unlike oauth4webapi's own, which escapes every non-alphanumeric
 * (`-` as `%2D`), it leaves `-._*` as they are, so a server that compares without decoding (as
 * many do) still recognises `my-client`, while one that decodes reads the same value.
 */
function clientSecretBasic(secret: string): oauth.ClientAuth {
  const encode = (value: string): string => new URLSearchParams([['', value]]).toString().slice(1);
  return (_as, client, _body, headers) => {
    headers.set('authorization', `Basic ${btoa(`${encode(client.client_id)}:${encode(secret)}`)}`);
  };
}

/**
 * The well-known addresses of an issuer's metadata, in the order the MCP authorization spec
 * (2025-11-25, "Authorization Server Metadata Discovery") lists them: for an issuer with a path,
 * RFC 8414 with the path inserted, OpenID Connect Discovery with the path inserted, then OpenID
 * Connect Discovery with the path appended; for one without, RFC 8414 then OpenID Connect.
 * @see https://www.rfc-editor.org/rfc/rfc8414#section-3.1
 */
export function metadataUrls(issuer: URL): URL[] {
  const path = issuer.pathname.replace(/\/+$/, '');
  const at = (p: string): URL => new URL(p, issuer.origin);
  if (!path) return [at('/.well-known/oauth-authorization-server'), at('/.well-known/openid-configuration')];
  return [
    at(`/.well-known/oauth-authorization-server${path}`),
    at(`/.well-known/openid-configuration${path}`),
    at(`${path}/.well-known/openid-configuration`),
  ];
}

/**
 * RFC 8414, then OpenID Connect Discovery, at the addresses `metadataUrls` gives, the first that
 * answers 200 winning. The document's `issuer` must be the issuer asked for (RFC 8414 §3.3: a
 * document for another issuer "MUST NOT be used"). Undefined when none answers (404 or another
 * 4xx at every address): the caller decides what a server without metadata means.
 */
export async function discoverIssuerMetadata(
  issuer: URL,
  env: OAuthEnv,
  options: { sameOrigin?: boolean } = {},
): Promise<oauth.AuthorizationServer | undefined> {
  checkIssuerUrl(issuer);
  for (const url of metadataUrls(issuer)) {
    const res = await env.network.fetch(url.href, { headers: { accept: 'application/json', 'user-agent': env.userAgent } });
    if (res.status >= 500) {
      await res.body?.cancel();
      throw new ServiceUnavailableError(`the authorization server answered ${res.status} at ${url.href}`, res.status);
    }
    if (res.status !== 200) {
      await res.body?.cancel();
      continue;
    }
    let as: oauth.AuthorizationServer;
    try {
      as = await oauth.processDiscoveryResponse(issuer, res);
    } catch (error) {
      const body = (error as { cause?: { body?: { issuer?: unknown } } }).cause?.body;
      const sameOrigin = options.sameOrigin ? sameOriginIssuer(issuer, body) : undefined;
      if (sameOrigin) {
        as = sameOrigin;
        checkEndpoints(as);
        return as;
      }
      const said =
        typeof body?.issuer === 'string'
          ? ` says its issuer is ${JSON.stringify(body.issuer.slice(0, 100))}, not ${issuer.href}`
          : ` is not usable: ${(error as Error).message}`;
      throw new UnexpectedReplyError(`the authorization server metadata at ${url.href}${said}; refusing to use it`, {
        hint: 'RFC 8414 forbids using metadata issued for another issuer; the authorization server is misconfigured',
      });
    }
    checkEndpoints(as);
    return as;
  }
  return undefined;
}

/**
 * The 2025-03-26 MCP fallback: with no protected-resource metadata, the client reads RFC 8414
 * metadata at the MCP server's origin, and servers of that time put their issuer below it (e.g.
 * `https://host/oauth`, endpoints under that path; the MCP SDK's clients accept it). Taken only
 * when the document came from that very origin and names an issuer there: nothing of another
 * origin can be planted this way. Undefined when the body is no such document.
 */
function sameOriginIssuer(asked: URL, body: unknown): oauth.AuthorizationServer | undefined {
  const said = (body as { issuer?: unknown } | undefined)?.issuer;
  if (typeof said !== 'string' || !URL.canParse(said)) return undefined;
  if (new URL(said).origin !== asked.origin) return undefined;
  return body as oauth.AuthorizationServer;
}

/** An issuer is https, or http on a loopback host: codes and tokens never cross a network in clear. */
export function checkIssuerUrl(issuer: URL): void {
  if (issuer.protocol !== 'https:' && !(issuer.protocol === 'http:' && isLoopbackHost(issuer.hostname))) {
    throw new UnexpectedReplyError(`the service names an authorization server that is not https (${issuer.href}); refusing`);
  }
}

export function authServerInfo(as: oauth.AuthorizationServer): AuthServerInfo {
  if (!as.token_endpoint) throw new UnexpectedReplyError('the authorization server metadata has no token_endpoint');
  checkEndpoints(as);
  return {
    issuer: as.issuer,
    token_endpoint: as.token_endpoint,
    authorization_endpoint: as.authorization_endpoint,
    revocation_endpoint: as.revocation_endpoint,
    registration_endpoint: as.registration_endpoint,
  };
}

export interface TokenResult {
  accessToken: string;
  refreshToken?: string | undefined;
  expiresIn: number;
  scope: string;
}

/**
 * Refresh grant. Throws InvalidGrant for a refused refresh token (the caller decides whether
 * another process already rotated it).
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-6
 */
export async function refreshTokens(
  as: AuthServerInfo,
  clientId: string,
  refreshToken: string,
  resource: string,
  env: OAuthEnv,
  credentials?: ClientCredentials,
): Promise<TokenResult> {
  const client: oauth.Client = { client_id: clientId, token_endpoint_auth_method: credentials?.method ?? 'none' };
  // Whatever the service answers (an error that echoes the token included), it is not repeated.
  env.network.secrets?.learn(refreshToken);
  try {
    const res = await oauth.refreshTokenGrantRequest(as as oauth.AuthorizationServer, client, clientAuth(credentials), refreshToken, {
      ...requestOptions(as.token_endpoint, env),
      additionalParameters: { resource },
    });
    return tokenResult(await oauth.processRefreshTokenResponse(as as oauth.AuthorizationServer, client, res), undefined, env);
  } catch (error) {
    throw oauthFailure(error, 'refresh');
  }
}

export class InvalidGrantError extends NotSignedInError {
  override readonly code = 'invalid_grant';
}

/** Maps oauth4webapi's errors: invalid_grant → InvalidGrantError, 5xx/network → unavailable. */
export function oauthFailure(error: unknown, step: string): Error {
  // Network failures, oversized replies and the like already say what went wrong.
  if (error instanceof CliError) return error;
  if (error instanceof oauth.ResponseBodyError) {
    if (error.error === 'invalid_grant') return new InvalidGrantError(`your sign-in has expired or was revoked (${step} refused)`);
    if (error.status >= 500)
      return new ServiceUnavailableError(`the authorization server answered ${error.status} during ${step}`, error.status);
    return new NotSignedInError(`the authorization server refused the ${step}: ${error.error}`);
  }
  if (error instanceof oauth.OperationProcessingError && (error.cause as Response | undefined)?.status) {
    const status = (error.cause as Response).status;
    if (status >= 500) return new ServiceUnavailableError(`the authorization server answered ${status} during ${step}`, status);
  }
  if ((error as Error)?.name === 'TimeoutError')
    return new ServiceUnavailableError(`the authorization server did not answer during ${step}`);
  return new UnexpectedReplyError(`unexpected reply from the authorization server during ${step}: ${(error as Error).message}`);
}

/** The tokens of a token endpoint reply; the run learns them (src/io/secrets.ts) as they arrive. */
export function tokenResult(res: oauth.TokenEndpointResponse, requestedScope: string | undefined, env: OAuthEnv): TokenResult {
  env.network.secrets?.learn(res.access_token);
  env.network.secrets?.learn(res.refresh_token);
  return {
    accessToken: res.access_token,
    refreshToken: res.refresh_token,
    expiresIn: typeof res.expires_in === 'number' ? res.expires_in : 3600,
    scope: res.scope ?? requestedScope ?? '',
  };
}

/**
 * Token revocation; best effort (the caller deletes local credentials whatever happens).
 * @see https://www.rfc-editor.org/rfc/rfc7009#section-2.1
 */
export async function revokeToken(
  as: AuthServerInfo,
  clientId: string,
  token: string,
  env: OAuthEnv,
  credentials?: ClientCredentials,
): Promise<void> {
  if (!as.revocation_endpoint) throw new UnexpectedReplyError('the authorization server has no revocation endpoint');
  const client: oauth.Client = { client_id: clientId, token_endpoint_auth_method: credentials?.method ?? 'none' };
  env.network.secrets?.learn(token);
  try {
    await oauth.processRevocationResponse(
      await oauth.revocationRequest(
        as as oauth.AuthorizationServer,
        client,
        clientAuth(credentials),
        token,
        requestOptions(as.revocation_endpoint, env),
      ),
    );
  } catch (error) {
    throw oauthFailure(error, 'revocation');
  }
}

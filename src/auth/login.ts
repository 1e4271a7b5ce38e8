/**
 * The sign-in: discovery, dynamic client registration (cached per profile and issuer), a loopback
 * receiver, PKCE S256 with state and the API resource indicator, validation of the redirect before
 * any exchange, then the code exchange. Stores nothing until it has tokens.
 * @see https://www.rfc-editor.org/rfc/rfc8252 (OAuth for native apps)
 */
import * as oauth from 'oauth4webapi';
import { InterruptedError, NotSignedInError, ServiceUnavailableError, UnexpectedReplyError, UsageError } from '../errors.js';
import type { Clock } from '../io/io.js';
import type { ClientRegistration, ConfigStore, Profile } from '../storage/config.js';
import type { CredentialKey, CredentialStore, StoredTokens } from '../storage/credentials.js';
import {
  authServerInfo,
  clientAuth,
  discoverAuthorizationServer,
  oauthFailure,
  requestOptions,
  tokenResult,
  type ClientAuthMethod,
  type ClientCredentials,
  type OAuthEnv,
} from './oauth.js';
import { PortInUseError, startLoopbackReceiver, type Callback, type LoopbackReceiver } from './loopback.js';
import { credentialKeyFor, resourceUrl, type Resource } from './resources.js';
import { retryWait } from '../http/retry-after.js';

export const DEFAULT_SCOPES = ['service:read', 'projects:write', 'analyses:run'] as const;

export interface LoginEvents {
  /** Progress for the person at the terminal (the command prints it on stderr). */
  info(line: string): void;
  /** The authorization URL is ready: open it and print it. `issuer` is the origin it must be on. */
  authorizationUrl(url: string, issuer: string): Promise<void>;
}

export interface LoginOptions {
  baseUrl: string;
  profile: string;
  scopes: readonly string[];
  /** Fixed loopback port (for ssh -L); undefined: reuse the registered one when free, else any. */
  port: number | undefined;
  timeoutMs: number;
  store: CredentialStore;
  config: ConfigStore;
  oauth: OAuthEnv;
  clock: Clock;
  signal: AbortSignal;
  events: LoginEvents;
  /** Lines pasted on stdin (--no-browser): a redirected URL is accepted from there too. */
  pasted?: AsyncIterable<string> | undefined;
  /** Which resource the token is for: the API (default) or the MCP server, stored under its own entries. */
  resource?: Resource | undefined;
  /**
   * A pre-registered client (`--client-id`) instead of dynamic registration: a plain id, or an
   * https URL of a Client ID Metadata Document. MCP sign-in only.
   */
  clientId?: string | undefined;
  /** That client's secret (RSI_CLIENT_SECRET), for a confidential pre-registered client. */
  clientSecret?: string | undefined;
}

export interface LoginResult {
  scope: string;
  requested: readonly string[];
  expiresAt: number;
  issuer: string;
  clientId: string;
  /**
   * MCP sign-in: the MCP server still refuses the new token for lack of these scopes, although
   * they were granted (signing in again cannot help, so rsi stopped asking).
   */
  stillRefused?: string[] | undefined;
}

/**
 * What one sign-in is for and where its state lives: the API's (the profile's `authServer` and
 * `client`) or the MCP server's (the profile's `mcp`, whose authorization server may be another).
 */
interface Target {
  resource: string;
  /** Empty: no `scope` parameter at all (the MCP spec's "omit when nothing says which"). */
  scopes: readonly string[];
  key: CredentialKey;
  /** The cached registration for this issuer, if any. */
  registration(profile: Profile | undefined, issuer: string): ClientRegistration | undefined;
  remember(profile: Profile | undefined, registration: ClientRegistration | undefined): Profile;
  /** Drops a registration the server no longer knows, wherever this profile keeps it. */
  forget(profile: Profile, staleClientId: string): Profile;
  signedIn(profile: Profile | undefined, as: oauth.AuthorizationServer, used: { clientId: string; redirectUri: string }): Profile;
  /** Probing a cached registration at the authorization endpoint is safe (the service's own server). */
  probeRegistration: boolean;
  /** A pre-registered client: no registration, these credentials. */
  preset?: { clientId: string; credentials: ClientCredentials } | undefined;
}

/** The most step-up sign-ins one `rsi login --resource mcp` makes after the first (no endless loop). */
export const MAX_STEP_UPS = 2;

export async function login(opts: LoginOptions): Promise<LoginResult> {
  if (opts.resource === 'mcp') return loginMcp(opts);
  if (opts.clientId !== undefined) throw new UsageError('--client-id is for the MCP sign-in: add --resource mcp');
  const as = await discoverAuthorizationServer(opts.baseUrl, opts.oauth);
  requireS256(as);
  const key = { baseUrl: opts.baseUrl, profile: opts.profile };
  return signIn(opts, as, {
    resource: resourceUrl(opts.baseUrl, 'api'),
    scopes: opts.scopes,
    key,
    registration: (p, issuer) => (p?.client && p.client.issuer === issuer && p.baseUrl === opts.baseUrl ? p.client : undefined),
    remember: (p, registration) => ({
      ...(p ?? {}),
      baseUrl: opts.baseUrl,
      ...(p?.baseUrl === opts.baseUrl ? {} : { authServer: undefined, credentialStore: undefined, mcp: undefined }),
      client: registration,
    }),
    forget: (p) => ({ ...p, client: undefined }),
    signedIn: (p) => ({
      ...(p ?? {}),
      baseUrl: opts.baseUrl,
      authServer: authServerInfo(as),
      client: p?.client,
      credentialStore: opts.store.kind === 'file' ? 'file' : 'keychain',
    }),
    probeRegistration: true,
  });
}

function requireS256(as: oauth.AuthorizationServer): void {
  if (!as.code_challenge_methods_supported?.includes('S256')) {
    throw new UnexpectedReplyError(`${as.issuer} does not advertise PKCE S256; refusing to sign in without it`);
  }
  if (!as.authorization_endpoint || !as.token_endpoint)
    throw new UnexpectedReplyError(`${as.issuer} metadata lacks the authorization or token endpoint`);
}

/**
 * The MCP sign-in (MCP authorization spec 2025-11-25): discovery from the MCP server's challenge
 * and its own metadata (auth/mcp.ts), the scopes it asks for unless the person named some, then
 * the same PKCE sign-in as the API's with `resource` set to what the metadata says. The new token
 * is tried at once (`initialize` and `tools/list`): a 403 `insufficient_scope` naming scopes not
 * yet granted is a step-up, a sign-in for the union, at most MAX_STEP_UPS times; one naming scopes
 * already granted, or already asked for and refused, is not retried, since asking again cannot
 * change the answer.
 */
async function loginMcp(opts: LoginOptions): Promise<LoginResult> {
  const { discoverMcpAuthorization, probeMcpServer } = await import('./mcp.js');
  const mcpUrl = resourceUrl(opts.baseUrl, 'mcp');
  const found = await discoverMcpAuthorization(mcpUrl, opts.oauth);
  const { as } = found;
  opts.events.info(`Signing in for the MCP server: ${found.how}.`);
  // PKCE is required by the MCP spec: metadata that does not offer S256 is refused; with no metadata
  // at all (the 2025-03-26 fallback) nothing can be checked, and S256 is used all the same.
  if (!found.assumedEndpoints) requireS256(as);
  const preset = opts.clientId !== undefined ? presetClient(opts, as) : await rememberedPreset(opts, as);
  if (!preset && !as.registration_endpoint) {
    throw new UsageError(`${as.issuer} offers no dynamic client registration`, {
      hint: 'pass the client id the service gave you: `rsi login --resource mcp --client-id <id>` (and its secret in RSI_CLIENT_SECRET, if it has one)',
    });
  }
  const key = credentialKeyFor({ baseUrl: opts.baseUrl, profile: opts.profile }, 'mcp');
  const target = (scopes: readonly string[]): Target => ({
    resource: found.resource,
    scopes,
    key,
    // Its own registration first; the API's when the MCP server uses the same authorization server.
    registration: (p, issuer) => {
      if (p?.baseUrl !== opts.baseUrl) return undefined;
      if (p.mcp?.client?.issuer === issuer) return p.mcp.client;
      return p.client?.issuer === issuer && !p.client.tokenEndpointAuthMethod ? p.client : undefined;
    },
    remember: (p, registration) => {
      const same = p?.baseUrl === opts.baseUrl;
      const base: Profile = same ? p! : { baseUrl: opts.baseUrl };
      return { ...base, mcp: { resource: found.resource, authServer: authServerInfo(as), client: registration } };
    },
    // The API's registration, when it was the one borrowed, is gone at the server for the API too.
    forget: (p, stale) => ({
      ...p,
      client: p.client?.clientId === stale ? undefined : p.client,
      ...(p.mcp ? { mcp: { ...p.mcp, client: undefined } } : {}),
    }),
    signedIn: (p, _as, used) => {
      const same = p?.baseUrl === opts.baseUrl;
      const base: Profile = same ? p! : { baseUrl: opts.baseUrl };
      // A pre-registered client is remembered, so a later `rsi login --resource mcp` (a hint's
      // step-up) uses it again without --client-id; its secret stays with the tokens.
      const client: ClientRegistration | undefined = preset
        ? {
            clientId: used.clientId,
            redirectUri: used.redirectUri,
            issuer: as.issuer,
            registeredAt: new Date(opts.clock.now()).toISOString(),
            preRegistered: true,
            ...(preset.credentials.method !== 'none' ? { tokenEndpointAuthMethod: preset.credentials.method } : {}),
          }
        : same && p?.mcp?.client?.issuer === as.issuer
          ? p.mcp.client
          : undefined;
      return {
        ...base,
        credentialStore: opts.store.kind === 'file' ? 'file' : 'keychain',
        mcp: { resource: found.resource, authServer: authServerInfo(as), client },
      };
    },
    // An arbitrary authorization server may answer the probe's incomplete request as a real one.
    probeRegistration: false,
    preset,
  });
  let scopes: readonly string[] = opts.scopes.length ? opts.scopes : found.scopes;
  for (let stepUp = 0; ; stepUp++) {
    const result = await signIn(opts, as, target(scopes));
    const stored = await opts.store.load(key);
    // Trying the token is for step-up only: a server that fails the try does not undo the sign-in.
    const check = stored ? await probeMcpServer(mcpUrl, opts.oauth, stored.accessToken).catch(() => undefined) : undefined;
    if (check?.status !== 403 || check.error !== 'insufficient_scope' || !check.scope?.length) return result;
    const granted = result.scope.split(/\s+/).filter(Boolean);
    const missing = check.scope.filter((s) => !granted.includes(s));
    if (!missing.length) return { ...result, stillRefused: check.scope };
    // Asked for and not granted: the authorization server said no; asking again would loop.
    if (stepUp >= MAX_STEP_UPS || missing.every((s) => scopes.includes(s))) return { ...result, stillRefused: missing };
    scopes = [...new Set([...granted, ...scopes, ...check.scope])];
    opts.events.info(`The MCP server also asks for ${missing.join(' ')}; signing in again for ${scopes.join(' ')} (step-up).`);
  }
}

/** The pre-registered client an earlier `--client-id` sign-in at this issuer left, with its secret. */
async function rememberedPreset(
  opts: LoginOptions,
  as: oauth.AuthorizationServer,
): Promise<{ clientId: string; credentials: ClientCredentials } | undefined> {
  const p = await opts.config.profile(opts.profile);
  const known = p?.baseUrl === opts.baseUrl ? p.mcp?.client : undefined;
  if (!known?.preRegistered || known.issuer !== as.issuer) return undefined;
  const method = known.tokenEndpointAuthMethod ?? 'none';
  const key = credentialKeyFor({ baseUrl: opts.baseUrl, profile: opts.profile }, 'mcp');
  const secret = method !== 'none' ? (await opts.store.load(key).catch(() => undefined))?.clientSecret : undefined;
  if (method !== 'none' && !secret) return undefined;
  return { clientId: known.clientId, credentials: { method, secret } };
}

/**
 * `--client-id`: a client the authorization server already knows. An https URL is a Client ID
 * Metadata Document (the MCP spec's preferred way for a client and a server that never met) when
 * the server says it supports them; it is public, as such documents are for. A plain id takes
 * the secret in RSI_CLIENT_SECRET if it has one, sent the way the server supports (Basic first,
 * RFC 6749 §2.3.1).
 */
function presetClient(opts: LoginOptions, as: oauth.AuthorizationServer): { clientId: string; credentials: ClientCredentials } {
  const clientId = opts.clientId!;
  const isUrl = /^https:\/\//i.test(clientId);
  if (isUrl && !opts.clientSecret) {
    if (as.client_id_metadata_document_supported !== true)
      opts.events.info(`${as.issuer} does not say it supports Client ID Metadata Documents; using ${clientId} as a plain client id.`);
    return { clientId, credentials: { method: 'none' } };
  }
  if (!opts.clientSecret) return { clientId, credentials: { method: 'none' } };
  const supported = (as.token_endpoint_auth_methods_supported as string[] | undefined) ?? ['client_secret_basic'];
  const method: ClientAuthMethod = supported.includes('client_secret_basic')
    ? 'client_secret_basic'
    : supported.includes('client_secret_post')
      ? 'client_secret_post'
      : 'client_secret_basic';
  return { clientId, credentials: { method, secret: opts.clientSecret } };
}

/** One sign-in through the browser for `target`, re-registering once if the server forgot us. */
async function signIn(opts: LoginOptions, as: oauth.AuthorizationServer, target: Target): Promise<LoginResult> {
  for (let attempt = 0; ; attempt++) {
    const receiver = await bindReceiver(opts, target, as.issuer);
    try {
      const client = target.preset
        ? {
            client: { client_id: target.preset.clientId, token_endpoint_auth_method: target.preset.credentials.method },
            credentials: target.preset.credentials,
          }
        : await ensureRegistration(opts, target, as, receiver);
      try {
        return await authorize(opts, target, as, client.client, client.credentials, receiver);
      } catch (error) {
        // The server forgot our registration: drop it and go round once more.
        if (error instanceof StaleRegistrationError && attempt === 0 && !target.preset) {
          await opts.config.updateProfile(opts.profile, (p) => (p ? target.forget(p, client.client.client_id) : p));
          opts.events.info('The stored client registration is no longer accepted; registering again.');
          continue;
        }
        throw error;
      }
    } finally {
      await receiver.close();
    }
  }
}

class StaleRegistrationError extends NotSignedInError {}

/** Binds the registered port when it is free (and no --port says otherwise), else the asked or any port. */
async function bindReceiver(opts: LoginOptions, target: Target, issuer: string): Promise<LoopbackReceiver> {
  const cached = target.preset ? undefined : target.registration(await opts.config.profile(opts.profile), issuer);
  const registeredPort = cached ? Number(new URL(cached.redirectUri).port) : undefined;
  const wanted = opts.port ?? registeredPort;
  if (wanted !== undefined) {
    try {
      return await startLoopbackReceiver(wanted, ignored(opts));
    } catch (error) {
      if (!(error instanceof PortInUseError)) throw error;
      if (opts.port !== undefined)
        throw new UsageError(`port ${opts.port} is in use on 127.0.0.1`, { hint: 'choose another --port, or leave it out' });
    }
  }
  return startLoopbackReceiver(0, ignored(opts));
}

/** Says on stderr that the listener answered a request that was not the sign-in's (and waits on). */
function ignored(opts: LoginOptions): (why: string) => void {
  return (why) => opts.events.info(`Ignored a request to the sign-in listener: ${why}. Still waiting…`);
}

interface RegisteredClient {
  client: oauth.Client;
  credentials: ClientCredentials;
}

/**
 * Reuses the cached registration (tied to the issuer that made it: never replayed at another) when
 * its redirect URI matches this receiver, and, for one with a secret, the secret is still kept with
 * the tokens; else registers.
 */
async function ensureRegistration(
  opts: LoginOptions,
  target: Target,
  as: oauth.AuthorizationServer,
  receiver: LoopbackReceiver,
): Promise<RegisteredClient> {
  const cached = target.registration(await opts.config.profile(opts.profile), as.issuer);
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
      {
        client_name: 'rsi',
        redirect_uris: [redirectUri],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      },
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

async function authorize(
  opts: LoginOptions,
  target: Target,
  as: oauth.AuthorizationServer,
  client: oauth.Client,
  credentials: ClientCredentials,
  receiver: LoopbackReceiver,
): Promise<LoginResult> {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const { resource } = target;
  const url = new URL(as.authorization_endpoint!);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: receiver.redirectUri,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    resource,
    ...(target.scopes.length ? { scope: target.scopes.join(' ') } : {}),
    state,
  }).toString();

  const waitAbort = new AbortController();
  const timeout = setTimeout(
    () =>
      waitAbort.abort(
        new NotSignedInError(
          `timed out after ${Math.round(opts.timeoutMs / 1000)} s waiting for the sign-in in the browser; nothing was stored`,
          {
            hint: 'where no browser can reach this machine, run `rsi login --no-browser` and paste the address the browser ends on, or `rsi login --port 8765` with `ssh -L 8765:127.0.0.1:8765` from your computer',
          },
        ),
      ),
    opts.timeoutMs,
  );
  const onAbort = (): void => waitAbort.abort(opts.signal.reason instanceof Error ? opts.signal.reason : new InterruptedError());
  opts.signal.addEventListener('abort', onAbort, { once: true });
  let callback: Callback;
  try {
    receiver.expectState(state);
    await opts.events.authorizationUrl(url.href, as.issuer);
    callback = await Promise.race([
      receiver.next(waitAbort.signal),
      fromPaste(opts.pasted, { redirectUri: receiver.redirectUri, state, say: opts.events.info }, waitAbort.signal),
    ]);
  } catch (error) {
    throw waitAbort.signal.aborted && waitAbort.signal.reason instanceof Error ? waitAbort.signal.reason : error;
  } finally {
    clearTimeout(timeout);
    opts.signal.removeEventListener('abort', onAbort);
  }

  let params: URLSearchParams;
  try {
    // state, iss and error are checked before anything is exchanged.
    params = oauth.validateAuthResponse(as, client, callback.url, state);
  } catch (error) {
    const failure = callbackFailure(error);
    callback.respond(false, failure.message);
    throw failure;
  }
  try {
    const res = await oauth.authorizationCodeGrantRequest(as, client, clientAuth(credentials), params, receiver.redirectUri, verifier, {
      ...requestOptions(as.token_endpoint!, opts.oauth),
      additionalParameters: { resource },
    });
    const tokens = tokenResult(await oauth.processAuthorizationCodeResponse(as, client, res), target.scopes.join(' '));
    const expiresAt = opts.clock.now() + tokens.expiresIn * 1000;
    const stored: StoredTokens = {
      accessToken: tokens.accessToken,
      refreshToken: tokens.refreshToken,
      expiresAt,
      obtainedAt: opts.clock.now(),
      scope: tokens.scope,
      clientId: client.client_id,
      ...(credentials.method !== 'none' ? { clientAuth: credentials.method, clientSecret: credentials.secret } : {}),
    };
    await opts.store.save(target.key, stored);
    await opts.config.updateProfile(opts.profile, (p) =>
      target.signedIn(p, as, { clientId: client.client_id, redirectUri: receiver.redirectUri }),
    );
    callback.respond(true, `Signed in to ${opts.baseUrl}.`);
    return { scope: tokens.scope, requested: target.scopes, expiresAt, issuer: as.issuer, clientId: client.client_id };
  } catch (error) {
    const failure =
      error instanceof oauth.ResponseBodyError && error.error === 'invalid_client'
        ? new StaleRegistrationError('the service no longer knows this client registration')
        : error instanceof Error && 'exitCode' in error
          ? error
          : oauthFailure(error, 'code exchange');
    callback.respond(false, failure.message);
    throw failure;
  }
}

function callbackFailure(error: unknown): Error {
  if (error instanceof oauth.AuthorizationResponseError) {
    if (error.error === 'access_denied') return new NotSignedInError('sign-in was denied in the browser; nothing was stored');
    return new NotSignedInError(`the authorization server refused the sign-in (${error.error}); nothing was stored`);
  }
  const message = (error as Error).message ?? String(error);
  if (/state/i.test(message)) {
    return new NotSignedInError('the sign-in response did not come from this login (state mismatch); nothing was stored', {
      hint: 'run `rsi login` again; if this repeats, another program may be interfering',
    });
  }
  if (/iss/i.test(message)) {
    return new NotSignedInError('the sign-in response came from a different issuer; nothing was stored', { hint: 'run `rsi login` again' });
  }
  return new NotSignedInError(`the sign-in response was not valid (${message}); nothing was stored`);
}

/**
 * With --no-browser (or a browser that could not open): the person may paste the URL the browser
 * was redirected to. What is not that address (no URL, another path, another sign-in's `state`) is
 * said in one line and the wait goes on, as the loopback listener ignores what is not its own.
 */
async function fromPaste(
  lines: AsyncIterable<string> | undefined,
  expect: { redirectUri: string; state: string; say: (line: string) => void },
  signal: AbortSignal,
): Promise<Callback> {
  if (!lines) return new Promise<never>(() => undefined);
  const iterator = lines[Symbol.asyncIterator]();
  const aborted = new Promise<never>((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
  const expected = new URL(expect.redirectUri);
  const retry = `paste the address the browser ended on (starting with ${expected.origin}${expected.pathname})`;
  for (;;) {
    const next = await Promise.race([iterator.next(), aborted]);
    if (next.done) return new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
    const text = next.value.trim();
    if (!text) continue;
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      expect.say(`That is not an address; ${retry}.`);
      continue;
    }
    if (url.pathname !== expected.pathname || !(url.searchParams.has('code') || url.searchParams.has('error'))) {
      expect.say(`That is not the sign-in's return address; ${retry}.`);
      continue;
    }
    if (url.searchParams.get('state') !== expect.state) {
      expect.say(`That address belongs to another sign-in (its state does not match); ${retry}.`);
      continue;
    }
    return { url, respond: () => undefined };
  }
}

/**
 * The sign-in: discovery, dynamic client registration (cached per profile and issuer), a loopback
 * receiver, PKCE S256 with state and the API resource indicator, validation of the redirect before
 * any exchange, then the code exchange. Stores nothing until it has tokens.
 * @see https://www.rfc-editor.org/rfc/rfc8252 (OAuth for native apps)
 */
import * as oauth from 'oauth4webapi';
import { InterruptedError, NotSignedInError, ServiceUnavailableError, UnexpectedReplyError, UsageError } from '../errors.js';
import type { Clock } from '../io/io.js';
import type { ClientRegistration, ConfigStore } from '../storage/config.js';
import type { CredentialStore } from '../storage/credentials.js';
import { authServerInfo, discoverAuthorizationServer, oauthFailure, requestOptions, tokenResult, type OAuthEnv } from './oauth.js';
import { PortInUseError, startLoopbackReceiver, type Callback, type LoopbackReceiver } from './loopback.js';
import { credentialKeyFor, resourceUrl, type Resource } from './resources.js';

export const DEFAULT_SCOPES = ['service:read', 'projects:write', 'analyses:run'] as const;
const MAX_REGISTRATION_WAIT_MS = 10_000;

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
}

export interface LoginResult {
  scope: string;
  requested: readonly string[];
  expiresAt: number;
  issuer: string;
  clientId: string;
}

export async function login(opts: LoginOptions): Promise<LoginResult> {
  const as = await discoverAuthorizationServer(opts.baseUrl, opts.oauth);
  if (!as.code_challenge_methods_supported?.includes('S256')) {
    throw new UnexpectedReplyError(`${as.issuer} does not advertise PKCE S256; refusing to sign in without it`);
  }
  if (!as.authorization_endpoint || !as.token_endpoint)
    throw new UnexpectedReplyError(`${as.issuer} metadata lacks the authorization or token endpoint`);
  for (let attempt = 0; ; attempt++) {
    const receiver = await bindReceiver(opts, as.issuer);
    try {
      const client = await ensureRegistration(opts, as, receiver);
      try {
        return await authorize(opts, as, client, receiver);
      } catch (error) {
        // The server forgot our registration: drop it and go round once more.
        if (error instanceof StaleRegistrationError && attempt === 0) {
          await forgetRegistration(opts);
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
async function bindReceiver(opts: LoginOptions, issuer: string): Promise<LoopbackReceiver> {
  const cached = await cachedRegistration(opts, issuer);
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

async function cachedRegistration(opts: LoginOptions, issuer: string): Promise<ClientRegistration | undefined> {
  const profile = await opts.config.profile(opts.profile);
  const client = profile?.client;
  // A registration is tied to the issuer that made it: never replayed at another.
  return client && client.issuer === issuer && profile?.baseUrl === opts.baseUrl ? client : undefined;
}

async function forgetRegistration(opts: LoginOptions): Promise<void> {
  await opts.config.updateProfile(opts.profile, (p) => (p ? { ...p, client: undefined } : p));
}

/** Reuses the cached registration when its redirect URI matches this receiver; else registers. */
async function ensureRegistration(opts: LoginOptions, as: oauth.AuthorizationServer, receiver: LoopbackReceiver): Promise<oauth.Client> {
  const cached = await cachedRegistration(opts, as.issuer);
  if (cached && cached.redirectUri === receiver.redirectUri && (await registrationAccepted(opts, as, cached))) {
    return { client_id: cached.clientId, token_endpoint_auth_method: 'none' };
  }
  const client = await registerClient(opts, as, receiver.redirectUri);
  await opts.config.updateProfile(opts.profile, (p) => ({
    ...(p ?? {}),
    baseUrl: p?.baseUrl === opts.baseUrl ? p.baseUrl : opts.baseUrl,
    ...(p?.baseUrl === opts.baseUrl ? {} : { authServer: undefined, credentialStore: undefined }),
    client: {
      clientId: client.client_id,
      redirectUri: receiver.redirectUri,
      issuer: as.issuer,
      registeredAt: new Date(opts.clock.now()).toISOString(),
    },
  }));
  return client;
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
 * number of times, honouring Retry-After.
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
      const header = res.headers.get('retry-after');
      const waitMs = header && /^\d+$/.test(header) ? Number(header) * 1000 : 2000 * (attempt + 1);
      await res.body?.cancel();
      if (attempt >= 2 || waitMs > MAX_REGISTRATION_WAIT_MS) {
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
      return (await oauth.processDynamicClientRegistrationResponse(res)) as oauth.Client;
    } catch (error) {
      throw oauthFailure(error, 'client registration');
    }
  }
}

async function authorize(
  opts: LoginOptions,
  as: oauth.AuthorizationServer,
  client: oauth.Client,
  receiver: LoopbackReceiver,
): Promise<LoginResult> {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const resource = resourceUrl(opts.baseUrl, opts.resource);
  const url = new URL(as.authorization_endpoint!);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: receiver.redirectUri,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    resource,
    scope: opts.scopes.join(' '),
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
    const res = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, receiver.redirectUri, verifier, {
      ...requestOptions(as.token_endpoint!, opts.oauth),
      additionalParameters: { resource },
    });
    const tokens = tokenResult(await oauth.processAuthorizationCodeResponse(as, client, res), opts.scopes.join(' '));
    const expiresAt = opts.clock.now() + tokens.expiresIn * 1000;
    await opts.store.save(credentialKeyFor({ baseUrl: opts.baseUrl, profile: opts.profile }, opts.resource), {
      accessToken: tokens.accessToken,
      refreshToken: tokens.refreshToken,
      expiresAt,
      obtainedAt: opts.clock.now(),
      scope: tokens.scope,
      clientId: client.client_id,
    });
    await opts.config.updateProfile(opts.profile, (p) => ({
      ...(p ?? {}),
      baseUrl: opts.baseUrl,
      authServer: authServerInfo(as),
      client: p?.client,
      credentialStore: opts.store.kind === 'file' ? 'file' : 'keychain',
    }));
    callback.respond(true, `Signed in to ${opts.baseUrl}.`);
    return { scope: tokens.scope, requested: opts.scopes, expiresAt, issuer: as.issuer, clientId: client.client_id };
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

/** The authorization step of the sign-in (src/auth/login.ts): the browser or a pasted redirect, then the exchange. */
import * as oauth from 'oauth4webapi';
import { InterruptedError, NotSignedInError } from '../errors.js';
import type { StoredTokens } from '../storage/credentials.js';
import { clientAuth, oauthFailure, requestOptions, tokenResult, type ClientCredentials } from './oauth.js';
import type { Callback, LoopbackReceiver } from './loopback.js';
import type { LoginOptions, LoginResult, Target } from './login-types.js';

/** The service no longer knows the cached registration: the sign-in registers again, once. */
export class StaleRegistrationError extends NotSignedInError {}

export async function authorize(
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
    const tokens = tokenResult(await oauth.processAuthorizationCodeResponse(as, client, res), target.scopes.join(' '), opts.oauth);
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

/**
 * Builds the authenticated connection an API command uses from the resolved credentials: the HTTP
 * layer with the credentials' token provider for the API (RSI_TOKEN as is, or stored tokens refreshed
 * under a lock).
 */
import type { Clock, Io } from '../io/io.js';
import { RetryingHttp } from '../http/retrying-http.js';
import type { AuthGlobals, Credentials, TokenSource } from './credentials.js';
import type { Http } from '../http/types.js';
import type { Network } from '../http/network.js';

/** An authenticated connection to one service. */
export interface Session {
  profile: string;
  baseUrl: string;
  tokenSource: TokenSource;
  http: Http;
}

export interface SessionOptions {
  globals: AuthGlobals;
  io: Io;
  clock: Clock;
  /** The process's one network (the Context's), which the session's requests go out on. */
  network: Network;
}

export async function openSession(creds: Credentials, options: SessionOptions): Promise<Session> {
  const { globals, clock } = options;
  const baseUrl = creds.requireBaseUrl();
  const auth = await creds.tokenProvider('api');
  const http = new RetryingHttp({ baseUrl, auth, timeoutMs: globals.timeoutMs, userAgent: creds.userAgent, clock }, options.network);
  return { profile: creds.profileName, baseUrl, tokenSource: auth.source as TokenSource, http };
}

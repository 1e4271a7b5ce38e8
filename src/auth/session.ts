/**
 * Builds the authenticated connection an API command uses from the resolved credentials: the HTTP
 * layer with the matching AuthProvider (RSI_TOKEN as is, or stored tokens refreshed under a lock).
 */
import type { Clock, Io } from '../io/io.js';
import { UndiciHttp } from '../http/http.js';
import { notSignedIn, type AuthGlobals, type Credentials, type TokenSource } from './credentials.js';
import type { Http } from '../http/types.js';
import { StaticTokenProvider, StoredTokenProvider } from './tokens.js';

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
}

export async function openSession(creds: Credentials, options: SessionOptions): Promise<Session> {
  const { globals, io, clock } = options;
  const baseUrl = creds.requireBaseUrl();
  const http = (auth: StaticTokenProvider | StoredTokenProvider) =>
    new UndiciHttp({ baseUrl, auth, timeoutMs: globals.timeoutMs, userAgent: creds.userAgent, clock }, creds.oauth.network);
  if (creds.envToken) {
    return { profile: creds.profileName, baseUrl, tokenSource: 'RSI_TOKEN', http: http(new StaticTokenProvider(creds.envToken)) };
  }
  const profile = creds.profile;
  if (!creds.source || !profile?.authServer) throw notSignedIn(creds);
  const provider = new StoredTokenProvider({
    store: creds.store(),
    key: creds.key(),
    authServer: profile.authServer,
    configDir: creds.configDir,
    clock,
    oauth: creds.oauth,
    warn: (message) => void io.stderr.write(`${message}\n`),
  });
  return { profile: creds.profileName, baseUrl, tokenSource: creds.source, http: http(provider) };
}

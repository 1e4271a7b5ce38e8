/** What a sign-in takes and gives (src/auth/login.ts), apart so its steps can share them without a circle of imports. */
import type * as oauth from 'oauth4webapi';
import type { Clock } from '../io/io.js';
import type { ClientRegistration, ConfigStore, Profile } from '../storage/config.js';
import type { CredentialKey, CredentialStore } from '../storage/credentials.js';
import type { ClientCredentials, OAuthEnv } from './oauth.js';
import type { Resource } from './resources.js';

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
  /**
   * `--issuer`: the authorization server that client was registered with. Its secret is sent to
   * no other (src/auth/secret-pin.ts).
   */
  issuer?: string | undefined;
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
export interface Target {
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

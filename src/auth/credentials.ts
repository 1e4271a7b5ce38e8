/**
 * The one place that decides which credentials a command uses: the profile, the base URL in force,
 * the credential store, and where the token comes from (RSI_TOKEN, keychain or file). Every
 * command that needs them (API commands through the session, login, logout, auth status/token,
 * doctor) asks `ctx.credentials()`, which calls `resolveCredentials` once per process.
 */
import type { Clock, Env, Io } from '../io/io.js';
import { placeholder, suggest } from '../io/text.js';
import { NotSignedInError, UsageError } from '../errors.js';
import { ConfigStore, configDir, formerConfigDirs, type Profile } from '../storage/config.js';
import type { Settings } from '../settings.js';
import { KeychainStore, type CredentialKey, type CredentialStore, type StoredTokens } from '../storage/credentials.js';
import { FileStore } from '../storage/file-store.js';
import type { Network } from '../http/network.js';
import type { AuthProvider } from '../http/types.js';
import { normaliseBaseUrl } from './base-url.js';
import { credentialKeyFor, resourceUrl, type Resource } from './resources.js';
import { StaticTokenProvider, StoredTokenProvider } from './tokens.js';

/** Where the access token in use comes from; spelled as users see it in `auth status`. */
export type TokenSource = 'RSI_TOKEN' | 'keychain' | 'file';

/** The global options auth needs (a subset of the Context's GlobalOptions). */
export interface AuthGlobals {
  profile: string;
  /** From --base-url or RSI_BASE_URL; undefined means "the profile's saved one". */
  baseUrl: string | undefined;
  debug: boolean;
  /** Per-request timeout in milliseconds. */
  timeoutMs: number;
}

export interface ResolveOptions {
  globals: AuthGlobals;
  env: Env;
  io: Io;
  clock: Clock;
  signal: AbortSignal;
  version: string;
  /** The process's one network (the Context's `ctx.network()`): the token providers refresh on it. */
  network: Network;
  /**
   * Asks the person a yes/no question (default no); absent when nobody can answer. The token
   * providers ask it whether a sign-in found in another file was moved here rather than copied.
   */
  confirm?: ((question: string) => Promise<boolean>) | undefined;
}

/**
 * The token for one resource of the service, as every caller gets it: the API's HTTP layer, the
 * MCP client, `rsi auth status` and `rsi auth token`.
 */
export interface TokenProvider extends AuthProvider {
  /** Where the token comes from: the environment (never stored or refreshed), or the store. */
  source: TokenSource | 'RSI_MCP_TOKEN';
  /** The resource the token is for (`<base>/api/v1`'s service, or `<base>/mcp`). */
  url: string;
  /** The stored tokens, refreshed first when due; undefined for a token from the environment. */
  tokens(signal?: AbortSignal): Promise<StoredTokens | undefined>;
  /** The stored tokens to hand over: refused for a copy (`StoredTokens.copiedFrom`). */
  tokensToHandOver(signal?: AbortSignal): Promise<StoredTokens | undefined>;
}

export interface Credentials {
  profileName: string;
  /** The profile as saved in config.json (undefined before the first login or with RSI_TOKEN alone). */
  profile: Profile | undefined;
  /** --base-url / RSI_BASE_URL normalised, else the profile's saved one. */
  baseUrl: string | undefined;
  configDir: string;
  config: ConfigStore;
  /** RSI_TOKEN, trimmed; when set it wins over any stored login. */
  envToken: string | undefined;
  /** Where the token in use comes from; undefined when there is none. */
  source: TokenSource | undefined;
  /** How rsi's requests identify themselves (`rsi/<version>`). */
  userAgent: string;
  /** The store this profile's tokens live in (RSI_CREDENTIAL_STORE, else the profile's, else keychain). */
  store(options?: { insecure?: boolean }): CredentialStore;
  /** The key of the stored tokens for the base URL in force. */
  key(): CredentialKey;
  /** Throws NotSignedInError with a hint when no base URL is known. */
  requireBaseUrl(): string;
  /**
   * The token provider for `resource` (default the API): RSI_TOKEN / RSI_MCP_TOKEN as is, else the
   * stored tokens refreshed under the lock. Throws NotSignedInError when there is no sign-in.
   */
  tokenProvider(resource?: Resource): Promise<TokenProvider>;
}

export async function resolveCredentials(options: ResolveOptions): Promise<Credentials> {
  const { globals, env } = options;
  const storeName = env.RSI_CREDENTIAL_STORE;
  if (storeName && storeName !== 'keychain' && storeName !== 'file') {
    throw new UsageError(`RSI_CREDENTIAL_STORE must be "keychain" or "file" (got "${storeName}")`);
  }
  const envToken = env.RSI_TOKEN?.trim() || undefined;
  // Only visible ASCII can go in an Authorization header: anything else would fail every request
  // as a network error (exit 8) instead of saying what is wrong.
  if (envToken && /[^\x21-\x7e]/.test(envToken)) throw new UsageError('RSI_TOKEN must be a single token: visible ASCII, no spaces');
  const dir = configDir(env);
  const config = new ConfigStore(dir);
  // The config is read only when needed: RSI_TOKEN with RSI_BASE_URL works with no config at all.
  const profile = envToken && globals.baseUrl ? undefined : await config.profile(globals.profile);
  const baseUrl = globals.baseUrl ? normaliseBaseUrl(globals.baseUrl, '--base-url') : profile?.baseUrl;
  const userAgent = `rsi/${options.version}`;
  const storeFor = (insecure = false): CredentialStore => {
    const chosen = insecure ? 'file' : storeName || profile?.credentialStore || 'keychain';
    return chosen === 'file'
      ? new FileStore(dir)
      : new KeychainStore({ configDir: dir, formerConfigDirs: formerConfigDirs(env), interactive: options.io.stdinIsTTY });
  };
  const signedInHere = profile !== undefined && profile.baseUrl === baseUrl && profile.authServer !== undefined;
  const source: TokenSource | undefined = envToken
    ? 'RSI_TOKEN'
    : signedInHere
      ? storeFor().kind === 'file'
        ? 'file'
        : 'keychain'
      : undefined;
  const creds: Credentials = {
    profileName: globals.profile,
    profile,
    baseUrl,
    configDir: dir,
    config,
    envToken,
    source,
    userAgent,
    store: (o) => storeFor(o?.insecure),
    key: () => ({ baseUrl: creds.requireBaseUrl(), profile: globals.profile }),
    requireBaseUrl: () => {
      if (baseUrl) return baseUrl;
      throw new NotSignedInError(`no service configured for profile "${globals.profile}"`, {
        hint: `run ${suggest(['rsi', ...profileWords(globals.profile), 'login', '--base-url', placeholder('url')])}, or set RSI_BASE_URL`,
      });
    },
    tokenProvider: (resource = 'api') => (resource === 'mcp' ? mcpTokenProvider(creds, options) : apiTokenProvider(creds, options)),
  };
  return creds;
}

async function apiTokenProvider(creds: Credentials, options: ResolveOptions): Promise<TokenProvider> {
  const url = resourceUrl(creds.requireBaseUrl(), 'api');
  if (creds.envToken) return fromEnvironment(new StaticTokenProvider(creds.envToken), 'RSI_TOKEN', url);
  const profile = creds.profile;
  if (!creds.source || !profile?.authServer) throw notSignedIn(creds);
  const store = creds.store();
  const provider = new StoredTokenProvider({
    store,
    key: creds.key(),
    authServer: profile.authServer,
    configDir: creds.configDir,
    clock: options.clock,
    oauth: { userAgent: creds.userAgent, network: options.network },
    warn: (message) => void options.io.stderr.write(`${message}\n`),
    confirmMove: options.confirm,
  });
  return {
    source: creds.source,
    url,
    getAccessToken: (signal) => provider.getAccessToken(signal),
    refreshAfterUnauthorized: (rejected, signal) => provider.refreshAfterUnauthorized(rejected, signal),
    tokens: (signal) => provider.tokens(signal),
    tokensToHandOver: (signal) => provider.tokensToHandOver(signal),
  };
}

/**
 * The token for the service's MCP server (`<base>/mcp`): RSI_MCP_TOKEN as is, else the tokens
 * `rsi login --resource mcp` stored beside the API's, refreshed by the same StoredTokenProvider
 * (under the same lock discipline) with `resource=<base>/mcp`. This is the only token cache: the
 * MCP SDK asks it for a token on every request and keeps none of its own.
 */
async function mcpTokenProvider(creds: Credentials, options: ResolveOptions): Promise<TokenProvider> {
  const baseUrl = creds.requireBaseUrl();
  const url = resourceUrl(baseUrl, 'mcp');
  const envToken = options.env.RSI_MCP_TOKEN?.trim();
  if (envToken) return fromEnvironment(new StaticTokenProvider(envToken, 'RSI_MCP_TOKEN'), 'RSI_MCP_TOKEN', url);
  const hint = `run ${suggest(['rsi', ...profileWords(creds.profileName), 'login', '--resource', 'mcp'])} (or set RSI_MCP_TOKEN)`;
  const notSignedInMcp = () =>
    new NotSignedInError(`not signed in to the MCP server of ${baseUrl} (profile ${creds.profileName})`, { hint });
  // With RSI_TOKEN and RSI_BASE_URL the resolver skips the config; an MCP sign-in may still be stored.
  const profile = creds.profile ?? (await creds.config.profile(creds.profileName));
  // The MCP sign-in's own authorization server (its metadata may name another than the API's);
  // an MCP sign-in stored before rsi kept it separately used the API's.
  const authServer = profile?.mcp?.authServer ?? profile?.authServer;
  if (!profile || !authServer || profile.baseUrl !== baseUrl) throw notSignedInMcp();
  const store =
    creds.profile || options.env.RSI_CREDENTIAL_STORE ? creds.store() : creds.store({ insecure: profile.credentialStore === 'file' });
  const provider = new StoredTokenProvider({
    store,
    key: credentialKeyFor(creds.key(), 'mcp'),
    // The resource the tokens were issued for, as the MCP server's metadata named it.
    resource: profile.mcp?.resource ?? url,
    authServer,
    configDir: creds.configDir,
    clock: options.clock,
    oauth: { userAgent: creds.userAgent, network: options.network },
    warn: (message) => void options.io.stderr.write(`${message}\n`),
    confirmMove: options.confirm,
  });
  // The provider's own "not signed in" names the internal `<profile>+mcp` account: say it plainly.
  const plain = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (error) {
      if (error instanceof NotSignedInError) throw notSignedInMcp();
      throw error;
    }
  };
  return {
    source: store.kind === 'file' ? 'file' : 'keychain',
    url,
    getAccessToken: (signal) => plain(() => provider.getAccessToken(signal)),
    refreshAfterUnauthorized: (rejected, signal) => plain(() => provider.refreshAfterUnauthorized(rejected, signal)),
    tokens: (signal) => plain(() => provider.tokens(signal)),
    tokensToHandOver: (signal) => plain(() => provider.tokensToHandOver(signal)),
  };
}

function fromEnvironment(auth: AuthProvider, source: 'RSI_TOKEN' | 'RSI_MCP_TOKEN', url: string): TokenProvider {
  return {
    source,
    url,
    getAccessToken: (signal) => auth.getAccessToken(signal),
    refreshAfterUnauthorized: (rejected, signal) => auth.refreshAfterUnauthorized(rejected, signal),
    tokens: async () => undefined,
    tokensToHandOver: async () => undefined,
  };
}

/**
 * The person's settings (`rsi config`). A config that cannot be read gives none here: the command
 * that needs the config then fails with the reason, and one that does not (sandbox, completion) runs.
 */
/** The config file's store without resolving a profile: `rsi config set|unset` repair a bad setting with it. */
export function configStore(env: Env): ConfigStore {
  return new ConfigStore(configDir(env));
}

export async function readSettings(env: Env): Promise<Settings> {
  try {
    return await new ConfigStore(configDir(env)).settings();
  } catch {
    return {};
  }
}

/** `--profile x` as words for a suggested command, none for the default profile. */
export function profileWords(profile: string): string[] {
  return profile === 'default' ? [] : ['--profile', profile];
}

/** The error for "this profile has no stored sign-in for the base URL in force". */
export function notSignedIn(creds: Credentials): NotSignedInError {
  const where = creds.baseUrl ? ` to ${creds.baseUrl}` : '';
  return new NotSignedInError(`not signed in${where} (profile ${creds.profileName})`, {
    hint: `run ${suggest(['rsi', ...profileWords(creds.profileName), 'login', '--base-url', creds.baseUrl ?? placeholder('url')])}`,
  });
}

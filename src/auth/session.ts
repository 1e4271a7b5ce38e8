/**
 * Builds the authenticated connection a command uses: base URL, token source (RSI_TOKEN, keychain
 * or file) and the HTTP layer with the matching AuthProvider.
 */
import type { GlobalOptions, Session } from '../commands/context.js';
import type { Clock, Io } from '../io/io.js';
import { NotSignedInError, UsageError } from '../errors.js';
import { ConfigStore, configDir, type Profile } from '../storage/config.js';
import { FileStore, KeychainStore, type CredentialStore, type StoreKind } from '../storage/credentials.js';
import { UndiciHttp } from '../http/http.js';
import { normaliseBaseUrl } from './base-url.js';
import { StaticTokenProvider, StoredTokenProvider } from './tokens.js';
import type { OAuthEnv } from './oauth.js';

type Env = Readonly<Record<string, string | undefined>>;

export interface OpenSessionOptions {
  globals: GlobalOptions;
  env: Env;
  io: Io;
  clock: Clock;
  signal: AbortSignal;
  version: string;
}

/** Everything auth commands need besides a session: stores, config, resolved names. */
export interface AuthContext {
  profile: string;
  configDir: string;
  config: ConfigStore;
  oauth: OAuthEnv;
  userAgent: string;
}

export function authContext(options: OpenSessionOptions): AuthContext {
  const dir = configDir(options.env);
  const userAgent = `rsi/${options.version}`;
  return {
    profile: options.globals.profile,
    configDir: dir,
    config: new ConfigStore(dir),
    userAgent,
    oauth: { userAgent, timeoutMs: options.globals.timeoutMs, trace: options.globals.debug ? options.io.stderr : undefined },
  };
}

/** RSI_CREDENTIAL_STORE, or the store the profile was signed in with. */
export function credentialStore(env: Env, dir: string, profile?: Profile, insecure = false): CredentialStore {
  const chosen = insecure ? 'file' : (env.RSI_CREDENTIAL_STORE || profile?.credentialStore || 'keychain');
  if (chosen !== 'keychain' && chosen !== 'file') {
    throw new UsageError(`RSI_CREDENTIAL_STORE must be "keychain" or "file" (got "${chosen}")`);
  }
  return chosen === 'file' ? new FileStore(dir) : new KeychainStore();
}

/** The base URL in force: --base-url / RSI_BASE_URL, else the profile's saved one. */
export function resolveBaseUrl(globals: GlobalOptions, profile: Profile | undefined): string | undefined {
  if (globals.baseUrl) return normaliseBaseUrl(globals.baseUrl, '--base-url');
  return profile?.baseUrl;
}

export async function openSession(options: OpenSessionOptions): Promise<Session> {
  const { globals, env, io, clock } = options;
  if (env.RSI_CREDENTIAL_STORE && !['keychain', 'file'].includes(env.RSI_CREDENTIAL_STORE)) {
    throw new UsageError(`RSI_CREDENTIAL_STORE must be "keychain" or "file" (got "${env.RSI_CREDENTIAL_STORE}")`);
  }
  const auth = authContext(options);
  const envToken = env.RSI_TOKEN?.trim();
  // The config is read only when needed: RSI_TOKEN with RSI_BASE_URL works with no config at all.
  const needProfile = !envToken || !globals.baseUrl;
  const profile = needProfile ? await auth.config.profile(globals.profile) : undefined;
  const baseUrl = resolveBaseUrl(globals, profile);
  if (!baseUrl) {
    throw new NotSignedInError(`no service configured for profile "${globals.profile}"`, {
      hint: 'run `rsi login --base-url <url>`, or set RSI_BASE_URL',
    });
  }
  const trace = globals.debug ? io.stderr : undefined;
  if (envToken) {
    if (/\s/.test(envToken)) throw new UsageError('RSI_TOKEN must be a single token without spaces');
    const http = new UndiciHttp({ baseUrl, auth: new StaticTokenProvider(envToken), timeoutMs: globals.timeoutMs, userAgent: auth.userAgent, clock, trace });
    return { profile: globals.profile, baseUrl, tokenSource: 'env', http };
  }
  if (!profile || profile.baseUrl !== baseUrl || !profile.authServer) {
    throw new NotSignedInError(`not signed in to ${baseUrl} (profile ${globals.profile})`, {
      hint: `run \`rsi login --base-url ${baseUrl}\``,
    });
  }
  const store = credentialStore(env, auth.configDir, profile);
  const provider = new StoredTokenProvider({
    store,
    key: { baseUrl, profile: globals.profile },
    authServer: profile.authServer,
    configDir: auth.configDir,
    clock,
    oauth: auth.oauth,
    warn: (message) => void io.stderr.write(`${message}\n`),
  });
  const http = new UndiciHttp({ baseUrl, auth: provider, timeoutMs: globals.timeoutMs, userAgent: auth.userAgent, clock, trace });
  return { profile: globals.profile, baseUrl, tokenSource: store.kind as Exclude<StoreKind, 'memory'>, http };
}

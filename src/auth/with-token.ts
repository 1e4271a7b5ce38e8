/**
 * A sign-in for a machine of its own (CI, cron) from a refresh token, gh's `auth login
 * --with-token` habit: `rsi auth token --refresh` hands a sign-in over as one line (the refresh
 * token with the client it belongs to), and `rsi login --with-token` on the other machine spends it
 * at once in a refresh: the rotated tokens it gets back are stored there, and only there. Refresh
 * tokens rotate, so a sign-in lives on exactly one machine: the exporting one gives its refresh
 * token up (docs/auth.md, "CI and cron"). A line is single-use: the service rotates the token it
 * carries at the first refresh, and a second use is refused (a service with reuse detection then
 * signs out every copy of that sign-in, the machine that used it first included).
 */
import { HandOverSpentError, UsageError } from '../errors.js';
import type { ConfigStore } from '../storage/config.js';
import type { CredentialKey, CredentialStore, StoredTokens } from '../storage/credentials.js';
import type { Clock } from '../io/io.js';
import { apiResourceOf } from '../http/api-path.js';
import type { OAuthEnv } from './oauth.js';

/** What `rsi auth token --refresh` prints: `rsi-refresh.` and base64url JSON. */
const PREFIX = 'rsi-refresh.';

interface HandOver {
  /** The client the refresh token was issued to: a refresh with another client is refused. */
  clientId: string;
  refreshToken: string;
  clientAuth?: StoredTokens['clientAuth'];
  clientSecret?: string | undefined;
}

/** One line carrying a stored sign-in's refresh token and its client. */
export function encodeHandOver(tokens: StoredTokens): string {
  if (!tokens.refreshToken) throw new UsageError('this sign-in has no refresh token to hand over (it cannot be refreshed anywhere)');
  const body: HandOver = { clientId: tokens.clientId, refreshToken: tokens.refreshToken };
  if (tokens.clientAuth) Object.assign(body, { clientAuth: tokens.clientAuth, clientSecret: tokens.clientSecret });
  return `${PREFIX}${Buffer.from(JSON.stringify(body)).toString('base64url')}`;
}

/**
 * Reads what `--with-token` got on stdin: the line `auth token --refresh` printed, or a bare refresh
 * token with `--client-id` (a token from elsewhere, for a client the service knows).
 */
export function decodeHandOver(text: string, clientId: string | undefined): HandOver {
  const line = text.trim();
  if (line === '') throw new UsageError('--with-token read nothing on stdin: pipe the line `rsi auth token --refresh` printed');
  if (/\s/.test(line)) throw new UsageError('--with-token takes one token on stdin (one line, no spaces)');
  if (line.startsWith(PREFIX)) {
    let parsed: Partial<HandOver>;
    try {
      parsed = JSON.parse(Buffer.from(line.slice(PREFIX.length), 'base64url').toString('utf8')) as Partial<HandOver>;
    } catch {
      throw new UsageError('--with-token: the token on stdin is damaged (copy the whole line `rsi auth token --refresh` printed)');
    }
    if (typeof parsed.clientId !== 'string' || typeof parsed.refreshToken !== 'string' || parsed.refreshToken === '') {
      throw new UsageError('--with-token: the token on stdin is damaged (copy the whole line `rsi auth token --refresh` printed)');
    }
    return { ...(parsed as HandOver), clientId: clientId ?? parsed.clientId };
  }
  if (!clientId) {
    throw new UsageError('--with-token: a bare refresh token needs --client-id (the client it was issued to)', {
      hint: 'on the machine that signed in, `rsi auth token --refresh` prints a line that carries both',
    });
  }
  if (/[^\x21-\x7e]/.test(line)) throw new UsageError('--with-token: the token must be visible ASCII');
  return { clientId, refreshToken: line };
}

export interface WithTokenOptions {
  baseUrl: string;
  profile: string;
  handOver: HandOver;
  store: CredentialStore;
  config: ConfigStore;
  oauth: OAuthEnv;
  clock: Clock;
  /** Ends discovery early (`login --timeout`); never the refresh, whose answer is the only copy of the sign-in. */
  signal?: AbortSignal | undefined;
}

/**
 * Discovers the authorization server, refreshes with the handed-over token, and stores what comes
 * back before anything else (the old token is dead from the moment the service answers).
 */
export async function signInWithRefreshToken(opts: WithTokenOptions): Promise<{ scope: string; expiresAt: number; issuer: string }> {
  const { authServerInfo, discoverAuthorizationServer, refreshTokens } = await import('./oauth.js');
  const { shielded } = await import('../io/shield.js');
  const as = authServerInfo(await discoverAuthorizationServer(opts.baseUrl, { ...opts.oauth, signal: opts.signal }));
  const key: CredentialKey = { baseUrl: opts.baseUrl, profile: opts.profile };
  const { handOver } = opts;
  const credentials = handOver.clientAuth ? { method: handOver.clientAuth, secret: handOver.clientSecret } : undefined;
  const { InvalidGrantError } = await import('./oauth.js');
  const { handOverCommands } = await import('./tokens.js');
  return shielded(async () => {
    let result: Awaited<ReturnType<typeof refreshTokens>>;
    try {
      result = await refreshTokens(as, handOver.clientId, handOver.refreshToken, apiResourceOf(opts.baseUrl), opts.oauth, credentials);
    } catch (error) {
      if (!(error instanceof InvalidGrantError)) throw error;
      throw new HandOverSpentError(
        'the service refused this hand-over line: it was used before (a line works once) or has expired; if it had been used, the service has now signed out every copy of that sign-in, the machine that used it first included',
        { hint: `${handOverCommands(key)}; nothing was stored here`, cause: error },
      );
    }
    const now = opts.clock.now();
    const stored: StoredTokens = {
      accessToken: result.accessToken,
      refreshToken: result.refreshToken ?? handOver.refreshToken,
      expiresAt: now + result.expiresIn * 1000,
      obtainedAt: now,
      scope: result.scope,
      clientId: handOver.clientId,
      ...(handOver.clientAuth ? { clientAuth: handOver.clientAuth, clientSecret: handOver.clientSecret } : {}),
      // A later refused refresh then says what a line used twice does (src/auth/tokens.ts).
      via: 'hand-over',
    };
    await opts.store.save(key, stored);
    await opts.config.updateProfile(opts.profile, (p) => ({
      ...(p ?? {}),
      baseUrl: opts.baseUrl,
      authServer: as,
      // The registration (its redirect URI) belongs to the machine that signed in: not kept here.
      ...(p?.baseUrl === opts.baseUrl ? {} : { client: undefined, mcp: undefined }),
      credentialStore: opts.store.kind === 'file' ? 'file' : 'keychain',
    }));
    return { scope: stored.scope, expiresAt: stored.expiresAt, issuer: as.issuer };
  });
}

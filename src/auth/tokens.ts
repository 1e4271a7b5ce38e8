/**
 * Access tokens for API calls: proactive refresh a minute before expiry, reactive refresh once on a
 * 401. Refresh tokens rotate, so concurrent rsi processes coordinate through a lock in the config
 * folder: after taking it, a process re-reads the store and refreshes only if nobody else already
 * did; it writes back only if the stored refresh token is still the one it refreshed.
 */
import { mkdir } from '../storage/fs.js';
import { join } from 'node:path';
import { CredentialStoreError, NotSignedInError } from '../errors.js';
import type { AuthProvider } from '../http/types.js';
import { apiResourceOf } from '../http/api-path.js';
import type { Clock } from '../io/io.js';
import type { AuthServerInfo } from '../storage/config.js';
import type { CredentialKey, CredentialStore, StoredTokens } from '../storage/credentials.js';
import { acquireLock, type Release } from '../storage/lock.js';
import { shielded } from '../io/shield.js';
// oauth.ts (and oauth4webapi) is loaded only when a refresh is due: most runs never need it.
import type { OAuthEnv } from './oauth.js';

export const REFRESH_MARGIN_MS = 60_000;

/** Refresh a minute before expiry, or a quarter of the lifetime for short-lived tokens. */
export function refreshMargin(tokens: { expiresAt: number; obtainedAt?: number | undefined }): number {
  if (tokens.obtainedAt === undefined) return REFRESH_MARGIN_MS;
  return Math.min(REFRESH_MARGIN_MS, Math.max(0, (tokens.expiresAt - tokens.obtainedAt) / 4));
}

/** RSI_TOKEN: used as is, never stored, never refreshed. */
export class StaticTokenProvider implements AuthProvider {
  constructor(private readonly token: string) {}

  async getAccessToken(): Promise<string> {
    return this.token;
  }

  async refreshAfterUnauthorized(): Promise<string | undefined> {
    return undefined;
  }
}

export interface StoredTokenProviderOptions {
  store: CredentialStore;
  key: CredentialKey;
  authServer: AuthServerInfo;
  configDir: string;
  clock: Clock;
  oauth: OAuthEnv;
  /** Where loud warnings go (a failed save after a successful rotation, a long wait for the lock). */
  warn: (message: string) => void;
  /** How long to wait for another process's refresh lock before saying so (default 1 s). */
  lockNoteAfterMs?: number | undefined;
  /** The resource the tokens are bound to, sent on refresh; default `<base>/api/v1`. */
  resource?: string;
}

export class StoredTokenProvider implements AuthProvider {
  private current: StoredTokens | undefined;

  constructor(private readonly opts: StoredTokenProviderOptions) {}

  async getAccessToken(signal?: AbortSignal): Promise<string> {
    this.current ??= await this.opts.store.load(this.opts.key);
    if (!this.current) throw new NotSignedInError(`not signed in to ${this.opts.key.baseUrl} (profile ${this.opts.key.profile})`);
    if (this.current.expiresAt - this.opts.clock.now() > refreshMargin(this.current)) return this.current.accessToken;
    return (await this.refresh(this.current.accessToken, signal)).accessToken;
  }

  async refreshAfterUnauthorized(rejectedToken: string, signal?: AbortSignal): Promise<string | undefined> {
    try {
      return (await this.refresh(rejectedToken, signal)).accessToken;
    } catch (error) {
      if (error instanceof NotSignedInError) return undefined;
      throw error;
    }
  }

  /** The current tokens, refreshed first if they expire within a minute. For `rsi auth token`. */
  async tokens(signal?: AbortSignal): Promise<StoredTokens> {
    await this.getAccessToken(signal);
    return this.current!;
  }

  private async refresh(staleAccessToken: string, signal?: AbortSignal): Promise<StoredTokens> {
    const release = await this.lock(signal);
    try {
      // Someone else may have refreshed while we waited for the lock: use their result.
      const stored = await this.opts.store.load(this.opts.key);
      if (!stored) throw new NotSignedInError(`not signed in to ${this.opts.key.baseUrl} (profile ${this.opts.key.profile})`);
      if (stored.accessToken !== staleAccessToken && stored.expiresAt > this.opts.clock.now()) {
        this.current = stored;
        return stored;
      }
      if (!stored.refreshToken) {
        throw new NotSignedInError('your access token has expired and there is no refresh token');
      }
      if (stored.copiedFrom) {
        // Refresh tokens rotate: the first refresh from a copy kills the original's token, and the
        // service may then revoke both (reuse detection). Never spend it from here.
        throw new NotSignedInError(
          `this sign-in was saved in ${stored.copiedFrom}, not here (a copied config folder): sign in on this machine with \`rsi login\` (or \`rsi login --with-token\`) instead`,
          { hint: undefined },
        );
      }
      const { InvalidGrantError, refreshTokens } = await import('./oauth.js');
      const usedRefreshToken = stored.refreshToken;
      // From the moment the request leaves, the server may rotate: the old refresh token is then
      // dead, so the save must finish even if Ctrl-C comes (io/shield.ts defers the exit).
      return await shielded(async () => {
        let result: Awaited<ReturnType<typeof refreshTokens>>;
        try {
          result = await refreshTokens(
            this.opts.authServer,
            stored.clientId,
            usedRefreshToken,
            this.opts.resource ?? apiResourceOf(this.opts.key.baseUrl),
            this.opts.oauth,
            // A client registered with a secret authenticates its refreshes as it did its sign-in.
            stored.clientAuth ? { method: stored.clientAuth, secret: stored.clientSecret } : undefined,
          );
        } catch (error) {
          if (error instanceof InvalidGrantError) {
            // A token another process rotated in the meantime is not a lost session: re-read.
            const again = await this.opts.store.load(this.opts.key);
            if (again && again.refreshToken !== usedRefreshToken) {
              this.current = again;
              return again;
            }
            // Nothing is deleted: the stored tokens stay until a new login replaces them.
          }
          throw error;
        }
        const next: StoredTokens = {
          accessToken: result.accessToken,
          refreshToken: result.refreshToken ?? usedRefreshToken,
          expiresAt: this.opts.clock.now() + result.expiresIn * 1000,
          obtainedAt: this.opts.clock.now(),
          scope: result.scope || stored.scope,
          clientId: stored.clientId,
          ...(stored.clientAuth ? { clientAuth: stored.clientAuth, clientSecret: stored.clientSecret } : {}),
        };
        try {
          // Compare-and-swap, atomic in the store: write back only over the refresh token we used.
          await this.opts.store.update(this.opts.key, (before) => (before && before.refreshToken === usedRefreshToken ? next : undefined));
        } catch (error) {
          // The old refresh token is already dead on the server: this must not pass quietly.
          this.opts.warn(
            `rsi: warning: the service rotated your tokens but saving them failed (${(error as Error).message}); ` +
              'this command can finish, but the next one will need `rsi login`',
          );
        }
        this.current = next;
        return next;
      });
    } finally {
      await release();
    }
  }

  private async lock(signal?: AbortSignal): Promise<Release> {
    const dir = this.opts.configDir;
    try {
      await mkdir(dir, { recursive: true, mode: 0o700 });
    } catch (error) {
      throw new CredentialStoreError(`cannot create the config folder ${dir}: ${(error as Error).message}`);
    }
    const { profile } = this.opts.key;
    return acquireLock(join(dir, `refresh-${profile}.lock`), {
      // A lock untouched for 20 s belongs to a crashed process: take it over.
      staleMs: 20_000,
      signal,
      what: 'refresh tokens',
      noteAfterMs: this.opts.lockNoteAfterMs ?? 1000,
      // A silent wait looks like a hang: say who we are waiting for.
      onWait: () => this.opts.warn(`waiting for another rsi process that is refreshing the sign-in of profile ${profile}…`),
    });
  }
}

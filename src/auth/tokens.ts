/**
 * Access tokens for API calls: proactive refresh a minute before expiry, reactive refresh once on a
 * 401. Refresh tokens rotate, so concurrent rsi processes coordinate through a lock in the config
 * folder: after taking it, a process re-reads the store and refreshes only if nobody else already
 * did; it writes back only if the stored refresh token is still the one it refreshed.
 */
import { mkdir } from '../storage/fs.js';
import { join } from 'node:path';
import { CredentialStoreError, HandOverSpentError, NotSignedInError, SignInCopiedError } from '../errors.js';
import type { AuthProvider } from '../http/types.js';
import { apiResourceOf } from '../http/api-path.js';
import type { Clock } from '../io/io.js';
import type { AuthServerInfo } from '../storage/config.js';
import type { CredentialKey, CredentialStore, SavedElsewhere, StoredTokens } from '../storage/credentials.js';
import { shellCommand, shellQuote, suggest } from '../io/text.js';
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

/** RSI_TOKEN (or RSI_MCP_TOKEN): used as is, never stored, never refreshed. */
export class StaticTokenProvider implements AuthProvider {
  constructor(
    private readonly token: string,
    private readonly variable: 'RSI_TOKEN' | 'RSI_MCP_TOKEN' = 'RSI_TOKEN',
  ) {}

  async getAccessToken(): Promise<string> {
    return this.token;
  }

  /** Nothing to refresh: the refused token is the variable's, and only a new value helps (not `rsi login`). */
  async refreshAfterUnauthorized(): Promise<string | undefined> {
    const name = this.variable;
    throw new NotSignedInError(
      `the service refused the access token in ${name} (expired, revoked, or not for this service); rsi uses it as is and never refreshes it`,
      {
        hint: `renew ${name} with a fresh access token (\`rsi auth token\` on a machine that is signed in, or your CI's secret store), or unset it to use the stored sign-in`,
      },
    );
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
  /**
   * Asks the person whether the config folder was moved rather than copied (a sign-in found in
   * another file than it was saved in); absent when nobody can answer (no terminal).
   */
  confirmMove?: ((question: string) => Promise<boolean>) | undefined;
}

export class StoredTokenProvider implements AuthProvider {
  private current: StoredTokens | undefined;

  constructor(private readonly opts: StoredTokenProviderOptions) {}

  async getAccessToken(signal?: AbortSignal): Promise<string> {
    this.current ??= this.heard(await this.opts.store.load(this.opts.key));
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

  /**
   * The tokens to hand over (`rsi auth token --refresh`): never a copy's, whose refresh token is
   * the original's too (handing it over would sign the original out).
   */
  async tokensToHandOver(signal?: AbortSignal): Promise<StoredTokens> {
    const tokens = await this.tokens(signal);
    if (tokens.copiedFrom) await this.settleCopy(tokens.copiedFrom);
    return this.current!;
  }

  /** Every token this provider holds is the run's secret: no message, JSON error or trace line repeats one. */
  private heard<T extends StoredTokens | undefined>(tokens: T): T {
    const secrets = this.opts.oauth.network.secrets;
    secrets?.learn(tokens?.accessToken);
    secrets?.learn(tokens?.refreshToken);
    return tokens;
  }

  /**
   * A sign-in found in another file than it was saved in is a copy, or a folder moved to another
   * file system: rsi cannot tell which. At a terminal the person is asked once (unless the original
   * is plainly still on this machine); yes adopts it here. Otherwise it stops with what to run,
   * before its refresh token is spent: rotating it here would sign the original out, and a service
   * with reuse detection would then sign out both.
   */
  private async settleCopy(from: SavedElsewhere): Promise<void> {
    const { store, key, confirmMove } = this.opts;
    if (!from.originalHere && confirmMove && store.adopt) {
      const moved = await confirmMove(
        `The sign-in of profile ${plainProfile(key)} was saved in ${from.dir} on ${from.host}, in another file than this one: a copy, or this folder moved to another file system. Was it moved here, leaving no copy behind?`,
      );
      if (moved) {
        await store.adopt(key);
        this.current = this.heard(await store.load(key));
        if (this.current && !this.current.copiedFrom) return;
      }
    }
    throw copiedError(key, from, store.adopt !== undefined);
  }

  private async refresh(staleAccessToken: string, signal?: AbortSignal): Promise<StoredTokens> {
    // Asked before the lock: a person may take a while to answer, and others wait for the lock.
    // Only a store whose entries travel with a folder can hold a copy (a keychain read is spared).
    const before = this.opts.store.adopt ? await this.opts.store.load(this.opts.key) : undefined;
    if (before?.copiedFrom) await this.settleCopy(before.copiedFrom);
    const release = await this.lock(signal);
    try {
      // Someone else may have refreshed while we waited for the lock: use their result.
      const stored = this.heard(await this.opts.store.load(this.opts.key));
      if (!stored) throw new NotSignedInError(`not signed in to ${this.opts.key.baseUrl} (profile ${this.opts.key.profile})`);
      if (stored.accessToken !== staleAccessToken && stored.expiresAt > this.opts.clock.now()) {
        this.current = stored;
        return stored;
      }
      if (!stored.refreshToken) {
        throw new NotSignedInError('your access token has expired and there is no refresh token');
      }
      // Refresh tokens rotate: the first refresh from a copy kills the original's token, and the
      // service may then revoke both (reuse detection). Never spend it from here.
      if (stored.copiedFrom) throw copiedError(this.opts.key, stored.copiedFrom, this.opts.store.adopt !== undefined);
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
            if (stored.via === 'hand-over') throw handOverRefused(this.opts.key, error);
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
          ...(stored.via ? { via: stored.via } : {}),
        };
        this.heard(next);
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

/** The profile a key belongs to (the MCP sign-in's key is `<profile>+mcp`, src/auth/resources.ts). */
function plainProfile(key: CredentialKey): string {
  return key.profile.replace(/\+mcp$/, '');
}

function profileArgs(key: CredentialKey): string[] {
  const profile = plainProfile(key);
  return profile === 'default' ? [] : ['--profile', profile];
}

/**
 * How a machine with no browser gets a sign-in of its own: a fresh hand-over line from a machine
 * that is signed in (written to a file only its owner can read), piped to `login --with-token`.
 * `from`: the config folder the line comes from, when it is not that machine's default.
 */
export function handOverCommands(key: CredentialKey, from?: { dir: string; host: string }): string {
  const mcp = key.profile.endsWith('+mcp');
  if (mcp) return `sign in for the MCP server here with ${suggest(['rsi', ...profileArgs(key), 'login', '--resource', 'mcp'])}`;
  const where = from ? `on ${from.host} run` : 'on a machine that is signed in, run';
  const env = from ? `RSI_CONFIG_DIR=${shellQuote(from.dir)} ` : '';
  const exportLine = `\`(umask 077 && ${env}${shellCommand(['rsi', ...profileArgs(key), 'auth', 'token', '--refresh'])} > handover.txt)\``;
  const login = `\`${shellCommand(['rsi', ...profileArgs(key), 'login', '--with-token', '--base-url', key.baseUrl])} < handover.txt\``;
  return `${where} ${exportLine}, then here ${login} (a line works once)`;
}

function copiedError(key: CredentialKey, from: SavedElsewhere, adoptable: boolean): SignInCopiedError {
  const what = from.originalHere
    ? `this sign-in is a copy of the one in ${from.dir} on ${from.host}, which still holds it`
    : `this sign-in was saved in ${from.dir} on ${from.host}, and this is a copy of that file (cp, a restored backup) or the folder moved to another file system`;
  const moved =
    adoptable && !from.originalHere
      ? `; if this folder was moved here and no copy is left, keep its sign-in with ${suggest(['rsi', ...profileArgs(key), 'auth', 'adopt'])}`
      : '';
  return new SignInCopiedError(`${what}: rsi did not refresh it here, so the original keeps working`, {
    hint: `to give this folder a sign-in of its own, ${handOverCommands(key, from)}${moved}`,
  });
}

/** A refused refresh of a sign-in that came from a hand-over line: say what a reused line does. */
function handOverRefused(key: CredentialKey, cause: unknown): HandOverSpentError {
  return new HandOverSpentError(
    'the service refused this sign-in, which came from a hand-over line: it has expired or was revoked, or the line was used a second time, and then the service signs out every copy (this one too)',
    { hint: `get a fresh line: ${handOverCommands(key)}`, cause },
  );
}

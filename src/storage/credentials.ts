/**
 * Where tokens live: the OS keychain (default), a 0600 file the user chose explicitly
 * (`--insecure-storage` / RSI_CREDENTIAL_STORE=file); unit tests use an in-memory double
 * (test/support/memory-store.ts, kind 'memory'). Keyed by base URL and profile. Never a silent fallback from one to another.
 */
import { resolve } from 'node:path';
import * as z from 'zod/mini';
import { CredentialStoreError, KeychainUnavailableError } from '../errors.js';

export interface StoredTokens {
  accessToken: string;
  refreshToken?: string | undefined;
  /** Absolute expiry of the access token, ms since the epoch. */
  expiresAt: number;
  /** When the access token was obtained: its lifetime sets how early to refresh. */
  obtainedAt?: number | undefined;
  scope: string;
  clientId: string;
  /** How the client authenticates at the token endpoint, when not `none` (a registration that returned a secret). */
  clientAuth?: 'client_secret_basic' | 'client_secret_post' | undefined;
  /** That client's secret: kept with the tokens it guards, in the same store, never in config.json. */
  clientSecret?: string | undefined;
  /**
   * `hand-over`: this sign-in came from a hand-over line (`rsi login --with-token`), so a refused
   * refresh may mean the line was used a second time somewhere (src/auth/tokens.ts says so).
   */
  via?: 'hand-over' | undefined;
  /**
   * Read, never written: the file store found these tokens in another file than the one they were
   * saved in (a copy: `cp -a`, a restored backup; or a folder moved to another file system), and
   * says where they were saved. Its refresh token is not used here until the sign-in is adopted.
   */
  copiedFrom?: SavedElsewhere | undefined;
}

/** Where a sign-in found in a copy was saved: its config folder's real path, on that host. */
export interface SavedElsewhere {
  dir: string;
  host: string;
  /** That folder is on this machine and still holds a credentials file: certainly a copy, not a move. */
  originalHere: boolean;
}

export interface CredentialKey {
  baseUrl: string;
  profile: string;
}

export type StoreKind = 'keychain' | 'file' | 'memory';

export interface CredentialStore {
  readonly kind: StoreKind;
  load(key: CredentialKey): Promise<StoredTokens | undefined>;
  save(key: CredentialKey, tokens: StoredTokens): Promise<void>;
  /**
   * Read-modify-write of one entry, atomic against other rsi processes where the store allows it
   * (the file store holds its lock across the read and the write). `undefined` from `fn` leaves the
   * entry as it is.
   */
  update(key: CredentialKey, fn: (current: StoredTokens | undefined) => StoredTokens | undefined): Promise<void>;
  delete(key: CredentialKey): Promise<void>;
  /** Throws CredentialStoreError when the store cannot be used at all (locked, unreachable). */
  probe(key: CredentialKey): Promise<void>;
  /**
   * Makes a sign-in found in a copy (`copiedFrom`) this store's own, for a folder that was moved
   * rather than copied; says where it had been saved, or undefined when there was nothing to adopt.
   * Only stores whose entries travel with a folder have it (the file store).
   */
  adopt?(key: CredentialKey): Promise<SavedElsewhere | undefined>;
}

/** The stored shapes, built on first read rather than at import (docs/performance.md, round 3). */
export const schemas = (() => {
  let built: ReturnType<typeof build> | undefined;
  function build() {
    const AccessPart = z.object({
      accessToken: z.string().check(z.minLength(1)),
      expiresAt: z.number(),
      obtainedAt: z.optional(z.number()),
      scope: z.string(),
      clientId: z.string(),
      clientAuth: z.optional(z.enum(['client_secret_basic', 'client_secret_post'])),
      clientSecret: z.optional(z.string()),
      via: z.optional(z.literal('hand-over')),
    });
    const RefreshPart = z.object({ refreshToken: z.string().check(z.minLength(1)) });
    const Home = z.object({
      host: z.string(),
      machine: z.string(),
      dir: z.string(),
      /** The identity of credentials.json when this entry was written (FileIdentity). */
      file: z.optional(z.object({ dev: z.string(), ino: z.string() })),
    });
    const FileEntries = z.record(z.string(), z.extend(AccessPart, { refreshToken: z.optional(z.string()), home: z.optional(Home) }));
    return { AccessPart, RefreshPart, FileEntries };
  }
  return () => (built ??= build());
})();

/**
 * Windows Credential Manager caps one secret (CRED_MAX_CREDENTIAL_BLOB_SIZE) at 2,560 bytes, and
 * keyring's Windows backend stores the password as UTF-16: 1,280 UTF-16 code units. Counted in
 * UTF-16 units (JavaScript's `length`), not UTF-8 bytes, which would let a 2,000-character token
 * through and fail at the write.
 */
export const WINDOWS_MAX_SECRET_UNITS = 1280;
/** A hung Secret Service must not hang rsi: no answer within this is an error. */
export const KEYCHAIN_TIMEOUT_MS = 3000;
/**
 * macOS asks "rsi wants to use your confidential information…" the first time a new binary reads
 * an entry; while a person is there to click "Allow", the box must outlast that dialog.
 */
export const KEYCHAIN_DIALOG_TIMEOUT_MS = 120_000;

export function keychainService(baseUrl: string): string {
  return `rsi:${baseUrl}`;
}

/**
 * A stable id of the config folder (its absolute path, hashed): two config folders with the same
 * profile and base URL never share, overwrite or delete each other's keychain entries.
 */
export async function configFolderId(dir: string): Promise<string> {
  // node:crypto on first use: loading it costs ~3 ms of a start that may never need a hash.
  const { createHash } = await import('node:crypto');
  return createHash('sha256').update(resolve(dir)).digest('hex').slice(0, 12);
}

/** The keychain account of one part of a profile's tokens in one config folder. */
export function keychainAccount(profile: string, part: 'access' | 'refresh', folderId: string | undefined): string {
  return folderId === undefined ? `${profile}:${part}` : `${profile}:${part}@${folderId}`;
}

/** What KeychainStore needs of an entry (@napi-rs/keyring's AsyncEntry; a fake in unit tests). */
export interface KeychainEntry {
  getPassword(signal?: AbortSignal | null): Promise<string | null | undefined>;
  setPassword(password: string, signal?: AbortSignal | null): Promise<void>;
  deleteCredential(signal?: AbortSignal | null): Promise<unknown>;
}

export interface KeychainStoreOptions {
  /** The config folder whose sign-ins these are (scopes the entries). */
  configDir: string;
  /** Folders an earlier version kept this folder's sign-ins under (config.ts formerConfigDirs): their entries move here. */
  formerConfigDirs?: readonly string[];
  platform?: NodeJS.Platform;
  /** A person is at the terminal (stdin is a TTY) and can answer a keychain dialog. */
  interactive?: boolean;
  /** Opens an entry; defaults to @napi-rs/keyring pinned to the Secret Service on Linux. */
  openEntry?: (service: string, account: string) => Promise<KeychainEntry>;
}

async function napiEntry(service: string, account: string): Promise<KeychainEntry> {
  const { AsyncEntry } = await import('@napi-rs/keyring');
  return new AsyncEntry(service, account, { linux: { store: 'secret-service' } } as never);
}

/**
 * The OS keychain through @napi-rs/keyring, pinned to the Secret Service on Linux so it never falls
 * back silently to the kernel keyring. The access and refresh parts are separate entries so each
 * stays small; the refresh part is written first, so an interrupted save leaves the newest refresh
 * token (the one that matters) in place. Entries carry the config folder's id; the unscoped entry
 * of earlier versions is read once, moved to this folder's name and deleted, so nobody loses a
 * sign-in and no second folder can keep using (and rotating) the same refresh token.
 */
export class KeychainStore implements CredentialStore {
  readonly kind = 'keychain';
  readonly timeoutMs: number;
  private readonly configDir: string;
  private readonly formerConfigDirs: readonly string[];
  private folder: Promise<string> | undefined;
  private readonly platform: NodeJS.Platform;
  private readonly openEntry: (service: string, account: string) => Promise<KeychainEntry>;

  constructor(options: KeychainStoreOptions) {
    this.configDir = options.configDir;
    this.formerConfigDirs = options.formerConfigDirs ?? [];
    this.platform = options.platform ?? process.platform;
    this.openEntry = options.openEntry ?? napiEntry;
    this.timeoutMs = keychainTimeoutMs(this.platform, options.interactive ?? false);
  }

  /** The config folder's id its entries carry (`configFolderId`), worked out on first use. */
  folderId(): Promise<string> {
    this.folder ??= configFolderId(this.configDir);
    return this.folder;
  }

  /** `folder`: true for this folder's entries, false for the unscoped ones, a path for another folder's. */
  private async entry(key: CredentialKey, part: 'access' | 'refresh', folder: boolean | string = true): Promise<KeychainEntry> {
    const folderId = folder === true ? await this.folderId() : folder === false ? undefined : await configFolderId(folder);
    try {
      return await this.openEntry(keychainService(key.baseUrl), keychainAccount(key.profile, part, folderId));
    } catch (error) {
      throw keychainError('open the keychain', error);
    }
  }

  private async call<T>(what: string, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const limit = this.timeoutMs;
    const signal = AbortSignal.timeout(limit);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${limit / 1000} s`)), limit + 200);
      timer.unref();
    });
    try {
      return await Promise.race([fn(signal), timeout]);
    } catch (error) {
      throw keychainError(what, error);
    } finally {
      clearTimeout(timer);
    }
  }

  async probe(key: CredentialKey): Promise<void> {
    const entry = await this.entry(key, 'access');
    // Reading our own entry proves the store is reachable and unlocked without writing anything.
    await this.call('read the keychain', (signal) => entry.getPassword(signal));
  }

  private async read(key: CredentialKey, scoped: boolean | string): Promise<StoredTokens | undefined> {
    const [access, refresh] = await Promise.all([this.entry(key, 'access', scoped), this.entry(key, 'refresh', scoped)]);
    const a = await this.call('read the keychain', (signal) => access.getPassword(signal));
    if (a === null || a === undefined) return undefined;
    const r = await this.call('read the keychain', (signal) => refresh.getPassword(signal));
    const accessPart = parseSecret(schemas().AccessPart, a, 'keychain entry');
    const refreshPart = r === null || r === undefined ? undefined : parseSecret(schemas().RefreshPart, r, 'keychain entry');
    return { ...accessPart, refreshToken: refreshPart?.refreshToken };
  }

  async load(key: CredentialKey): Promise<StoredTokens | undefined> {
    const scoped = await this.read(key, true);
    if (scoped) return scoped;
    // The config folder moved (macOS, 0.1.0): its entries move with it, as the unscoped ones below.
    for (const former of this.formerConfigDirs) {
      const found = await this.read(key, former);
      if (!found) continue;
      await this.save(key, found);
      await this.remove(key, former);
      return found;
    }
    const legacy = await this.read(key, false);
    if (!legacy) return undefined;
    // Move it: written under this folder's name first, then the shared entry goes.
    await this.save(key, legacy);
    await this.remove(key, false);
    return legacy;
  }

  async save(key: CredentialKey, tokens: StoredTokens): Promise<void> {
    const accessText = JSON.stringify({
      accessToken: tokens.accessToken,
      expiresAt: tokens.expiresAt,
      obtainedAt: tokens.obtainedAt,
      scope: tokens.scope,
      clientId: tokens.clientId,
      clientAuth: tokens.clientAuth,
      clientSecret: tokens.clientSecret,
      via: tokens.via,
    });
    const refreshText = tokens.refreshToken ? JSON.stringify({ refreshToken: tokens.refreshToken }) : undefined;
    if (this.platform === 'win32') {
      for (const text of [accessText, refreshText]) {
        if (text !== undefined && text.length > WINDOWS_MAX_SECRET_UNITS) {
          throw new CredentialStoreError(
            `a token is too large for Windows Credential Manager (${text.length} UTF-16 characters, the limit is ${WINDOWS_MAX_SECRET_UNITS}); nothing was stored`,
            { hint: 'use `rsi login --insecure-storage` to keep tokens in a 0600 file instead' },
          );
        }
      }
    }
    const [access, refresh] = await Promise.all([this.entry(key, 'access'), this.entry(key, 'refresh')]);
    if (refreshText !== undefined) await this.call('write to the keychain', (signal) => refresh.setPassword(refreshText, signal));
    else await this.call('write to the keychain', (signal) => refresh.deleteCredential(signal));
    await this.call('write to the keychain', (signal) => access.setPassword(accessText, signal));
  }

  /** Keychain entries are per profile already; the per-profile refresh lock orders their writers. */
  async update(key: CredentialKey, fn: (current: StoredTokens | undefined) => StoredTokens | undefined): Promise<void> {
    const next = fn(await this.load(key));
    if (next !== undefined) await this.save(key, next);
  }

  /** Deletes this folder's entries only: another config folder's sign-in is not ours to remove. */
  async delete(key: CredentialKey): Promise<void> {
    await this.remove(key, true);
  }

  private async remove(key: CredentialKey, scoped: boolean | string): Promise<void> {
    const [access, refresh] = await Promise.all([this.entry(key, 'access', scoped), this.entry(key, 'refresh', scoped)]);
    await this.call('delete from the keychain', (signal) => access.deleteCredential(signal));
    await this.call('delete from the keychain', (signal) => refresh.deleteCredential(signal));
  }
}

/** Short, except on macOS with a person at the terminal, who may have a dialog to answer. */
export function keychainTimeoutMs(platform: NodeJS.Platform, interactive: boolean): number {
  return platform === 'darwin' && interactive ? KEYCHAIN_DIALOG_TIMEOUT_MS : KEYCHAIN_TIMEOUT_MS;
}

function keychainError(what: string, error: unknown): CredentialStoreError {
  const raw = error instanceof Error ? error.message : String(error);
  let reason = raw.split('\n')[0] ?? raw;
  if (/autolaunch|DBUS_SESSION_BUS_ADDRESS|dbus.*not.*(found|available)|No such file/i.test(raw))
    reason = 'no D-Bus session bus is available';
  else if (/org\.freedesktop\.secrets|not provided by any \.service/i.test(raw)) reason = 'no Secret Service (keyring daemon) is running';
  else if (/dismissed|locked/i.test(raw)) reason = 'the keyring is locked';
  else if (/Did not receive a reply|no answer within|timed? ?out/i.test(raw)) reason = 'the keyring did not answer in time';
  return new KeychainUnavailableError(`cannot ${what}: ${reason}`, {
    hint: 'unlock or start your keyring, or keep tokens in a 0600 file instead: `rsi login --insecure-storage` (or RSI_CREDENTIAL_STORE=file)',
    cause: error,
  });
}

function parseSecret<T>(schema: z.ZodMiniType<T>, text: string, where: string): T {
  try {
    return schema.parse(JSON.parse(text));
  } catch {
    throw new CredentialStoreError(`the stored credentials (${where}) are unreadable`, { hint: 'run `rsi login` to replace them' });
  }
}

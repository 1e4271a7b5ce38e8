/**
 * Where tokens live: the OS keychain (default), a 0600 file the user chose explicitly
 * (`--insecure-storage` / RSI_CREDENTIAL_STORE=file); unit tests use an in-memory double
 * (test/support/memory-store.ts, kind 'memory'). Keyed by base URL and profile. Never a silent fallback from one to another.
 */
import { readFile, rm } from './fs.js';
import { readFileSync, realpathSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import * as z from 'zod/mini';
import { CredentialStoreError } from '../errors.js';
import { STORE_LOCK_STALE_MS, ensureDir, writeAtomic } from './config.js';
import { withLock } from './lock.js';
import { assertTrusted, type TrustHost } from './trust.js';

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
   * Read, never written: the file store found these tokens saved by another machine or in another
   * folder (a copied config folder), and says where. Its refresh token must not be used here.
   */
  copiedFrom?: string | undefined;
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
}

/** The stored shapes, built on first read rather than at import (docs/performance.md, round 3). */
const schemas = (() => {
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
    });
    const RefreshPart = z.object({ refreshToken: z.string().check(z.minLength(1)) });
    const Home = z.object({ host: z.string(), machine: z.string(), dir: z.string() });
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
  return new CredentialStoreError(`cannot ${what}: ${reason}`, {
    hint: 'unlock or start your keyring, or sign in with `rsi login --insecure-storage` to keep tokens in a 0600 file',
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

/** The explicit, visible fallback: `<config>/credentials.json`, mode 0600, replaced atomically. */
export class FileStore implements CredentialStore {
  readonly kind = 'file';
  readonly file: string;

  constructor(
    readonly dir: string,
    private readonly host?: TrustHost,
  ) {
    this.file = join(dir, 'credentials.json');
  }

  private async readAll(): Promise<z.infer<ReturnType<typeof schemas>['FileEntries']>> {
    await assertTrusted(this.dir, 'folder', this.host);
    await assertTrusted(this.file, 'secret-file', this.host);
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw new CredentialStoreError(`cannot read ${this.file}: ${(error as Error).message}`);
    }
    try {
      return schemas().FileEntries.parse(JSON.parse(text));
    } catch {
      throw new CredentialStoreError(`${this.file} is corrupt`, { hint: 'delete it and run `rsi login --insecure-storage` again' });
    }
  }

  async probe(): Promise<void> {
    await this.readAll();
  }

  async load(key: CredentialKey): Promise<StoredTokens | undefined> {
    return this.fromDisk((await this.readAll())[entryName(key)]);
  }

  async save(key: CredentialKey, tokens: StoredTokens): Promise<void> {
    await this.update(key, () => tokens);
  }

  /**
   * An entry as the provider sees it: where it was saved is compared with here (this machine, this
   * folder), and a difference is reported as `copiedFrom` rather than trusted.
   */
  private fromDisk(entry: FileEntry | undefined): StoredTokens | undefined {
    if (!entry) return undefined;
    const { home, ...tokens } = entry;
    const here = homeOf(this.dir);
    if (!home || (home.host === here.host && home.machine === here.machine && home.dir === here.dir)) return tokens;
    return { ...tokens, copiedFrom: `${home.dir} on ${home.host}` };
  }

  /**
   * Every profile's tokens share this one file, so each change re-reads it under the store lock
   * and writes it back whole: a rotation saved by another profile a moment ago is never undone.
   */
  async update(key: CredentialKey, fn: (current: StoredTokens | undefined) => StoredTokens | undefined): Promise<void> {
    await this.locked(async () => {
      const all = await this.readAll();
      const next = fn(this.fromDisk(all[entryName(key)]));
      if (next === undefined) return;
      // Saved here: the entry now belongs to this machine and folder (a login or a rotation here).
      const { copiedFrom: _, ...tokens } = next;
      all[entryName(key)] = { ...tokens, refreshToken: next.refreshToken, home: homeOf(this.dir) };
      await writeAtomic(this.file, `${JSON.stringify(all, null, 2)}\n`, 0o600);
    });
  }

  async delete(key: CredentialKey): Promise<void> {
    await this.locked(async () => {
      const all = await this.readAll();
      if (!(entryName(key) in all)) return;
      delete all[entryName(key)];
      if (Object.keys(all).length === 0) await rm(this.file, { force: true });
      else await writeAtomic(this.file, `${JSON.stringify(all, null, 2)}\n`, 0o600);
    });
  }

  private async locked(fn: () => Promise<void>): Promise<void> {
    await ensureDir(this.dir);
    await withLock(`${this.file}.lock`, { staleMs: STORE_LOCK_STALE_MS, what: 'update the credentials' }, fn);
  }
}

type FileEntry = z.infer<ReturnType<typeof schemas>['FileEntries']>[string];

/**
 * Where a file entry was saved: the host name, the machine's id (systemd's /etc/machine-id where
 * there is one: a cloned runner image may keep a host name) and the config folder's real path.
 */
function homeOf(dir: string): { host: string; machine: string; dir: string } {
  let machine = '';
  try {
    machine = readFileSync('/etc/machine-id', 'utf8').trim();
  } catch {
    // No machine id (macOS, Windows, some containers): the host name and the folder still tell.
  }
  let real = resolve(dir);
  try {
    real = realpathSync(real);
  } catch {
    // A folder not made yet: its absolute path is what it will be.
  }
  return { host: hostname(), machine, dir: real };
}

function entryName(key: CredentialKey): string {
  return `${key.profile} ${key.baseUrl}`;
}

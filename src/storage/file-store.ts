/**
 * The explicit, visible fallback store: `<config>/credentials.json`, mode 0600, whose entries know
 * the file they were saved in, so a copy of the folder is told from the folder (`savedHere`).
 */
import { closeSync, constants, existsSync, fstatSync, openSync, readFileSync, realpathSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import type * as z from 'zod/mini';
import { CredentialStoreError } from '../errors.js';
import { type FileIdentity, STORE_LOCK_STALE_MS, ensureDir, writeAtomic } from './config.js';
import { type CredentialKey, type CredentialStore, type SavedElsewhere, type StoredTokens, schemas } from './credentials.js';
import { rm } from './fs.js';
import { withLock } from './lock.js';
import { assertTrusted, type TrustHost } from './trust.js';

/** `<config>/credentials.json`, mode 0600, replaced atomically under the store lock. */
export class FileStore implements CredentialStore {
  readonly kind = 'file';
  readonly file: string;

  constructor(
    readonly dir: string,
    private readonly host?: TrustHost,
  ) {
    this.file = join(dir, 'credentials.json');
  }

  /** Every entry, with the identity of the file they were read from (undefined: no file yet). */
  private async readAll(): Promise<{ entries: FileEntries; identity: FileIdentity | undefined }> {
    await assertTrusted(this.dir, 'folder', this.host);
    await assertTrusted(this.file, 'secret-file', this.host);
    let text: string;
    let identity: FileIdentity;
    let fd: number | undefined;
    try {
      // One descriptor for the bytes and the identity: a rename in between cannot mix two files.
      fd = openSync(this.file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
      const info = fstatSync(fd, { bigint: true });
      identity = { dev: String(info.dev), ino: String(info.ino) };
      text = readFileSync(fd, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { entries: {}, identity: undefined };
      throw new CredentialStoreError(`cannot read ${this.file}: ${(error as Error).message}`);
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
    try {
      return { entries: schemas().FileEntries.parse(JSON.parse(text)), identity };
    } catch {
      throw new CredentialStoreError(`${this.file} is corrupt`, { hint: 'delete it and run `rsi login --insecure-storage` again' });
    }
  }

  async probe(): Promise<void> {
    await this.readAll();
  }

  async load(key: CredentialKey): Promise<StoredTokens | undefined> {
    const { entries, identity } = await this.readAll();
    return this.fromDisk(entries[entryName(key)], homeOf(this.dir, identity));
  }

  async save(key: CredentialKey, tokens: StoredTokens): Promise<void> {
    await this.update(key, () => tokens);
  }

  /**
   * An entry as the provider sees it: the file it was saved in is compared with the file it was
   * read from (`savedHere`), and a difference is reported as `copiedFrom` rather than trusted.
   */
  private fromDisk(entry: FileEntry | undefined, here: Home): StoredTokens | undefined {
    if (!entry) return undefined;
    const { home, ...tokens } = entry;
    if (savedHere(home, here)) return tokens;
    const { dir, host, machine } = home!;
    const sameMachine = host === here.host && machine === here.machine;
    const originalHere = sameMachine && dir !== here.dir && existsSync(join(dir, 'credentials.json'));
    return { ...tokens, copiedFrom: { dir, host, originalHere } };
  }

  /**
   * Every profile's tokens share this one file, so each change re-reads it under the store lock
   * and writes it back whole: a rotation saved by another profile a moment ago is never undone.
   */
  async update(key: CredentialKey, fn: (current: StoredTokens | undefined) => StoredTokens | undefined): Promise<void> {
    await this.change(key, (current) => {
      const next = fn(current);
      if (next === undefined) return undefined;
      // Saved here: the entry now belongs to this file (a login, a hand-over or a rotation here).
      const { copiedFrom: _, ...tokens } = next;
      return { ...tokens, refreshToken: next.refreshToken };
    });
  }

  async adopt(key: CredentialKey): Promise<SavedElsewhere | undefined> {
    let was: SavedElsewhere | undefined;
    await this.change(key, (current) => {
      if (!current?.copiedFrom) return undefined;
      was = current.copiedFrom;
      const { copiedFrom: _, ...tokens } = current;
      return tokens;
    });
    return was;
  }

  async delete(key: CredentialKey): Promise<void> {
    await this.locked(async () => {
      const { entries, identity } = await this.readAll();
      if (!(entryName(key) in entries)) return;
      const here = homeOf(this.dir, identity);
      const own = Object.keys(entries).filter((name) => name !== entryName(key) && savedHere(entries[name]!.home, here));
      delete entries[entryName(key)];
      if (Object.keys(entries).length === 0) await rm(this.file, { force: true });
      else await this.writeAll(entries, own);
    });
  }

  /** One entry replaced under the lock (`fn` returns undefined to leave the file as it is). */
  private async change(key: CredentialKey, fn: (current: StoredTokens | undefined) => StoredTokens | undefined): Promise<void> {
    await this.locked(async () => {
      const { entries, identity } = await this.readAll();
      const here = homeOf(this.dir, identity);
      const next = fn(this.fromDisk(entries[entryName(key)], here));
      if (next === undefined) return;
      const own = Object.keys(entries).filter((name) => name !== entryName(key) && savedHere(entries[name]!.home, here));
      entries[entryName(key)] = { ...next, home: here };
      await this.writeAll(entries, [...own, entryName(key)]);
    });
  }

  /**
   * Writes the file whole. Every write makes a new file (a rename over the old one), so the entries
   * that were this file's own (`own`) are stamped with the new file's identity; an entry that came
   * in a copy keeps where it was saved, and stays a copy until it is adopted or replaced.
   */
  private async writeAll(entries: FileEntries, own: readonly string[]): Promise<void> {
    await writeAtomic(
      this.file,
      (file) => {
        const home = { ...homeOf(this.dir, undefined), file };
        for (const name of own) entries[name] = { ...entries[name]!, home };
        return `${JSON.stringify(entries, null, 2)}\n`;
      },
      0o600,
    );
  }

  private async locked(fn: () => Promise<void>): Promise<void> {
    await ensureDir(this.dir);
    await withLock(`${this.file}.lock`, { staleMs: STORE_LOCK_STALE_MS, what: 'update the credentials' }, fn);
  }
}

type FileEntries = z.infer<ReturnType<typeof schemas>['FileEntries']>;
type FileEntry = FileEntries[string];
type Home = NonNullable<FileEntry['home']>;

/**
 * Whether an entry was saved in the file it is read from, told by what a copy is rather than by
 * where it runs. Each write records the file's identity (device and inode): `mv` within a volume, a
 * renamed host and a container recreated over the same volume keep it; `cp -a`, a restored backup
 * and a move to another file system make a new file, which is not trusted until adopted. A volume
 * mounted again may get another device number (they are handed out at mount time): the same inode
 * at the same path is still the same file. An entry saved before rsi recorded the identity is told
 * by the machine id and the folder, not the host name; one with no record at all is trusted.
 */
export function savedHere(home: Home | undefined, here: Home): boolean {
  if (!home) return true;
  if (home.file && here.file) {
    if (home.file.ino !== here.file.ino) return false;
    return home.file.dev === here.file.dev || home.dir === here.dir;
  }
  return home.dir === here.dir && home.machine === here.machine && (home.machine !== '' || home.host === here.host);
}

/**
 * Where an entry is saved: the host name and the machine's id (systemd's /etc/machine-id where
 * there is one), for messages and for entries of earlier versions; the config folder's real path;
 * and the identity of the file read or written, which is what tells a copy.
 */
function homeOf(dir: string, file: FileIdentity | undefined): Home {
  let machine = '';
  try {
    machine = readFileSync('/etc/machine-id', 'utf8').trim();
  } catch {
    // No machine id (macOS, Windows, some containers): the file's identity still tells.
  }
  let real = resolve(dir);
  try {
    real = realpathSync(real);
  } catch {
    // A folder not made yet: its absolute path is what it will be.
  }
  return { host: hostname(), machine, dir: real, ...(file ? { file } : {}) };
}

function entryName(key: CredentialKey): string {
  return `${key.profile} ${key.baseUrl}`;
}

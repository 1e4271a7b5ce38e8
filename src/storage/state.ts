/**
 * rsi's state files (today the update check's answer): small JSON files in a cache folder rsi owns.
 * The folder may sit in a shared place (`XDG_CACHE_HOME=/shared/cache`), so nothing is written
 * through a link: the folder must be the user's and writable by nobody else (the config folder's
 * rules, storage/trust.ts), a link as the folder itself counts only when the user made it, and a
 * file is replaced by a create-exclusive temporary file (O_EXCL never follows a link) renamed over
 * it (a rename replaces a link, never writes through it). Reads never follow a link either.
 */
import * as fs from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../errors.js';
import { currentHost, type TrustHost, type TrustIssue, trustError, trustIssue } from './trust.js';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * rsi's cache folder: $XDG_CACHE_HOME/rsi (the spec: a relative value is ignored),
 * ~/Library/Caches/rsi on macOS, %LOCALAPPDATA%\rsi\Cache on Windows, else ~/.cache/rsi.
 */
export function cacheDir(env: Env, platform: NodeJS.Platform, home: string, joinPath: (...parts: string[]) => string = join): string {
  if (platform === 'win32') return joinPath(env.LOCALAPPDATA || joinPath(home, 'AppData', 'Local'), 'rsi', 'Cache');
  if (platform === 'darwin') return joinPath(home, 'Library', 'Caches', 'rsi');
  return joinPath(env.XDG_CACHE_HOME?.startsWith('/') ? env.XDG_CACHE_HOME : joinPath(home, '.cache'), 'rsi');
}

/** The problem with `dir` as rsi's state folder, if any (absent is fine: rsi creates it). */
export async function stateFolderIssue(dir: string, host: TrustHost = currentHost()): Promise<TrustIssue | undefined> {
  return trustIssue(dir, 'folder', host);
}

/**
 * Creates the folder (mode 0700) if it is missing, tightens a 0755 one rsi made earlier to 0700,
 * and refuses one that is not the user's or that others can write, with the fix in the message.
 */
export async function ensureStateFolder(dir: string, host: TrustHost = currentHost()): Promise<void> {
  const issue = await stateFolderIssue(dir, host);
  if (issue) throw stateError(issue);
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (host.platform !== 'win32' && (fs.statSync(dir).mode & 0o077) !== 0) fs.chmodSync(dir, 0o700);
  } catch (error) {
    throw new ConfigError(`cannot create ${dir}: ${(error as Error).message}`, { cause: error });
  }
  // Made between the check and mkdir by someone else? Then it is theirs: check again.
  const after = await stateFolderIssue(dir, host);
  if (after) throw stateError(after);
}

/** A state folder rsi refuses to use: its message names the folder, the problem and the fix. */
export class StateFolderRefusedError extends ConfigError {}

function stateError(issue: TrustIssue): StateFolderRefusedError {
  return new StateFolderRefusedError(trustError(issue).message, {
    hint: 'another local user could change what rsi keeps there; `rsi doctor` lists such problems',
  });
}

/** The file's JSON, or undefined when it is missing, unreadable, a link, or not JSON. */
export function readState<T>(file: string): T | undefined {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0));
    return JSON.parse(fs.readFileSync(fd, 'utf8')) as T;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/**
 * Replaces `name` in the checked folder `dir` with `value` as JSON: written to a new file no one
 * else can have made (create-exclusive, 0600), then renamed over the old one, so a reader never
 * sees half a file and a link planted in its place is replaced, not written through.
 */
export async function writeState(dir: string, name: string, value: unknown, host: TrustHost = currentHost()): Promise<void> {
  await ensureStateFolder(dir, host);
  const file = join(dir, name);
  const temp = join(dir, `.${name}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
  let fd: number | undefined;
  try {
    fd = fs.openSync(temp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | (fs.constants.O_NOFOLLOW ?? 0), 0o600);
    fs.writeFileSync(fd, `${JSON.stringify(value)}\n`);
    fs.closeSync(fd);
    fd = undefined;
    fs.renameSync(temp, file);
  } catch (error) {
    if (fd !== undefined) fs.closeSync(fd);
    fs.rmSync(temp, { force: true });
    throw new ConfigError(`cannot write ${file}: ${(error as Error).message}`, { cause: error });
  }
}

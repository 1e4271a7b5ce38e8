/**
 * Loads a native addon from bytes (the single executable's keychain addon, src/exe/keyring.ts):
 * written to a folder only this user can reach (mkdtemp: 0700; the file 0600, created
 * exclusively), hashed again from disk and only then handed to `process.dlopen`, so bytes that
 * differ from the build's — or a file changed between write and load — are never loaded.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
export const ASSET = 'keyring.node';

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * Where the addon may be written: the per-user runtime folder first (user-only by the XDG spec,
 * and gone at logout), then the system temp folder, then rsi's cache. A folder mounted `noexec`
 * (a hardened /tmp) refuses the mapping, so the next one is tried.
 */
export function candidateFolders(env: NodeJS.ProcessEnv = process.env): string[] {
  const folders: string[] = [];
  const runtime = env.XDG_RUNTIME_DIR;
  if (runtime?.startsWith('/') && isPrivate(runtime)) folders.push(runtime);
  folders.push(tmpdir());
  if (process.platform !== 'win32') folders.push(join(homedir(), '.cache'));
  return [...new Set(folders)];
}

/** A folder only this user can change: otherwise another user could swap our folder inside it. */
function isPrivate(folder: string): boolean {
  try {
    const info = statSync(folder);
    return info.isDirectory() && info.uid === process.getuid?.() && (info.mode & 0o077) === 0;
  } catch {
    return false;
  }
}

/** Writes, re-hashes and loads the addon; the folder is removed right after (a mapped file stays usable). */
export function loadAddon(
  bytes: Uint8Array,
  expected: string,
  folders: readonly string[],
  dlopen: (module: { exports: unknown }, file: string) => void = process.dlopen,
): unknown {
  if (sha256(bytes) !== expected) throw new Error('the keychain addon inside rsi does not match its build checksum');
  let lastError: unknown;
  for (const folder of folders) {
    let dir: string;
    try {
      dir = mkdtempSync(join(folder, 'rsi-keyring-'));
    } catch (error) {
      lastError = error;
      continue;
    }
    try {
      const file = join(dir, ASSET);
      writeFileSync(file, bytes, { mode: 0o600, flag: 'wx' });
      // What dlopen maps is the file, so the file is what is checked.
      if (sha256(readFileSync(file)) !== expected) throw new Error('the keychain addon changed on disk before it was loaded');
      const module = { exports: {} as unknown };
      dlopen(module, file);
      return module.exports;
    } catch (error) {
      lastError = error;
    } finally {
      // Windows cannot delete a loaded DLL: the empty-handed attempt is harmless there.
      try {
        rmSync(dir, { recursive: true, force: true });
      } catch {}
    }
  }
  throw lastError instanceof Error ? lastError : new Error('the keychain addon could not be loaded');
}

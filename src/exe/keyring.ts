/**
 * `@napi-rs/keyring` inside the single executable (docs/install.md). The exe build aliases the
 * package to this module, so `src/storage/credentials.ts` imports it unchanged. A SEA cannot
 * `require()` a file from its own bytes: the addon for the target platform travels as the asset
 * `keyring.node`, is written to a folder only this user can reach (mkdtemp: 0700; the file 0600,
 * created exclusively), hashed again from disk and only then handed to `process.dlopen`. The
 * expected SHA-256 is the builder's (RSI_KEYRING_SHA256, set by esbuild's define), so an asset that
 * differs from the one it embedded — or a file changed between write and load — is never loaded.
 *
 * Loading happens on first import, which credentials.ts does only when the keychain is used; a
 * missing Secret Service then fails later, in the addon's own calls, exactly as under bin/rsi.js.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import sea from 'node:sea';
import type * as Keyring from '@napi-rs/keyring';

declare const RSI_KEYRING_SHA256: string;

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
export function loadAddon(bytes: Uint8Array, expected: string, folders: readonly string[]): unknown {
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
      process.dlopen(module, file);
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

const binding = loadAddon(new Uint8Array(sea.getRawAsset(ASSET) as ArrayBuffer), RSI_KEYRING_SHA256, candidateFolders()) as typeof Keyring;

export const AsyncEntry = binding.AsyncEntry;
export const Entry = binding.Entry;
export const findCredentials = binding.findCredentials;
export const findCredentialsAsync = binding.findCredentialsAsync;

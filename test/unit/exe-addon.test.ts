// The single executable's native addon loader (src/exe/addon.ts), with the real keychain addon
// from node_modules: loaded only when its bytes match the build's hash, from a user-only file that
// is gone afterwards, trying the next folder when one cannot be used.
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { candidateFolders, loadAddon } from '../../src/exe/addon.js';

const require = createRequire(import.meta.url);
const addonDir = dirname(require.resolve(`@napi-rs/keyring-${process.platform}-${process.arch}-gnu/package.json`));
const addonFile = join(addonDir, readdirSync(addonDir).find((f) => f.endsWith('.node')) ?? '');
const bytes = new Uint8Array(readFileSync(addonFile));
const hash = createHash('sha256').update(bytes).digest('hex');
const skip = process.platform !== 'linux' || !existsSync(addonFile);

describe.skipIf(skip)('loadAddon', () => {
  it('loads the addon from a 0600 file in a 0700 folder and removes both', () => {
    const folder = mkdtempSync(join(tmpdir(), 'rsi-addon-test-'));
    const seen: Array<{ file: number; dir: number }> = [];
    const exports = loadAddon(bytes, hash, [folder], (module, file) => {
      seen.push({ file: statSync(file).mode & 0o777, dir: statSync(dirname(file)).mode & 0o777 });
      process.dlopen(module, file);
    }) as { AsyncEntry: unknown };
    expect(typeof exports.AsyncEntry).toBe('function');
    expect(seen).toEqual([{ file: 0o600, dir: 0o700 }]);
    expect(readdirSync(folder)).toEqual([]);
  });

  it('refuses bytes whose hash is not the build’s, before writing anything', () => {
    const folder = mkdtempSync(join(tmpdir(), 'rsi-addon-test-'));
    let loaded = false;
    expect(() => loadAddon(bytes, '0'.repeat(64), [folder], () => (loaded = true))).toThrow(/does not match its build checksum/);
    expect(loaded).toBe(false);
    expect(readdirSync(folder)).toEqual([]);
  });

  it('tries the next folder when one cannot be written or loaded from', () => {
    const folder = mkdtempSync(join(tmpdir(), 'rsi-addon-test-'));
    const missing = join(folder, 'not-there');
    const refusing = join(folder, 'noexec');
    mkdirSync(refusing);
    const good = join(folder, 'good');
    mkdirSync(good);
    const tried: string[] = [];
    const exports = loadAddon(bytes, hash, [missing, refusing, good], (module, file) => {
      tried.push(dirname(dirname(file)));
      // As a noexec mount answers: the mapping is refused.
      if (file.startsWith(refusing)) throw new Error('failed to map segment from shared object');
      process.dlopen(module, file);
    }) as { Entry: unknown };
    expect(typeof exports.Entry).toBe('function');
    expect(tried).toEqual([refusing, good]);
    expect(readdirSync(refusing)).toEqual([]);
    expect(readdirSync(good)).toEqual([]);
  });

  it('gives the last folder’s error when none works', () => {
    const folder = mkdtempSync(join(tmpdir(), 'rsi-addon-test-'));
    expect(() =>
      loadAddon(bytes, hash, [folder], () => {
        throw new Error('failed to map segment from shared object');
      }),
    ).toThrow(/failed to map segment/);
  });
});

describe('candidateFolders', () => {
  it('uses XDG_RUNTIME_DIR first only when it is this user’s own 0700 folder', () => {
    const own = mkdtempSync(join(tmpdir(), 'rsi-runtime-'));
    chmodSync(own, 0o700);
    expect(candidateFolders({ XDG_RUNTIME_DIR: own })[0]).toBe(own);
    const open = mkdtempSync(join(tmpdir(), 'rsi-runtime-'));
    chmodSync(open, 0o777);
    expect(candidateFolders({ XDG_RUNTIME_DIR: open })).not.toContain(open);
    expect(candidateFolders({ XDG_RUNTIME_DIR: 'relative/dir' })).not.toContain('relative/dir');
    expect(candidateFolders({})).toContain(tmpdir());
  });
});

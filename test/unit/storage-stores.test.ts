import { mkdtemp, readFile, rm, stat, writeFile, readdir } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, CredentialStoreError } from '../../src/errors.js';
import { ConfigStore, configDir, currentConfigHost, writeAtomic, type ConfigHost } from '../../src/storage/config.js';
import { FileStore } from '../../src/storage/file-store.js';
import {
  KEYCHAIN_DIALOG_TIMEOUT_MS,
  KEYCHAIN_TIMEOUT_MS,
  KeychainStore,
  WINDOWS_MAX_SECRET_UNITS,
  configFolderId,
  keychainService,
  keychainTimeoutMs,
  type KeychainEntry,
  type StoredTokens,
} from '../../src/storage/credentials.js';
import { MemoryStore } from '../support/memory-store.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rsi-storage-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const tokens: StoredTokens = {
  accessToken: 'AT',
  refreshToken: 'RT',
  expiresAt: 123,
  obtainedAt: 100,
  scope: 'service:read',
  clientId: 'c1',
};
const key = { baseUrl: 'https://svc.example', profile: 'default' };

describe('configDir', () => {
  const host = (platform: NodeJS.Platform, existing: string[] = []): ConfigHost => ({
    platform,
    exists: (path) => existing.includes(path),
    conventional: () => `<conventional for ${platform}>`,
    move: () => {
      throw new Error('nothing to move here');
    },
  });

  it('prefers RSI_CONFIG_DIR, then XDG_CONFIG_HOME, then ~/.config', () => {
    expect(configDir({ RSI_CONFIG_DIR: '/a', XDG_CONFIG_HOME: '/x', HOME: '/h' })).toBe('/a');
    expect(configDir({ XDG_CONFIG_HOME: '/x', HOME: '/h' })).toBe('/x/rsi');
    expect(configDir({ HOME: '/h' }, host('linux'))).toBe('/h/.config/rsi');
    expect(configDir({ HOME: '/h' }, host('freebsd'))).toBe('/h/.config/rsi');
  });

  it('on Windows: the conventional folder, unless ~/.config/rsi already holds a config (kept, so no sign-in is lost)', () => {
    expect(configDir({ HOME: '/h' }, host('win32'))).toBe('<conventional for win32>');
    expect(configDir({ HOME: '/h' }, host('win32', ['/h/.config/rsi/config.json']))).toBe('/h/.config/rsi');
    expect(configDir({ HOME: '/h', RSI_CONFIG_DIR: '/a' }, host('win32'))).toBe('/a');
  });

  it('on macOS: ~/.config/rsi, as on Linux (config-location.test.ts: the move from ~/Library/Preferences/rsi)', () => {
    expect(configDir({ HOME: '/h' }, host('darwin'))).toBe('/h/.config/rsi');
    expect(configDir({ HOME: '/h', XDG_CONFIG_HOME: '/x' }, host('darwin'))).toBe('/x/rsi');
  });

  it('a relative XDG_CONFIG_HOME is ignored, as the XDG spec says', () => {
    expect(configDir({ HOME: '/h', XDG_CONFIG_HOME: 'relative/cfg' }, host('linux'))).toBe('/h/.config/rsi');
    expect(configDir({ HOME: '/h', XDG_CONFIG_HOME: './cfg' }, host('darwin'))).toBe('/h/.config/rsi');
  });

  it('env-paths gives the conventional places (no "-nodejs" suffix)', () => {
    const real = process.platform;
    const at = (platform: NodeJS.Platform) => {
      Object.defineProperty(process, 'platform', { value: platform });
      try {
        return currentConfigHost.conventional();
      } finally {
        Object.defineProperty(process, 'platform', { value: real });
      }
    };
    expect(at('darwin')).toBe(join(homedir(), 'Library', 'Preferences', 'rsi'));
    expect(at('win32')).toMatch(/[\\/]rsi[\\/]Config$/);
    const xdg = process.env.XDG_CONFIG_HOME;
    expect(at('linux')).toBe(join(xdg || join(homedir(), '.config'), 'rsi'));
  });
});

describe('ConfigStore', () => {
  it('reads an absent file as empty and round-trips a profile in a 0600 file', async () => {
    const config = new ConfigStore(join(dir, 'nested'));
    expect(await config.profile('default')).toBeUndefined();
    await config.updateProfile('default', () => ({ baseUrl: 'https://svc.example', credentialStore: 'file' }));
    expect(await config.profile('default')).toEqual({ baseUrl: 'https://svc.example', credentialStore: 'file' });
    expect((await stat(config.file)).mode & 0o777).toBe(0o600);
    await config.updateProfile('default', () => undefined);
    expect(await config.profile('default')).toBeUndefined();
  });

  it('reports a corrupt file as a ConfigError naming the file, never a crash', async () => {
    const config = new ConfigStore(dir);
    await writeFile(config.file, '{ not json');
    await expect(config.read()).rejects.toThrow(ConfigError);
    await expect(config.read()).rejects.toThrow(/config\.json is not valid JSON/);
    await writeFile(config.file, JSON.stringify({ version: 1, profiles: { default: { baseUrl: 42 } } }));
    const error = (await config.read().catch((e: unknown) => e)) as ConfigError;
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toContain('profiles.default.baseUrl');
    expect(error.hint).toContain('rsi login');
  });

  // Every command read the file and failed, `rsi config unset` included: only deleting the file
  // (and every sign-in with it) got out.
  it('a bad setting names `rsi config unset KEY`, which repairs the file', async () => {
    const config = new ConfigStore(dir);
    await writeFile(
      config.file,
      JSON.stringify({ version: 1, profiles: { p: { baseUrl: 'https://x.example' } }, settings: { format: 'bogus', time: 'absolute' } }),
    );
    const error = (await config.read().catch((e: unknown) => e)) as ConfigError;
    expect(error.message).toContain('settings.format');
    expect(error.hint).toBe('run `rsi config unset format`, or fix it in the file');
    await config.updateSettings(({ format: _, ...rest }) => rest);
    expect(await config.read()).toEqual({ version: 1, profiles: { p: { baseUrl: 'https://x.example' } }, settings: { time: 'absolute' } });
  });

  it('writes atomically: no temporary file is left behind', async () => {
    const file = join(dir, 'x.json');
    await writeAtomic(file, 'one', 0o600);
    await writeAtomic(file, 'two', 0o600);
    expect(await readFile(file, 'utf8')).toBe('two');
    expect(await readdir(dir)).toEqual(['x.json']);
  });
});

describe('FileStore', () => {
  it('keeps tokens per profile and base URL in a 0600 file and deletes the file with the last entry', async () => {
    const store = new FileStore(dir);
    expect(store.kind).toBe('file');
    expect(await store.load(key)).toBeUndefined();
    await store.save(key, tokens);
    const other = { ...key, baseUrl: 'http://127.0.0.1:9' };
    await store.save(other, { ...tokens, accessToken: 'AT2' });
    expect(await store.load(key)).toEqual(tokens);
    expect((await store.load(other))?.accessToken).toBe('AT2');
    expect((await stat(store.file)).mode & 0o777).toBe(0o600);
    await store.delete(key);
    expect(await store.load(key)).toBeUndefined();
    await store.delete(other);
    await expect(stat(store.file)).rejects.toThrow(/ENOENT/);
  });

  it('reports a corrupt credentials file as a CredentialStoreError', async () => {
    const store = new FileStore(dir);
    await writeFile(store.file, '[]');
    await expect(store.load(key)).rejects.toBeInstanceOf(CredentialStoreError);
    await expect(store.probe()).rejects.toBeInstanceOf(CredentialStoreError);
  });
});

describe('MemoryStore and keychain naming', () => {
  it('round-trips and deletes', async () => {
    const store = new MemoryStore();
    await store.save(key, tokens);
    expect(await store.load(key)).toEqual(tokens);
    await store.delete(key);
    expect(await store.load(key)).toBeUndefined();
  });

  it('namespaces keychain entries by base URL', () => {
    expect(keychainService('https://svc.example')).toBe('rsi:https://svc.example');
  });
});

/** An in-memory keychain: service → account → secret, with the entry interface of @napi-rs/keyring. */
function fakeKeychain() {
  const secrets = new Map<string, string>();
  const id = (service: string, account: string) => `${service}|${account}`;
  const openEntry = async (service: string, account: string): Promise<KeychainEntry> => ({
    getPassword: async () => secrets.get(id(service, account)) ?? null,
    setPassword: async (password: string) => void secrets.set(id(service, account), password),
    deleteCredential: async () => secrets.delete(id(service, account)),
  });
  return { secrets, openEntry, accounts: () => [...secrets.keys()].map((k) => k.split('|')[1]).sort() };
}

describe('KeychainStore', () => {
  it('two config folders with the same profile and base URL never share or delete each other’s sign-in', async () => {
    const kc = fakeKeychain();
    const a = new KeychainStore({ configDir: join(dir, 'a'), openEntry: kc.openEntry });
    const b = new KeychainStore({ configDir: join(dir, 'b'), openEntry: kc.openEntry });
    expect(await a.folderId()).not.toBe(await b.folderId());
    await a.save(key, tokens);
    expect(await b.load(key)).toBeUndefined();
    await b.save(key, { ...tokens, accessToken: 'AT-b', refreshToken: 'RT-b' });
    await a.delete(key);
    expect(await a.load(key)).toBeUndefined();
    expect((await b.load(key))?.refreshToken).toBe('RT-b');
    expect(kc.accounts()).toEqual([`default:access@${await b.folderId()}`, `default:refresh@${await b.folderId()}`]);
  });

  it('the folder id is stable for the same folder however it is spelled', async () => {
    expect(await configFolderId(join(dir, 'a'))).toBe(await configFolderId(`${dir}/x/../a/`));
    expect(await configFolderId(join(dir, 'a'))).toMatch(/^[0-9a-f]{12}$/);
  });

  it('an unscoped entry of an earlier version is read once, moved to this folder, and gone for the next folder', async () => {
    const kc = fakeKeychain();
    const service = keychainService(key.baseUrl);
    kc.secrets.set(
      `${service}|default:access`,
      JSON.stringify({ accessToken: 'AT', expiresAt: 123, obtainedAt: 100, scope: 'service:read', clientId: 'c1' }),
    );
    kc.secrets.set(`${service}|default:refresh`, JSON.stringify({ refreshToken: 'RT' }));
    const a = new KeychainStore({ configDir: join(dir, 'a'), openEntry: kc.openEntry });
    expect(await a.load(key)).toEqual(tokens);
    expect(kc.accounts()).toEqual([`default:access@${await a.folderId()}`, `default:refresh@${await a.folderId()}`]);
    expect(await a.load(key)).toEqual(tokens);
    // A second folder would otherwise rotate the same refresh token and trip reuse detection.
    expect(await new KeychainStore({ configDir: join(dir, 'b'), openEntry: kc.openEntry }).load(key)).toBeUndefined();
  });

  it('on Windows, a part over 1,280 UTF-16 units is refused clearly (counted in UTF-16, not UTF-8 bytes)', async () => {
    const kc = fakeKeychain();
    const win = new KeychainStore({ configDir: dir, platform: 'win32', openEntry: kc.openEntry });
    const overhead = JSON.stringify({ refreshToken: '' }).length;
    // 1,280 units exactly fit, even though "é" is two UTF-8 bytes (2,5xx bytes in UTF-8).
    const fits = 'é'.repeat(WINDOWS_MAX_SECRET_UNITS - overhead);
    await win.save(key, { ...tokens, refreshToken: fits });
    expect((await win.load(key))?.refreshToken).toBe(fits);
    const error = (await win.save(key, { ...tokens, refreshToken: `${fits}x` }).catch((e: unknown) => e)) as CredentialStoreError;
    expect(error).toBeInstanceOf(CredentialStoreError);
    expect(error.message).toBe(
      `a token is too large for Windows Credential Manager (${WINDOWS_MAX_SECRET_UNITS + 1} UTF-16 characters, the limit is 1280); nothing was stored`,
    );
    expect(error.hint).toContain('--insecure-storage');
    expect((await win.load(key))?.refreshToken).toBe(fits);
    // Elsewhere the keychains take far larger secrets: no Windows limit is imposed.
    const linux = new KeychainStore({ configDir: dir, platform: 'linux', openEntry: kc.openEntry });
    await linux.save(key, { ...tokens, accessToken: 'x'.repeat(4000) });
    expect((await linux.load(key))?.accessToken).toHaveLength(4000);
  });

  it('time box: long on macOS with a person at the terminal (the "allow access" dialog), short otherwise', () => {
    expect(keychainTimeoutMs('darwin', true)).toBe(KEYCHAIN_DIALOG_TIMEOUT_MS);
    expect(KEYCHAIN_DIALOG_TIMEOUT_MS).toBeGreaterThanOrEqual(60_000);
    expect(keychainTimeoutMs('darwin', false)).toBe(KEYCHAIN_TIMEOUT_MS);
    expect(keychainTimeoutMs('linux', true)).toBe(KEYCHAIN_TIMEOUT_MS);
    expect(keychainTimeoutMs('win32', true)).toBe(KEYCHAIN_TIMEOUT_MS);
    expect(new KeychainStore({ configDir: dir, platform: 'darwin', interactive: true }).timeoutMs).toBe(KEYCHAIN_DIALOG_TIMEOUT_MS);
  });

  it('a keychain that never answers fails within the box with a clear error', async () => {
    const hung = new KeychainStore({
      configDir: dir,
      platform: 'linux',
      openEntry: async () => ({
        getPassword: () => new Promise<never>(() => undefined),
        setPassword: () => new Promise<never>(() => undefined),
        deleteCredential: () => new Promise<never>(() => undefined),
      }),
    });
    (hung as { timeoutMs: number }).timeoutMs = 50;
    await expect(hung.load(key)).rejects.toThrow('cannot read the keychain: the keyring did not answer in time');
  });
});

describe('store-wide lock', () => {
  it('concurrent updates of different profiles in one credentials.json all land', async () => {
    const stores = Array.from({ length: 8 }, () => new FileStore(dir));
    await Promise.all(stores.map((s, i) => s.save({ ...key, profile: `p${i}` }, { ...tokens, accessToken: `AT${i}` })));
    const all = JSON.parse(await readFile(join(dir, 'credentials.json'), 'utf8'));
    expect(Object.keys(all)).toHaveLength(8);
    expect(await readdir(dir)).toEqual(['credentials.json']);
  });

  it('concurrent profile updates in config.json all land', async () => {
    await Promise.all(
      Array.from({ length: 8 }, (_, i) => new ConfigStore(dir).updateProfile(`p${i}`, () => ({ baseUrl: 'https://svc.example' }))),
    );
    expect(Object.keys((await new ConfigStore(dir).read()).profiles)).toHaveLength(8);
  });
});

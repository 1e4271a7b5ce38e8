import { mkdtemp, readFile, rm, stat, writeFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, CredentialStoreError } from '../../src/errors.js';
import { ConfigStore, configDir, writeAtomic } from '../../src/storage/config.js';
import { FileStore, MemoryStore, keychainService, type StoredTokens } from '../../src/storage/credentials.js';

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
  it('prefers RSI_CONFIG_DIR, then XDG_CONFIG_HOME, then ~/.config', () => {
    expect(configDir({ RSI_CONFIG_DIR: '/a', XDG_CONFIG_HOME: '/x', HOME: '/h' })).toBe('/a');
    expect(configDir({ XDG_CONFIG_HOME: '/x', HOME: '/h' })).toBe('/x/rsi');
    expect(configDir({ HOME: '/h' })).toBe('/h/.config/rsi');
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

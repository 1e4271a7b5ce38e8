// macOS's config folder moved from ~/Library/Preferences/rsi to ~/.config/rsi (issue 44): the
// folder is moved on first use, on real files in a temporary home, and the keychain entries scoped
// to the old folder's path follow on the next read, so nobody is signed out.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ConfigHost, configDir, currentConfigHost, formerConfigDirs } from '../../src/storage/config.js';
import { configFolderId, type KeychainEntry, KeychainStore, keychainService } from '../../src/storage/credentials.js';

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'rsi-config-location-'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const mac: ConfigHost = { ...currentConfigHost, platform: 'darwin' };
const old = () => join(home, 'Library', 'Preferences', 'rsi');

function oldConfig(): void {
  mkdirSync(old(), { recursive: true, mode: 0o700 });
  writeFileSync(join(old(), 'config.json'), '{"version":1,"profiles":{}}\n', { mode: 0o600 });
  writeFileSync(join(old(), 'credentials.json'), '{"x":1}\n', { mode: 0o600 });
}

describe('the macOS config folder', () => {
  it('~/Library/Preferences/rsi is moved to ~/.config/rsi on first use, files and modes kept', () => {
    oldConfig();
    const dir = configDir({ HOME: home }, mac);
    expect(dir).toBe(join(home, '.config', 'rsi'));
    expect(readFileSync(join(dir, 'config.json'), 'utf8')).toContain('"version":1');
    expect(existsSync(join(dir, 'credentials.json'))).toBe(true);
    expect(existsSync(old())).toBe(false);
    // Once moved, it stays.
    expect(configDir({ HOME: home }, mac)).toBe(dir);
  });

  it('into an existing ~/.config/rsi without a config of its own: the files are moved into it', () => {
    oldConfig();
    mkdirSync(join(home, '.config', 'rsi'), { recursive: true });
    expect(configDir({ HOME: home }, mac)).toBe(join(home, '.config', 'rsi'));
    expect(existsSync(join(home, '.config', 'rsi', 'config.json'))).toBe(true);
    expect(existsSync(join(home, '.config', 'rsi', 'credentials.json'))).toBe(true);
  });

  it('a ~/.config/rsi with its own config wins, and the old folder is left alone', () => {
    oldConfig();
    mkdirSync(join(home, '.config', 'rsi'), { recursive: true });
    writeFileSync(join(home, '.config', 'rsi', 'config.json'), '{"version":1,"profiles":{"new":{}}}\n');
    expect(configDir({ HOME: home }, mac)).toBe(join(home, '.config', 'rsi'));
    expect(existsSync(join(old(), 'config.json'))).toBe(true);
  });

  it('a move that fails keeps the old folder in use', () => {
    oldConfig();
    const stuck: ConfigHost = {
      ...mac,
      move: () => {
        throw new Error('EXDEV');
      },
    };
    expect(configDir({ HOME: home }, stuck)).toBe(old());
  });

  it('the old folder is a former one only where rsi chose the folder itself', () => {
    expect(formerConfigDirs({ HOME: home }, mac)).toEqual([old()]);
    expect(formerConfigDirs({ HOME: home, RSI_CONFIG_DIR: '/a' }, mac)).toEqual([]);
    expect(formerConfigDirs({ HOME: home, XDG_CONFIG_HOME: '/x' }, mac)).toEqual([]);
    expect(formerConfigDirs({ HOME: home }, { platform: 'linux' })).toEqual([]);
  });

  it("the keychain entries of the old folder move to the new one's name on the first read", async () => {
    const secrets = new Map<string, string>();
    const openEntry = async (service: string, account: string): Promise<KeychainEntry> => ({
      getPassword: async () => secrets.get(`${service}|${account}`) ?? null,
      setPassword: async (password: string) => void secrets.set(`${service}|${account}`, password),
      deleteCredential: async () => secrets.delete(`${service}|${account}`),
    });
    const key = { baseUrl: 'https://svc.test', profile: 'default' };
    const service = keychainService(key.baseUrl);
    const oldId = await configFolderId(old());
    secrets.set(
      `${service}|default:access@${oldId}`,
      JSON.stringify({ accessToken: 'AT', expiresAt: 2, obtainedAt: 1, scope: 's', clientId: 'c' }),
    );
    secrets.set(`${service}|default:refresh@${oldId}`, JSON.stringify({ refreshToken: 'RT' }));
    const store = new KeychainStore({ configDir: join(home, '.config', 'rsi'), formerConfigDirs: [old()], openEntry, platform: 'darwin' });
    expect(await store.load(key)).toMatchObject({ accessToken: 'AT', refreshToken: 'RT' });
    const newId = await store.folderId();
    expect([...secrets.keys()].sort()).toEqual([`${service}|default:access@${newId}`, `${service}|default:refresh@${newId}`]);
  });
});

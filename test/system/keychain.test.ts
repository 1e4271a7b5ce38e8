// The real OS keychain: a private D-Bus session with gnome-keyring (the Secret Service), so the
// developer's own keychain is never touched. Tokens must be in the Secret Service, seen from
// outside with secret-tool, and in no file. Entries are scoped to the config folder; the unscoped
// entry of earlier versions is migrated once. No file under the real HOME changes.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { keyringPart, skipWithout } from '../support/system.js';
import { startPrivateKeyring, type PrivateKeyring } from '../support/keyring.js';
import { configFolderId } from '../../src/storage/credentials.js';
import { startSandbox, type InProcessSandbox } from '../support/inproc.js';
import { FAKE_BROWSER } from '../support/browser.js';

const skip = skipWithout(keyringPart());

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath ?? (e as unknown as { path: string }).path, e.name));
}

/** Path → "mtime size" of every file under the real ~/.local/share/keyrings (empty if absent). */
function realKeyrings(): Record<string, string> {
  const dir = join(process.env.HOME ?? homedir(), '.local', 'share', 'keyrings');
  if (!existsSync(dir)) return {};
  return Object.fromEntries(
    filesUnder(dir).map((f) => {
      const s = statSync(f);
      return [f, `${s.mtimeMs} ${s.size}`];
    }),
  );
}

describe.skipIf(skip)('credentials in the Secret Service (gnome-keyring)', () => {
  let keyring: PrivateKeyring;
  let sandbox: InProcessSandbox;
  const dir = mkdtempSync(join(tmpdir(), 'rsi-keychain-'));
  let id: string;
  const realBefore = realKeyrings();

  beforeAll(async () => {
    id = await configFolderId(dir);
    [keyring, sandbox] = await Promise.all([startPrivateKeyring(), startSandbox(['--auto-approve'])]);
  });
  afterAll(async () => {
    const privateKeyrings = existsSync(join(keyring.dataHome, 'keyrings')) ? readdirSync(join(keyring.dataHome, 'keyrings')) : [];
    await Promise.all([keyring?.stop(), sandbox?.stop()]);
    // The daemon kept its collections in the private data folder, and the real ones are untouched.
    expect(privateKeyrings.length).toBeGreaterThan(0);
    expect(realKeyrings()).toEqual(realBefore);
  });

  const env = (folder = dir): Record<string, string> => ({ RSI_CONFIG_DIR: folder, ...keyring.env });
  const secretTool = (args: string[], input?: string) =>
    spawnSync('secret-tool', args, { env: { ...process.env, ...keyring.env }, encoding: 'utf8', input });
  const lookup = (account: string): string => secretTool(['lookup', 'service', `rsi:${sandbox.url}`, 'username', account]).stdout;

  it('login stores the tokens in the keychain and in no file', async () => {
    const r = await runCli(['login', '--base-url', sandbox.url], { env: { ...env(), BROWSER: FAKE_BROWSER } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('OS keychain');
    const access = JSON.parse(lookup(`default:access@${id}`)) as { accessToken: string };
    const refresh = JSON.parse(lookup(`default:refresh@${id}`)) as { refreshToken: string };
    expect(access.accessToken.length).toBeGreaterThan(20);
    expect(refresh.refreshToken.length).toBeGreaterThan(20);
    for (const file of filesUnder(dir)) {
      const text = readFileSync(file, 'utf8');
      expect(text, file).not.toContain(access.accessToken);
      expect(text, file).not.toContain(refresh.refreshToken);
    }
    for (const secret of [access.accessToken, refresh.refreshToken]) expect(r.stdout + r.stderr).not.toContain(secret);
    expect(filesUnder(dir).map((f) => f.slice(dir.length + 1))).toEqual(['config.json']);
    expect(statSync(join(dir, 'config.json')).mode & 0o077).toBe(0);
  });

  it('commands use the keychain token; auth status says so', async () => {
    const list = await runCli(['projects', 'list', '--json'], { env: env() });
    expect(list.code, list.stderr).toBe(0);
    const status = await runCli(['auth', 'status', '--json'], { env: env() });
    expect(JSON.parse(status.stdout)).toMatchObject({ source: 'keychain', signedIn: true });
    const doctor = await runCli(['doctor'], { env: env() });
    expect(doctor.stdout).toMatch(/✓ keychain: reachable and unlocked/);
  });

  it('another config folder with the same profile has its own sign-in, and its logout leaves ours', async () => {
    const other = mkdtempSync(join(tmpdir(), 'rsi-keychain-other-'));
    const before = lookup(`default:refresh@${id}`);
    const login = await runCli(['login', '--base-url', sandbox.url], { env: { ...env(other), BROWSER: FAKE_BROWSER } });
    expect(login.code, login.stderr).toBe(0);
    expect(lookup(`default:refresh@${await configFolderId(other)}`)).not.toBe('');
    expect((await runCli(['logout'], { env: env(other) })).code).toBe(0);
    expect(lookup(`default:refresh@${id}`)).toBe(before);
    expect((await runCli(['projects', 'list', '--json'], { env: env() })).code).toBe(0);
  });

  it('an unscoped entry from an earlier version is used once and moved under this folder', async () => {
    // Put this folder's sign-in back under the old, unscoped names.
    for (const part of ['access', 'refresh']) {
      const secret = lookup(`default:${part}@${id}`);
      const stored = secretTool(['store', '--label=rsi', 'service', `rsi:${sandbox.url}`, 'username', `default:${part}`], secret);
      expect(stored.status, stored.stderr).toBe(0);
      secretTool(['clear', 'service', `rsi:${sandbox.url}`, 'username', `default:${part}@${id}`]);
    }
    const list = await runCli(['projects', 'list', '--json'], { env: env() });
    expect(list.code, list.stderr).toBe(0);
    expect(lookup('default:refresh')).toBe('');
    expect(lookup(`default:refresh@${id}`)).not.toBe('');
  });

  it('logout removes the entries from the keychain', async () => {
    const r = await runCli(['logout'], { env: env() });
    expect(r.code, r.stderr).toBe(0);
    expect(lookup(`default:access@${id}`)).toBe('');
    expect(lookup(`default:refresh@${id}`)).toBe('');
  });
});

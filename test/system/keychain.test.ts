// The real OS keychain: a private D-Bus session with gnome-keyring (the Secret Service), so the
// developer's own keychain is never touched. Tokens must be in the Secret Service, seen from
// outside with secret-tool, and in no file.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { startSandbox, type SandboxProcess } from '../support/sandbox.js';
import { keyringPart, skipWithout } from '../support/system.js';
import { startPrivateKeyring, type PrivateKeyring } from '../support/keyring.js';

const skip = skipWithout(keyringPart());
const FAKE_BROWSER = `${process.execPath} ${fileURLToPath(new URL('../support/fake-browser.mjs', import.meta.url))}`;

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath ?? (e as unknown as { path: string }).path, e.name));
}

describe.skipIf(skip)('credentials in the Secret Service (gnome-keyring)', () => {
  let keyring: PrivateKeyring;
  let sandbox: SandboxProcess;
  const dir = mkdtempSync(join(tmpdir(), 'rsi-keychain-'));

  beforeAll(async () => {
    [keyring, sandbox] = await Promise.all([startPrivateKeyring(), startSandbox(['--auto-approve'])]);
  }, 30_000);
  afterAll(async () => {
    await Promise.all([keyring?.stop(), sandbox?.stop()]);
  });

  const env = (): Record<string, string> => ({ RSI_CONFIG_DIR: dir, ...keyring.env });
  const lookup = (account: string): string =>
    spawnSync('secret-tool', ['lookup', 'service', `rsi:${sandbox.url}`, 'username', account], {
      env: { ...process.env, ...keyring.env },
      encoding: 'utf8',
    }).stdout;

  it('login stores the tokens in the keychain and in no file', async () => {
    const r = await runCli(['login', '--base-url', sandbox.url], { env: { ...env(), BROWSER: FAKE_BROWSER } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('OS keychain');
    const access = JSON.parse(lookup('default:access')) as { accessToken: string };
    const refresh = JSON.parse(lookup('default:refresh')) as { refreshToken: string };
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

  it('logout removes the entries from the keychain', async () => {
    const r = await runCli(['logout'], { env: env() });
    expect(r.code, r.stderr).toBe(0);
    expect(lookup('default:access')).toBe('');
    expect(lookup('default:refresh')).toBe('');
  });
});

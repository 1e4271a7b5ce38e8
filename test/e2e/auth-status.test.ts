// `auth status` asks the service: real `bin/rsi.js` processes against a real sandbox with short-lived
// tokens. A working sign-in says so (exit 0); a refused refresh and a rejected RSI_TOKEN or
// RSI_MCP_TOKEN are "not signed in", and the profile in use failing exits 3, --json alike;
// --offline reports only what is stored.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expireTokens } from '../support/sandbox.js';
import { runCli, startSandbox, type InProcessSandbox } from '../support/inproc.js';
import { FAKE_BROWSER } from '../support/browser.js';

let sb: InProcessSandbox;
const dirs: string[] = [];

beforeAll(async () => {
  sb = await startSandbox(['--auto-approve', '--quiet', '--token-ttl', '60']);
});
afterAll(async () => {
  await sb?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function signedIn(): Promise<{ dir: string; env: Record<string, string> }> {
  const dir = mkdtempSync(join(tmpdir(), 'rsi-auth-status-'));
  dirs.push(dir);
  const env = { RSI_CONFIG_DIR: dir, RSI_CREDENTIAL_STORE: 'file' };
  const r = await runCli(['login', '--base-url', sb.url], { env: { ...env, BROWSER: FAKE_BROWSER } });
  expect(r.code, r.stderr).toBe(0);
  return { dir, env };
}

function stored(dir: string): Record<string, { accessToken: string; refreshToken?: string }> {
  return JSON.parse(readFileSync(join(dir, 'credentials.json'), 'utf8'));
}

describe('auth status checks with the service', () => {
  it('a working sign-in: the service accepts it, exit 0', async () => {
    const { env } = await signedIn();
    const r = await runCli(['auth', 'status'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^check +the service accepts it$/m);
    const json = await runCli(['auth', 'status', '--json'], { env });
    expect(JSON.parse(json.stdout)).toMatchObject({ signedIn: true, checked: true, problem: null });
  });

  it('an expired token whose refresh is refused: not signed in, exit 3; --offline only reports', async () => {
    const { dir, env } = await signedIn();
    const revoke = await fetch(`${sb.url}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: Object.values(stored(dir))[0]!.refreshToken! }),
    });
    expect(revoke.status).toBe(200);
    await expireTokens(sb, dir, 61);

    const r = await runCli(['auth', 'status'], { env });
    expect(r.code, r.stderr).toBe(3);
    expect(r.stdout).toMatch(/^check +NOT SIGNED IN: the refresh was refused/m);
    expect(r.stderr).toMatch(/^rsi: not signed in \(profile default\): the refresh was refused/m);
    expect(r.stderr).toContain(`hint: run \`rsi login --base-url ${sb.url}\``);

    const json = await runCli(['auth', 'status', '--json'], { env });
    expect(json.code).toBe(3);
    const doc = JSON.parse(json.stdout);
    expect(doc).toMatchObject({ profile: 'default', signedIn: false, checked: true });
    expect(doc.problem).toMatch(/refresh was refused/);
    expect(doc.profiles[0]).toMatchObject({ profile: 'default', signedIn: false });

    const offline = await runCli(['auth', 'status', '--offline'], { env });
    expect(offline.code, offline.stderr).toBe(0);
    expect(offline.stdout).toMatch(/^check +not checked \(--offline\)$/m);
  });

  it('a rejected RSI_TOKEN is not signed in: exit 3, the hint names RSI_TOKEN', async () => {
    const r = await runCli(['auth', 'status', '--json'], {
      env: { RSI_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'rsi-auth-status-')), RSI_BASE_URL: sb.url, RSI_TOKEN: 'garbage' },
    });
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stdout)).toMatchObject({ source: 'RSI_TOKEN', signedIn: false, checked: true });
    expect(r.stderr).toMatch(/^hint: RSI_TOKEN was rejected/m);
    expect(r.stdout + r.stderr).not.toContain('garbage');
  });

  it('a rejected RSI_MCP_TOKEN shows the MCP sign-in as not signed in', async () => {
    const { env } = await signedIn();
    const r = await runCli(['auth', 'status', '--json'], { env: { ...env, RSI_MCP_TOKEN: 'not-a-token' } });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).mcp).toMatchObject({ source: 'RSI_MCP_TOKEN', signedIn: false, checked: true });
    const text = await runCli(['auth', 'status'], { env: { ...env, RSI_MCP_TOKEN: 'not-a-token' } });
    expect(text.stdout).toMatch(/^MCP check +NOT SIGNED IN: the MCP server rejected the token/m);
  });

  it('every profile is checked: another profile whose sign-in was revoked shows why', async () => {
    const { dir, env } = await signedIn();
    const other = await runCli(['--profile', 'work', 'login', '--base-url', sb.url], { env: { ...env, BROWSER: FAKE_BROWSER } });
    expect(other.code, other.stderr).toBe(0);
    const work = Object.entries(stored(dir)).find(([k]) => k.startsWith('work '))![1];
    await fetch(`${sb.url}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: work.refreshToken! }),
    });
    const r = await runCli(['auth', 'status', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    const profiles = JSON.parse(r.stdout).profiles as Array<{ profile: string; signedIn: boolean; problem: string | null }>;
    expect(profiles.find((p) => p.profile === 'default')).toMatchObject({ signedIn: true });
    expect(profiles.find((p) => p.profile === 'work')).toMatchObject({ signedIn: false });
  });
});

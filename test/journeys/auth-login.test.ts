// Sign-in end to end: real `bin/rsi.js` processes against a real sandbox, with the file store in a
// temporary config folder (the keychain has its own system test). Covers the $BROWSER flow,
// --no-browser with a pasted URL, wrong state, denial, timeout, logout, the missing-keychain hint,
// and 16 concurrent processes sharing one refresh.
import { mkdtempSync, readFileSync, existsSync, statSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { startLogin } from '../support/login.js';
import { expireTokens, sandboxStats, startSandbox, type SandboxProcess } from '../support/sandbox.js';
import { FAKE_BROWSER } from '../support/browser.js';

let auto: SandboxProcess;
let consent: SandboxProcess;
// The sign-in tests run side by side (each has its own config folder; most of their time is rsi
// starting and waiting), and every first login registers a client, so the test that counts
// registrations has a sandbox to itself.
let counted: SandboxProcess;

beforeAll(async () => {
  [auto, consent, counted] = await Promise.all([startSandbox(['--auto-approve']), startSandbox([]), startSandbox(['--auto-approve'])]);
});
afterAll(async () => {
  await Promise.all([auto?.stop(), consent?.stop(), counted?.stop()]);
});

function freshDir(): string {
  return mkdtempSync(join(tmpdir(), 'rsi-auth-'));
}

function fileEnv(dir: string, extra: Record<string, string> = {}): Record<string, string> {
  return { RSI_CONFIG_DIR: dir, RSI_CREDENTIAL_STORE: 'file', ...extra };
}

function credentials(dir: string): Record<string, { accessToken: string; refreshToken?: string }> {
  return JSON.parse(readFileSync(join(dir, 'credentials.json'), 'utf8'));
}

/** Every secret that must never be printed. */
function secretsOf(dir: string): string[] {
  return Object.values(credentials(dir))
    .flatMap((c) => [c.accessToken, c.refreshToken ?? ''])
    .filter(Boolean);
}

async function login(dir: string, base: string, extra: string[] = [], env: Record<string, string> = {}) {
  return runCli(['login', '--base-url', base, ...extra], { env: fileEnv(dir, { BROWSER: FAKE_BROWSER, ...env }) });
}

/** Starts `rsi login --no-browser` with a live stdin; resolves with the authorization URL it printed. */
function startInteractiveLogin(dir: string, base: string, extra: string[] = []) {
  return startLogin(['--base-url', base, '--no-browser', ...extra], fileEnv(dir));
}

describe.concurrent('rsi login', () => {
  it('signs in through $BROWSER, prints the granted scopes, stores a 0600 file and prints no token', async ({ expect }) => {
    const dir = freshDir();
    const r = await login(dir, auto.url);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('Signed in to');
    expect(r.stderr).toContain('Scopes: service:read projects:write analyses:run');
    expect(r.stderr).toContain(`${auto.url}/oauth/authorize?`);
    expect(statSync(join(dir, 'credentials.json')).mode & 0o777).toBe(0o600);
    for (const secret of secretsOf(dir)) expect(r.stderr + r.stdout).not.toContain(secret);
    // The config holds no secret.
    const config = readFileSync(join(dir, 'config.json'), 'utf8');
    for (const secret of secretsOf(dir)) expect(config).not.toContain(secret);

    const status = await runCli(['auth', 'status', '--json'], { env: fileEnv(dir) });
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({
      profile: 'default',
      baseUrl: auto.url,
      source: 'file',
      signedIn: true,
      scopes: ['service:read', 'projects:write', 'analyses:run'],
    });
    const list = await runCli(['projects', 'list', '--json'], { env: fileEnv(dir) });
    expect(list.code, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout).projects.length).toBeGreaterThan(0);
  });

  it('warns when fewer scopes are granted than requested, and reuses the cached registration', async ({ expect }) => {
    const dir = freshDir();
    expect((await login(dir, counted.url, ['--scope', 'service:read'])).code).toBe(0);
    const before = await sandboxStats(counted.url);
    const again = await login(dir, counted.url, ['--scope', 'service:read']);
    expect(again.code).toBe(0);
    expect((await sandboxStats(counted.url)).registrations).toBe(before.registrations);
    const create = await runCli(['projects', 'create', '--name', 'no scope'], { env: fileEnv(dir) });
    expect(create.code).toBe(4);
    expect(create.stderr).toContain('projects:write');
  });

  it('--no-browser accepts the redirected URL pasted on stdin', async ({ expect }) => {
    const dir = freshDir();
    const login = startInteractiveLogin(dir, auto.url);
    const authorize = await login.url;
    const res = await fetch(authorize, { redirect: 'manual' });
    const callback = res.headers.get('location')!;
    expect(callback).toContain('code=');
    login.child.stdin.write(`${callback}\n`);
    const r = await login.done;
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(dir, 'credentials.json'))).toBe(true);
    for (const secret of secretsOf(dir)) expect(r.stderr).not.toContain(secret);
  });

  it('a pasted callback with the wrong state is refused and the wait goes on; nothing is stored', async ({ expect }) => {
    const dir = freshDir();
    const login = startInteractiveLogin(dir, auto.url);
    const authorize = await login.url;
    const callback = new URL((await fetch(authorize, { redirect: 'manual' })).headers.get('location')!);
    callback.searchParams.set('state', 'forged');
    login.child.stdin.write(`${callback}\n`);
    let seen = '';
    login.child.stderr.on('data', (c: string | Buffer) => void (seen += c.toString()));
    await expect.poll(() => seen).toContain('belongs to another sign-in (its state does not match)');
    login.child.kill('SIGINT');
    const r = await login.done;
    expect(r.code).toBe(130);
    expect(existsSync(join(dir, 'credentials.json'))).toBe(false);
  });

  it('Deny on the consent page ends the wait at once: exit 3, nothing stored', async ({ expect }) => {
    const dir = freshDir();
    const login = startInteractiveLogin(dir, consent.url);
    const page = await (await fetch(await login.url)).text();
    const requestId = /name="request" value="([^"]+)"/.exec(page)![1]!;
    const decision = await fetch(`${consent.url}/oauth/authorize/decision`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ request: requestId, decision: 'deny' }),
      redirect: 'follow',
    });
    expect(await decision.text()).toContain('Sign-in failed');
    const r = await login.done;
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('denied');
    expect(existsSync(join(dir, 'credentials.json'))).toBe(false);
  });

  it('times out with exit 3 and stores nothing', async ({ expect }) => {
    const dir = freshDir();
    const r = await runCli(['login', '--base-url', consent.url, '--timeout', '1'], { env: fileEnv(dir, { BROWSER: 'true' }) });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^rsi: timed out after 1 s/m);
    // The hint names the ways in where no browser can reach this machine.
    // Both carry the --base-url this run was given: the profile has none saved yet.
    const base = consent.url.replace(/[.]/g, '\\.');
    expect(r.stderr).toMatch(
      new RegExp(
        `^hint: .*rsi login --base-url ${base} --no-browser.*rsi login --base-url ${base} --port 8765.*ssh -L 8765:127\\.0\\.0\\.1:8765`,
        'm',
      ),
    );
    expect(existsSync(join(dir, 'credentials.json'))).toBe(false);
  });

  it('Ctrl-C while waiting exits 130, closes the listener and stores nothing', async ({ expect }) => {
    const dir = freshDir();
    const login = startInteractiveLogin(dir, consent.url);
    const redirect = new URL(new URL(await login.url).searchParams.get('redirect_uri')!);
    login.child.kill('SIGINT');
    const r = await login.done;
    expect(r.code).toBe(130);
    expect(existsSync(join(dir, 'credentials.json'))).toBe(false);
    await expect(fetch(redirect, { signal: AbortSignal.timeout(1000) })).rejects.toThrow();
  });

  it('refuses http:// for a non-loopback host and other schemes, before any request', async ({ expect }) => {
    for (const base of ['http://example.com', 'ftp://127.0.0.1', 'not a url']) {
      const r = await runCli(['login', '--base-url', base], { env: fileEnv(freshDir()) });
      expect(r.code, base).toBe(2);
      expect(r.stderr).toMatch(/^rsi: --base-url/);
    }
  });

  it('without a reachable keychain: the credentials exit code (3) naming --insecure-storage, nothing written', async ({ expect }) => {
    const dir = freshDir();
    const r = await runCli(['login', '--base-url', auto.url], { env: { RSI_CONFIG_DIR: dir, BROWSER: FAKE_BROWSER } });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^rsi: no usable OS keychain/m);
    expect(r.stderr).toContain('--insecure-storage');
    expect(existsSync(join(dir, 'credentials.json'))).toBe(false);
    const ok = await runCli(['login', '--base-url', auto.url, '--insecure-storage'], {
      env: { RSI_CONFIG_DIR: dir, BROWSER: FAKE_BROWSER },
    });
    expect(ok.code, ok.stderr).toBe(0);
    expect(statSync(join(dir, 'credentials.json')).mode & 0o777).toBe(0o600);
  });
});

describe.concurrent('logout, tokens and status', () => {
  it('logout revokes at the service: the old token then gets 401 → exit 3', async ({ expect }) => {
    const dir = freshDir();
    expect((await login(dir, auto.url)).code).toBe(0);
    const [old] = Object.values(credentials(dir));
    const out = await runCli(['logout'], { env: fileEnv(dir) });
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr).toContain('Signed out');
    expect(existsSync(join(dir, 'credentials.json'))).toBe(false);
    const afterLocal = await runCli(['projects', 'list'], { env: fileEnv(dir) });
    expect(afterLocal.code).toBe(3);
    expect(afterLocal.stderr).toContain('hint: run `rsi login');
    const revoked = await runCli(['projects', 'list'], {
      env: { RSI_TOKEN: old!.accessToken, RSI_BASE_URL: auto.url, RSI_CONFIG_DIR: dir },
    });
    expect(revoked.code).toBe(3);
    expect(revoked.stdout).toBe('');
  });

  it('auth token prints the token; auth status never does, and says when RSI_TOKEN hides a login', async ({ expect }) => {
    const dir = freshDir();
    expect((await login(dir, auto.url)).code).toBe(0);
    const token = await runCli(['auth', 'token'], { env: fileEnv(dir) });
    expect(token.code).toBe(0);
    expect(token.stdout.trim()).toBe(Object.values(credentials(dir))[0]!.accessToken);
    // --offline: the service would reject this made-up token (exit 3, see auth-status.test.ts).
    const status = await runCli(['auth', 'status', '--offline'], { env: fileEnv(dir, { RSI_TOKEN: 'env-token-value' }) });
    expect(status.code).toBe(0);
    expect(status.stdout).toContain('RSI_TOKEN');
    expect(status.stdout + status.stderr).not.toContain('env-token-value');
    expect(status.stderr).toContain('not being used');
    for (const secret of secretsOf(dir)) expect(status.stdout + status.stderr).not.toContain(secret);
  });

  it('--debug traces requests with every secret redacted', async ({ expect }) => {
    const dir = freshDir();
    const r = await runCli(['--debug', 'login', '--base-url', auto.url], { env: fileEnv(dir, { BROWSER: FAKE_BROWSER }) });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('> POST');
    expect(r.stderr).toContain('[redacted]');
    const list = await runCli(['--debug', 'projects', 'list'], { env: fileEnv(dir) });
    expect(list.stderr).toContain('authorization: [redacted]');
    for (const secret of secretsOf(dir)) expect(r.stderr + list.stderr).not.toContain(secret);
    expect(r.stderr).not.toMatch(/code_verifier=(?!%5Bredacted%5D|\[redacted\])/);
  });
});

describe('refresh', () => {
  let short: SandboxProcess;
  // Tokens live 10 minutes, and the clock jumps past that: a refreshed token must outlive the
  // slowest of the 16 processes on a busy machine (with 8 s, a process that started 9 s after the
  // refresh found the new token expired too and refreshed again: two refreshes under load).
  beforeAll(async () => {
    short = await startSandbox(['--auto-approve', '--token-ttl', '600']);
  });
  afterAll(async () => {
    await short?.stop();
  });

  it('16 processes started after the token expired share exactly one refresh, and the next call works', async () => {
    const dir = freshDir();
    expect((await login(dir, short.url)).code).toBe(0);
    const first = Object.values(credentials(dir))[0]!;
    // The 10-minute lifetime passes on both sides (a clock jump, not a sleep).
    await expireTokens(short, dir, 601);
    const before = await sandboxStats(short.url);
    const runs = await Promise.all(Array.from({ length: 16 }, () => runCli(['projects', 'list', '--json'], { env: fileEnv(dir) })));
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    const after = await sandboxStats(short.url);
    expect(after.tokens.refreshed - before.tokens.refreshed).toBe(1);
    const now = Object.values(credentials(dir))[0]!;
    expect(now.refreshToken).not.toBe(first.refreshToken);
    const next = await runCli(['projects', 'list'], { env: fileEnv(dir) });
    expect(next.code, next.stderr).toBe(0);
    // No lock file is left behind.
    expect(readdirSync(dir).filter((f) => f.endsWith('.lock'))).toEqual([]);
  });

  it('a refresh token refused by the server: exit 3, and the stored tokens are kept for the next login', async () => {
    const dir = freshDir();
    expect((await login(dir, short.url)).code).toBe(0);
    const stored = Object.values(credentials(dir))[0]!;
    // Use the refresh token behind rsi's back: the rotation makes rsi's copy a reused token.
    const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
    const clientId = config.profiles.default.client.clientId;
    const rotated = await fetch(`${short.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: stored.refreshToken!, client_id: clientId }),
    });
    expect(rotated.status).toBe(200);
    // The 10-minute lifetime passes on both sides (a clock jump, not a sleep).
    await expireTokens(short, dir, 601);
    const r = await runCli(['projects', 'list'], { env: fileEnv(dir) });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('rsi login');
    expect(Object.values(credentials(dir))[0]!.refreshToken).toBe(stored.refreshToken);
  });
});

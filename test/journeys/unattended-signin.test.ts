// Sign-ins that survive unattended use (issue 46), through real processes against a real sandbox
// with the file store: a refresh killed by SIGKILL does not make the next run wait for its lock, and
// `rsi login --with-token` moves a sign-in to a CI machine that then rotates it on its own. Copies,
// moves and renamed hosts: test/journeys/signin-moves.test.ts.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHILD_BOUND_MS, RSI_BIN, cleanEnv, runCli } from '../support/cli.js';
import { expireTokens } from '../support/sandbox.js';
import { type InProcessSandbox, startSandbox } from '../support/inproc.js';
import { FAKE_BROWSER } from '../support/browser.js';

let sandbox: InProcessSandbox;
const dirs: string[] = [];
beforeAll(async () => {
  // Every answer takes 300 ms, so a refresh is still in flight when the test kills it.
  sandbox = await startSandbox(['--auto-approve', '--quiet', '--latency', '300']);
});
afterAll(async () => {
  await sandbox?.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'rsi-unattended-'));
  dirs.push(dir);
  return dir;
}
const envOf = (dir: string) => ({ RSI_CONFIG_DIR: dir, RSI_CREDENTIAL_STORE: 'file', BROWSER: FAKE_BROWSER });
const rsi = (dir: string, args: string[], input?: string) => runCli(args, { env: envOf(dir), ...(input === undefined ? {} : { input }) });
const stored = (dir: string): Record<string, { refreshToken?: string; accessToken: string }> =>
  JSON.parse(readFileSync(join(dir, 'credentials.json'), 'utf8'));
const refreshTokenOf = (dir: string) => Object.values(stored(dir))[0]?.refreshToken;

async function signedInFolder(): Promise<string> {
  const dir = folder();
  const r = await rsi(dir, ['login', '--base-url', sandbox.url]);
  expect(r.code, r.stderr).toBe(0);
  return dir;
}

async function timed<T>(work: () => Promise<T>): Promise<T & { seconds: number }> {
  const started = Date.now();
  const result = await work();
  return { ...result, seconds: (Date.now() - started) / 1000 };
}

describe('a refresh killed mid-way', () => {
  it('leaves a lock the next run takes over at once, since its holder is gone', async () => {
    const dir = await signedInFolder();
    await expireTokens(sandbox, dir, 3600);
    // Killed once its token request is on the wire (the --debug trace says so).
    const killed = await new Promise<{ signal: NodeJS.Signals | null }>((resolve, reject) => {
      const child = spawn(process.execPath, [RSI_BIN, 'projects', 'list', '--debug'], {
        env: cleanEnv(envOf(dir)),
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let err = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        err += chunk;
        if (/^> POST \S*\/oauth\/token/m.test(err)) child.kill('SIGKILL');
      });
      const bound = setTimeout(() => child.kill('SIGKILL'), CHILD_BOUND_MS);
      child.on('error', reject);
      child.on('close', (_code, signal) => {
        clearTimeout(bound);
        resolve({ signal });
      });
    });
    expect(killed.signal).toBe('SIGKILL');
    // The dead process's lock is still there, fresh (a stale-by-age rule would wait ~20 s for it).
    expect(statSync(join(dir, 'refresh-default.lock')).isDirectory()).toBe(true);
    const next = await timed(() => rsi(dir, ['projects', 'list', '--json']));
    expect(next.stderr).not.toMatch(/waiting for another rsi process/);
    expect(next.seconds).toBeLessThan(15);
    // Whether the service had rotated before the kill decides the rest: the sign-in survives, or
    // the refresh is refused and rsi says to sign in again (docs/auth.md, "CI and cron").
    if (next.code === 0) expect(JSON.parse(next.stdout)).toHaveProperty('projects');
    else {
      expect(next.code, next.stderr).toBe(3);
      expect(next.stderr).toMatch(/rsi login/);
    }
  });

  it('SIGTERM while the refresh is on the wire waits for the rotated tokens to be saved, then exits 143', async () => {
    const dir = await signedInFolder();
    await expireTokens(sandbox, dir, 3600);
    const before = refreshTokenOf(dir);
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(process.execPath, [RSI_BIN, 'projects', 'list', '--debug'], {
        env: cleanEnv(envOf(dir)),
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let err = '';
      let sent = false;
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        err += chunk;
        if (!sent && /^> POST \S*\/oauth\/token/m.test(err)) {
          sent = true;
          child.kill('SIGTERM');
        }
      });
      const bound = setTimeout(() => child.kill('SIGKILL'), CHILD_BOUND_MS);
      child.on('error', reject);
      child.on('close', (exit) => {
        clearTimeout(bound);
        resolve(exit);
      });
    });
    expect(code).toBe(143);
    // The rotation was saved before the exit: the next run uses it, without a refresh of its own.
    const after = refreshTokenOf(dir);
    expect(after).toBeDefined();
    expect(after).not.toBe(before);
    const next = await rsi(dir, ['projects', 'list', '--json']);
    expect(next.code, next.stderr).toBe(0);
    expect(refreshTokenOf(dir)).toBe(after);
  });

  it('a lock whose owner pid no longer runs is taken over without waiting', async () => {
    const dir = await signedInFolder();
    await expireTokens(sandbox, dir, 3600);
    // A pid that was just in use and has exited.
    const gone = await new Promise<number>((resolve) => {
      const child = spawn(process.execPath, ['-e', '0']);
      child.on('close', () => resolve(child.pid!));
    });
    const lock = join(dir, 'refresh-default.lock');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(lock);
    writeFileSync(`${lock}.owner`, JSON.stringify({ pid: gone, host: hostname(), ino: statSync(lock).ino }));
    const r = await timed(() => rsi(dir, ['projects', 'list', '--json']));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.seconds).toBeLessThan(15);
  });
});

describe('rsi login --with-token', () => {
  it('moves a sign-in to a machine of its own, which then rotates and stores its tokens', async () => {
    const workstation = await signedInFolder();
    const exported = await rsi(workstation, ['auth', 'token', '--refresh']);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toMatch(/^rsi-refresh\.[A-Za-z0-9_-]+\n$/);
    // Handed over, not copied: the workstation keeps no refresh token of it.
    expect(refreshTokenOf(workstation)).toBeUndefined();

    const runner = folder();
    const login = await rsi(runner, ['login', '--with-token', '--base-url', sandbox.url], exported.stdout);
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout).toBe('');
    expect(login.stderr).toMatch(/^✓ Signed in to .* with a refresh token/m);
    const first = refreshTokenOf(runner);
    expect(first).toBeDefined();
    expect(exported.stdout).not.toContain(first!);

    // Across token lifetimes the runner refreshes by itself, writing each rotation back.
    for (let round = 0; round < 2; round++) {
      const before = refreshTokenOf(runner);
      await expireTokens(sandbox, runner, 3600);
      const r = await rsi(runner, ['projects', 'list', '--json']);
      expect(r.code, r.stderr).toBe(0);
      expect(refreshTokenOf(runner)).not.toBe(before);
    }
    // The spent line cannot sign in anywhere else.
    const again = await rsi(folder(), ['login', '--with-token', '--base-url', sandbox.url], exported.stdout);
    expect(again.code).toBe(3);
  });

  it('says what it needs when stdin has nothing', async () => {
    const r = await rsi(folder(), ['login', '--with-token', '--base-url', sandbox.url], '');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^rsi: --with-token read nothing on stdin/m);
  });
});

describe('rsi login with no browser and stdin closed', () => {
  it('fails at once naming the headless options instead of waiting out --timeout', async () => {
    // A browser command that cannot run, as on a CI runner.
    const r = await timed(() =>
      runCli(['login', '--base-url', sandbox.url], {
        env: { RSI_CONFIG_DIR: folder(), RSI_CREDENTIAL_STORE: 'file', BROWSER: '/nonexistent/browser' },
      }),
    );
    expect(r.code, r.stderr).toBe(3);
    expect(r.seconds).toBeLessThan(60);
    expect(r.stderr).toMatch(/^rsi: no browser could be opened here and stdin is closed/m);
    expect(r.stderr).toMatch(/^hint: .*`rsi login .*--with-token`.*RSI_TOKEN/m);
  });
});

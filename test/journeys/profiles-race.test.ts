// Four profiles in one config folder with the file store, signing in together and then refreshing
// together over several token lifetimes against one real sandbox. Every write to credentials.json
// and config.json is a read-modify-write of a file all profiles share: without a store-wide lock,
// one profile's save undoes another's rotation and the sandbox's reuse detection signs it out
// (measured before the fix: 6 of 20 refreshes over 5 rounds ended in exit 3).
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { constants as osConstants, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RSI_BIN, cleanEnv, runCli } from '../support/cli.js';
import { advanceSandbox, sandboxStats } from '../support/sandbox.js';
import { startSandbox, type InProcessSandbox } from '../support/inproc.js';
import { FAKE_BROWSER } from '../support/browser.js';

const PROFILES = ['p1', 'p2', 'p3', 'p4'];
const ROUNDS = 5;
/** Processes per profile per round: they also race on that profile's own refresh lock. */
const PER_PROFILE = 2;
const TTL_S = 60;

let sandbox: InProcessSandbox;
beforeAll(async () => {
  sandbox = await startSandbox(['--auto-approve', '--token-ttl', String(TTL_S)]);
});
afterAll(async () => {
  await sandbox?.stop();
});

describe('four profiles sharing one file store', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rsi-race-'));
  const env = { RSI_CONFIG_DIR: dir, RSI_CREDENTIAL_STORE: 'file', BROWSER: FAKE_BROWSER };
  const stored = (): Record<string, { refreshToken?: string }> => JSON.parse(readFileSync(join(dir, 'credentials.json'), 'utf8'));
  const profiles = (): Record<string, unknown> => JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles;

  it('concurrent logins all land in config.json and credentials.json', async () => {
    const logins = await Promise.all(PROFILES.map((p) => runCli(['--profile', p, 'login', '--base-url', sandbox.url], { env })));
    for (const r of logins) expect(r.code, r.stderr).toBe(0);
    expect(Object.keys(profiles()).sort()).toEqual(PROFILES);
    expect(Object.keys(stored())).toHaveLength(PROFILES.length);
  });

  it(`refreshing together over ${ROUNDS} token lifetimes loses no rotation`, async () => {
    const before = await sandboxStats(sandbox.url);
    const failures: string[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      // Every access token dies at once on the server: each process meets a 401 and refreshes.
      await advanceSandbox(sandbox.url, TTL_S + 1);
      const runs = await Promise.all(
        PROFILES.flatMap((p) =>
          Array.from({ length: PER_PROFILE }, () =>
            runCli(['--profile', p, 'projects', 'list', '--json'], { env }).then((r) => ({ p, r })),
          ),
        ),
      );
      for (const { p, r } of runs) if (r.code !== 0) failures.push(`round ${round} ${p}: exit ${r.code} ${r.stderr.trim()}`);
    }
    const after = await sandboxStats(sandbox.url);
    expect(failures).toEqual([]);
    // One refresh per profile per round (the second process of a profile uses the first's result),
    // and no reuse detection fired (it revokes the whole family, which the counter would show).
    expect(after.tokens.refreshed - before.tokens.refreshed).toBe(ROUNDS * PROFILES.length);
    expect(after.tokens.revoked - before.tokens.revoked).toBe(0);
    for (const p of PROFILES) {
      const status = await runCli(['--profile', p, 'auth', 'status', '--json'], { env });
      expect(JSON.parse(status.stdout), p).toMatchObject({ signedIn: true, source: 'file' });
    }
    expect(Object.keys(profiles()).sort()).toEqual(PROFILES);
  }, 300_000);
});

describe('Ctrl-C during a refresh', () => {
  it('a second Ctrl-C after the server rotated waits for the save, says so, and the sign-in survives', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rsi-interrupt-'));
    const env = { RSI_CONFIG_DIR: dir, RSI_CREDENTIAL_STORE: 'file', BROWSER: FAKE_BROWSER };
    const refreshToken = (): string | undefined =>
      Object.values(JSON.parse(readFileSync(join(dir, 'credentials.json'), 'utf8')) as Record<string, { refreshToken?: string }>)[0]
        ?.refreshToken;
    expect((await runCli(['login', '--base-url', sandbox.url], { env })).code).toBe(0);
    const before = refreshToken();
    const stats = await sandboxStats(sandbox.url);
    await advanceSandbox(sandbox.url, TTL_S + 1);
    // Another process holds the store lock, so the save of the rotated tokens has to wait: the
    // window in which a Ctrl-C used to lose them is held open for as long as the test needs.
    const lock = join(dir, 'credentials.json.lock');
    mkdirSync(lock);
    const child = spawn(process.execPath, [RSI_BIN, '--debug', 'projects', 'list', '--json'], {
      env: cleanEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    const seen = (pattern: RegExp) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (pattern.test(stderr)) {
            child.stderr.off('data', check);
            resolve();
          }
        };
        child.stderr.on('data', check);
        exited.then(() => reject(new Error(`rsi exited before ${pattern}: ${stderr}`)));
        check();
      });
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    try {
      // The server has rotated: the old refresh token is dead from here on.
      await seen(/< 200 (?:POST )?\S+\/oauth\/token/);
      child.kill('SIGINT');
      // Two SIGINTs both pending at once are one to the kernel (a busy machine may not run the
      // child between them): the second is sent only once the first has left the pending set.
      await delivered(child.pid!, 'SIGINT');
      child.kill('SIGINT');
      await seen(/saving your refreshed sign-in before exiting/);
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
    expect(await exited, stderr).toBe(130);
    const after = refreshToken();
    expect(after).toBeDefined();
    expect(after).not.toBe(before);
    const next = await runCli(['projects', 'list', '--json'], { env });
    expect(next.code, next.stderr).toBe(0);
    const end = await sandboxStats(sandbox.url);
    expect(end.tokens.refreshed - stats.tokens.refreshed).toBe(1);
    expect(end.tokens.revoked - stats.tokens.revoked).toBe(0);
  });
});

/**
 * Waits until no `signal` is pending for process `pid` (Linux: the SigPnd and ShdPnd masks in
 * /proc/PID/status), that is, the kernel has handed it to the process's handler. An event to wait
 * on, polled, with an outer bound a busy machine cannot trip.
 */
async function delivered(pid: number, signal: NodeJS.Signals): Promise<void> {
  const bit = 1n << BigInt(osConstants.signals[signal] - 1);
  const end = Date.now() + 120_000;
  for (;;) {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const mask = (name: string) => BigInt(`0x${new RegExp(`^${name}:\\s*([0-9a-f]+)`, 'm').exec(status)?.[1] ?? '0'}`);
    if (((mask('SigPnd') | mask('ShdPnd')) & bit) === 0n) return;
    if (Date.now() > end) throw new Error(`${signal} still pending for process ${pid} after 120 s`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

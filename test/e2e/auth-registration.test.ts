// Client registration and `rsi doctor` end to end: a registration the service no longer knows is
// replaced once, automatically; registration rate limiting (429 slow_down) is waited out a bounded
// number of times and then reported clearly; doctor passes against a healthy sandbox and explains
// what to do when the service is unreachable.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { sandboxStats } from '../support/sandbox.js';
import { runCli, startSandbox, type InProcessSandbox } from '../support/inproc.js';
import { FAKE_BROWSER } from '../support/browser.js';

let auto: InProcessSandbox;
let limited: InProcessSandbox;
// The tests run side by side (the 429 test mostly waits out slow_down), and every login registers a
// client, so the test that counts registrations has a sandbox to itself.
let counted: InProcessSandbox;

beforeAll(async () => {
  [auto, limited, counted] = await Promise.all([
    startSandbox(['--auto-approve']),
    startSandbox(['--auto-approve', '--fault', 'register-429']),
    startSandbox(['--auto-approve']),
  ]);
});
afterAll(async () => {
  await Promise.all([auto?.stop(), limited?.stop(), counted?.stop()]);
});

function env(dir: string): Record<string, string> {
  return { RSI_CONFIG_DIR: dir, RSI_CREDENTIAL_STORE: 'file', BROWSER: FAKE_BROWSER };
}

interface ConfigJson {
  profiles: Record<string, { client?: { clientId: string; redirectUri: string; issuer: string } }>;
}

describe.concurrent('client registration', () => {
  it('a registration the service no longer knows is dropped and redone once, automatically', async ({ expect }) => {
    const dir = mkdtempSync(join(tmpdir(), 'rsi-reg-'));
    const first = await runCli(['login', '--base-url', counted.url], { env: env(dir) });
    expect(first.code, first.stderr).toBe(0);
    const file = join(dir, 'config.json');
    const config = JSON.parse(readFileSync(file, 'utf8')) as ConfigJson;
    const client = config.profiles.default!.client!;
    expect(client.issuer).toBeTruthy();
    client.clientId = 'client-the-service-forgot';
    writeFileSync(file, JSON.stringify(config));
    const before = (await sandboxStats(counted.url)).registrations;

    const again = await runCli(['login', '--base-url', counted.url, '--port', new URL(client.redirectUri).port], { env: env(dir) });
    expect(again.code, again.stderr).toBe(0);
    expect((await sandboxStats(counted.url)).registrations).toBe(before + 1);
    const after = JSON.parse(readFileSync(file, 'utf8')) as ConfigJson;
    expect(after.profiles.default!.client!.clientId).not.toBe('client-the-service-forgot');
    expect((await runCli(['auth', 'status', '--json'], { env: env(dir) })).code).toBe(0);
  });

  it('a registration is not replayed at another issuer', async ({ expect }) => {
    const dir = mkdtempSync(join(tmpdir(), 'rsi-reg-'));
    expect((await runCli(['login', '--base-url', auto.url], { env: env(dir) })).code).toBe(0);
    const file = join(dir, 'config.json');
    const config = JSON.parse(readFileSync(file, 'utf8')) as ConfigJson;
    const registered = config.profiles.default!.client!.clientId;
    config.profiles.default!.client!.issuer = 'https://another-issuer.example';
    writeFileSync(file, JSON.stringify(config));
    expect((await runCli(['login', '--base-url', auto.url], { env: env(dir) })).code).toBe(0);
    const after = JSON.parse(readFileSync(file, 'utf8')) as ConfigJson;
    expect(after.profiles.default!.client!.clientId).not.toBe(registered);
    expect(after.profiles.default!.client!.issuer).toBe(auto.url);
  });

  it('429 slow_down: waits and retries a bounded number of times, then says so clearly (exit 8), nothing stored', async ({ expect }) => {
    const dir = mkdtempSync(join(tmpdir(), 'rsi-reg-'));
    const r = await runCli(['login', '--base-url', limited.url], { env: env(dir) });
    expect(r.code).toBe(8);
    expect(r.stderr).toContain('slow down');
    expect(r.stderr).toContain('429 slow_down');
    expect(r.stderr).toContain(`and run \`rsi login --base-url ${limited.url}\` again`);
    expect(r.stderr).toMatch(/hint: wait \d+ s and run `rsi login --base-url \S+` again/);
    expect(() => readFileSync(join(dir, 'credentials.json'))).toThrow(/ENOENT/);
  });
});

describe.concurrent('rsi doctor', () => {
  it('passes every check against a healthy sandbox after login (--json)', async ({ expect }) => {
    const dir = mkdtempSync(join(tmpdir(), 'rsi-doc-'));
    expect((await runCli(['login', '--base-url', auto.url], { env: env(dir) })).code).toBe(0);
    const r = await runCli(['doctor', '--json'], { env: env(dir) });
    expect(r.code, r.stderr + r.stdout).toBe(0);
    const checks = JSON.parse(r.stdout) as { name: string; ok: boolean; detail: string }[];
    expect(checks.length).toBeGreaterThanOrEqual(6);
    expect(checks.every((c) => c.ok)).toBe(true);
    const text = JSON.stringify(checks);
    for (const word of ['S256', 'clock', 'registration', 'loopback']) expect(text.toLowerCase()).toContain(word.toLowerCase());
    const creds = JSON.parse(readFileSync(join(dir, 'credentials.json'), 'utf8')) as Record<
      string,
      { accessToken: string; refreshToken?: string }
    >;
    for (const c of Object.values(creds)) {
      expect(r.stdout + r.stderr).not.toContain(c.accessToken);
      if (c.refreshToken) expect(r.stdout + r.stderr).not.toContain(c.refreshToken);
    }
  });

  it('an unreachable service fails with what to do about it', async ({ expect }) => {
    // Port 1 (tcpmux) has no listener here: a port freed a moment ago could be taken again by
    // another suite running beside this one.
    const port = 1;
    const dir = mkdtempSync(join(tmpdir(), 'rsi-doc-'));
    const r = await runCli(['doctor', '--base-url', `http://127.0.0.1:${port}`], { env: env(dir) });
    expect(r.code).not.toBe(0);
    expect(r.stdout).toMatch(/✗/);
    expect(r.stdout).toContain('→');
    expect(r.stderr).toMatch(/checks failed/);
  });
});

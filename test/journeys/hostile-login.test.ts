// Hostile and interrupted sign-ins beyond the basics in auth-login.test.ts: a replayed code, a
// callback claiming another issuer, and a second login while one is waiting. Each ends cleanly
// and writes or changes no credentials it should not.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLogin as login } from '../support/login.js';
import { startSandbox, type InProcessSandbox } from '../support/inproc.js';

let auto: InProcessSandbox;
let consent: InProcessSandbox;
beforeAll(async () => {
  [auto, consent] = await Promise.all([startSandbox(['--auto-approve', '--quiet']), startSandbox(['--quiet'])]);
});
afterAll(async () => {
  await Promise.all([auto?.stop(), consent?.stop()]);
});

const startLogin = (dir: string, base: string) =>
  login(['--base-url', base, '--no-browser'], { RSI_CONFIG_DIR: dir, RSI_CREDENTIAL_STORE: 'file' });

describe('hostile sign-ins', () => {
  it('a replayed authorization code is refused: exit 3, nothing stored', async () => {
    const first = startLogin(mkdtempSync(join(tmpdir(), 'rsi-h-')), auto.url);
    const callback = (await fetch(await first.url, { redirect: 'manual' })).headers.get('location')!;
    first.child.stdin.write(`${callback}\n`);
    expect((await first.done).code).toBe(0);
    // The same code, pasted into another login of the same client registration, must not work.
    const dir = mkdtempSync(join(tmpdir(), 'rsi-h-'));
    const second = startLogin(dir, auto.url);
    // With the second login's own state, so the replayed code itself reaches the token endpoint (a
    // foreign state alone is ignored as another sign-in's address before any exchange).
    const replay = new URL(callback);
    replay.searchParams.set('state', new URL(await second.url).searchParams.get('state')!);
    second.child.stdin.write(`${replay}\n`);
    const r = await second.done;
    expect(r.code).toBe(3);
    expect(existsSync(join(dir, 'credentials.json'))).toBe(false);
  });

  it('a callback whose iss names another issuer is refused: exit 3, nothing stored', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rsi-h-'));
    const login = startLogin(dir, auto.url);
    const callback = new URL((await fetch(await login.url, { redirect: 'manual' })).headers.get('location')!);
    callback.searchParams.set('iss', 'https://issuer.example');
    login.child.stdin.write(`${callback}\n`);
    const r = await login.done;
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^rsi: .*issuer/m);
    expect(existsSync(join(dir, 'credentials.json'))).toBe(false);
  });

  it("a second login while one waits: each has its own listener; cancelling the first keeps the second's tokens", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rsi-h-'));
    const a = startLogin(dir, consent.url);
    const urlA = new URL(await a.url);
    const b = startLogin(dir, consent.url);
    const urlB = new URL(await b.url);
    expect(urlB.searchParams.get('redirect_uri')).not.toBe(urlA.searchParams.get('redirect_uri'));
    // Approve B through the consent form.
    const page = await (await fetch(urlB)).text();
    const requestId = /name="request" value="([^"]+)"/.exec(page)![1]!;
    const approved = await fetch(`${consent.url}/oauth/authorize/decision`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ request: requestId, decision: 'approve' }),
      redirect: 'follow',
    });
    expect(await approved.text()).toContain('Signed in to rsi');
    expect((await b.done).code).toBe(0);
    const stored = readFileSync(join(dir, 'credentials.json'), 'utf8');
    a.child.kill('SIGINT');
    expect((await a.done).code).toBe(130);
    expect(readFileSync(join(dir, 'credentials.json'), 'utf8')).toBe(stored);
  });
});

// The sandbox's own safety: admin routes need the run's secret and refuse cross-site requests, the
// consent page names where the code goes, registration takes JSON only, and the setup form refuses
// cross-site posts while scripts (no Origin) keep working. One in-process sandbox for the file, plus
// the real `rsi sandbox` process for the secret's flag, environment and start-up line.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { spawn } from 'node:child_process';
import { RSI_BIN, cleanEnv, runCli } from '../support/cli.js';
import { obtainTokens } from '../support/oauth.js';
import {
  advanceSandbox,
  apiCaller,
  sandboxAdmin,
  sandboxStats,
  startSandbox as startProcess,
  type SandboxProcess,
} from '../support/sandbox.js';

let sb: Sandbox;
let proc: SandboxProcess;
beforeAll(async () => {
  [sb, proc] = await Promise.all([startSandbox({}), startProcess(['--quiet'])]);
});
afterAll(async () => {
  await Promise.all([sb?.close(), proc?.stop()]);
});

const REDIRECT = 'http://127.0.0.1:9/callback';

describe('admin routes', () => {
  it.each([
    ['GET', 'stats'],
    ['POST', 'reset-stats'],
    ['POST', 'advance?seconds=10'],
  ])('%s /__sandbox/%s without the secret or with a wrong one is 401', async (method, route) => {
    for (const headers of [{} as Record<string, string>, { 'x-sandbox-secret': 'wrong' }, { 'x-sandbox-secret': `${sb.adminSecret}x` }]) {
      const res = await fetch(`${sb.url}/__sandbox/${route}`, { method, headers });
      expect(res.status).toBe(401);
      expect(((await res.json()) as { error: string }).error).toContain('X-Sandbox-Secret');
    }
  });

  it('with the secret they work; a refused advance does not move the clock', async () => {
    expect(sb.adminSecret.length).toBeGreaterThanOrEqual(32);
    expect((await sandboxAdmin(sb, 'stats')).status).toBe(200);
    expect((await sandboxAdmin(sb, 'reset-stats', { method: 'POST' })).status).toBe(204);
    expect((await sandboxAdmin(sb, 'nothing')).status).toBe(404);
    // Access tokens live 3600 s: an unauthenticated advance must leave one usable.
    const other = await startSandbox({ autoApprove: true });
    try {
      const api = apiCaller(other.url, (await obtainTokens(other.url)).access_token);
      await fetch(`${other.url}/__sandbox/advance?seconds=4000`, { method: 'POST' });
      expect((await api('/projects')).status).toBe(200);
      await advanceSandbox(other, 4000); // the helper's advance is real: the 3600 s token expires
      expect((await api('/projects')).status).toBe(401);
    } finally {
      await other.close();
    }
  });

  it('a cross-site request is refused even with the secret (Origin or Sec-Fetch-Site)', async () => {
    const refused: Array<Record<string, string>> = [
      { origin: 'http://evil.example' },
      { 'sec-fetch-site': 'cross-site' },
      { origin: 'null' },
    ];
    for (const headers of refused) {
      const res = await sandboxAdmin(sb, 'reset-stats', { method: 'POST', headers });
      expect(res.status).toBe(403);
    }
    expect((await sandboxAdmin(sb, 'stats', { headers: { origin: sb.url, 'sec-fetch-site': 'same-origin' } })).status).toBe(200);
    // Chromium sends Origin: null on same-origin posts from our no-referrer pages; Sec-Fetch-Site decides.
    expect((await sandboxAdmin(sb, 'stats', { headers: { origin: 'null', 'sec-fetch-site': 'same-origin' } })).status).toBe(200);
  });

  it('an adminSecret option is used as given', async () => {
    const fixed = await startSandbox({ adminSecret: 'a-fixed-secret-for-tests' });
    try {
      const res = await fetch(`${fixed.url}/__sandbox/stats`, { headers: { 'x-sandbox-secret': 'a-fixed-secret-for-tests' } });
      expect(res.status).toBe(200);
    } finally {
      await fixed.close();
    }
  });
});

describe('rsi sandbox and the admin secret', () => {
  it('the process takes RSI_SANDBOX_ADMIN_SECRET (the test helper sets it) and does not echo it', async () => {
    expect((await sandboxStats(proc.url)).requests).toEqual(expect.any(Number));
    expect((await fetch(`${proc.url}/__sandbox/stats`)).status).toBe(401);
    expect(proc.stderr()).toContain('X-Sandbox-Secret with the secret you set');
    expect(proc.stderr()).not.toContain(proc.adminSecret);
  });

  it('without one it prints a generated secret on stderr, where scripts find it', async () => {
    // A bare process, without the helper's variable.
    const child = spawn(process.execPath, [RSI_BIN, 'sandbox', '--port', '0', '--quiet'], {
      env: cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    const line = await new Promise<string>((resolve, reject) => {
      child.stderr.setEncoding('utf8').on('data', (c: string) => {
        err += c;
        const found = err.split('\n').find((l) => l.includes('X-Sandbox-Secret') && err.includes(`${l}\n`));
        if (found) resolve(found);
      });
      child.once('exit', () => reject(new Error(`exited: ${err}`)));
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    expect(line).toMatch(/^sandbox: admin routes \(\/__sandbox\/\*\) need the header X-Sandbox-Secret: [A-Za-z0-9_-]{43}$/);
  });

  it('--admin-secret sets it; a short or spaced secret is a usage error (exit 2)', async () => {
    const p = await startProcess(['--quiet', '--admin-secret', 'flag-secret-0123456789']);
    try {
      const ok = await fetch(`${p.url}/__sandbox/stats`, { headers: { 'x-sandbox-secret': 'flag-secret-0123456789' } });
      expect(ok.status).toBe(200);
    } finally {
      await p.stop();
    }
    for (const bad of ['short', 'has spaces in the secret here']) {
      const r = await runCli(['sandbox', '--admin-secret', bad]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^rsi: --admin-secret must be 16 to 200 printable ASCII/);
    }
    const env = await runCli(['sandbox'], { env: { RSI_SANDBOX_ADMIN_SECRET: 'tiny' } });
    expect(env.code).toBe(2);
    expect(env.stderr).toContain('RSI_SANDBOX_ADMIN_SECRET must be');
  });
});

describe('registration takes JSON only', () => {
  const body = JSON.stringify({ client_name: 'x', redirect_uris: [REDIRECT] });
  it.each([
    ['no content type', undefined],
    ['text/plain', 'text/plain;charset=UTF-8'],
    ['a form', 'application/x-www-form-urlencoded'],
    ['application/jsonx', 'application/jsonx'],
  ])('%s is 400 invalid_client_metadata', async (_name, type) => {
    const res = await fetch(`${sb.url}/oauth/register`, {
      method: 'POST',
      headers: type ? { 'content-type': type } : {},
      body: type === undefined ? new Blob([body]) : body,
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'invalid_client_metadata' });
  });

  it('application/json (any case, with parameters) is accepted', async () => {
    for (const type of ['application/json', 'Application/JSON; charset=utf-8']) {
      const res = await fetch(`${sb.url}/oauth/register`, { method: 'POST', headers: { 'content-type': type }, body });
      expect(res.status).toBe(201);
    }
  });
});

describe('consent page and forms', () => {
  async function consent(redirect: string): Promise<{ html: string; request: string }> {
    const reg = (await (
      await fetch(`${sb.url}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'Totally rsi', redirect_uris: [redirect] }),
      })
    ).json()) as { client_id: string };
    const u = new URL(`${sb.url}/oauth/authorize`);
    u.search = new URLSearchParams({
      response_type: 'code',
      client_id: reg.client_id,
      redirect_uri: redirect,
      code_challenge: 'a'.repeat(43),
      code_challenge_method: 'S256',
      resource: `${sb.url}/api/v1`,
      state: 's',
    }).toString();
    const html = await (await fetch(u)).text();
    return { html, request: /name="request" value="([^"]+)"/.exec(html)![1]! };
  }

  it('shows the redirect host beside the client name (which the client chose itself)', async () => {
    const https = await consent('https://collector.example.net:8443/cb');
    expect(https.html).toContain('<strong class="host">collector.example.net:8443</strong>');
    expect(https.html).not.toContain('on this computer');
    const loopback = await consent('http://127.0.0.1:53682/callback');
    expect(loopback.html).toContain('<strong class="host">127.0.0.1:53682</strong>');
    expect(loopback.html).toContain('on this computer');
  });

  it('a cross-site post of the consent decision is refused', async () => {
    const { request } = await consent(REDIRECT);
    const post = (headers: Record<string, string>) =>
      fetch(`${sb.url}/oauth/authorize/decision`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams({ request, decision: 'approve' }).toString(),
      });
    expect((await post({ origin: 'http://evil.example' })).status).toBe(403);
    // Refused, not consumed: the user's own same-origin answer still works.
    expect((await post({ origin: sb.url })).status).toBe(302);
  });

  it('the setup form: scripts (no Origin) and same-origin posts work; cross-site posts are refused', async () => {
    const other = await startSandbox({ autoApprove: true });
    try {
      const api = apiCaller(other.url, (await obtainTokens(other.url)).access_token);
      const [a, b, c] = await Promise.all(
        ['A', 'B', 'C'].map(async (name) => (await api('/projects', { method: 'POST', body: JSON.stringify({ name }) })).body.id as string),
      );
      const setup = (id: string, headers: Record<string, string> = {}) =>
        fetch(`${other.url}/projects/${id}/setup`, { method: 'POST', redirect: 'manual', headers });
      expect((await setup(a!, { origin: 'http://evil.example' })).status).toBe(403);
      expect((await setup(a!, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
      expect(await (await fetch(`${other.url}/projects/${a}/overview`)).text()).toContain('not finished');
      expect((await setup(a!)).status).toBe(303); // curl -X POST <base>/projects/<id>/setup
      expect(await (await setup(b!, { accept: 'application/json' })).json()).toEqual({ id: b, setup: 'done' });
      expect((await setup(c!, { origin: other.url, 'sec-fetch-site': 'same-origin' })).status).toBe(303);
    } finally {
      await other.close();
    }
  });
});

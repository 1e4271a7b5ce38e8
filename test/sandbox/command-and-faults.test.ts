// `rsi sandbox` as a real child process: the URL line, clean stop, flag validation, and each
// injected fault as a client would see it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { advanceSandbox, startSandbox as startProcess, sandboxStats, type SandboxProcess } from '../support/sandbox.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { obtainTokens } from '../support/oauth.js';

describe('rsi sandbox (process)', () => {
  let proc: SandboxProcess;
  beforeAll(async () => {
    proc = await startProcess(['--auto-approve', '--time-scale', '10']);
  });
  afterAll(async () => {
    await proc?.stop();
  });

  it('prints the loopback base URL first and serves discovery there', async () => {
    expect(proc.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const res = await fetch(`${proc.url}/.well-known/oauth-authorization-server`);
    expect((await res.json().then((b): any => b)).issuer).toBe(proc.url);
  });

  it('counts requests per route at /__sandbox/stats', async () => {
    const before = await sandboxStats(proc.url);
    await fetch(`${proc.url}/api/v1/projects`);
    const after = await sandboxStats(proc.url);
    expect(after.apiRequests).toBe(before.apiRequests + 1);
    expect(after.byRoute['GET /api/v1/projects']).toBe((before.byRoute['GET /api/v1/projects'] ?? 0) + 1);
  });

  it.each([['SIGTERM'], ['SIGINT']] as const)('stops cleanly on %s with exit 0', async (signal) => {
    const p = await startProcess([]);
    const exited = new Promise<number | null>((resolve) => p.child.once('exit', (code) => resolve(code)));
    p.child.kill(signal);
    expect(await exited).toBe(0);
    expect(p.stderr()).toContain('stopped');
    await expect(fetch(`${p.url}/`)).rejects.toThrow();
  });

  it.each([[['--port', '70000']], [['--port', 'abc']], [['--time-scale', '0']], [['--token-ttl', '-5']], [['--fault', 'meteor-strike']]])(
    'rejects %j with exit 2 and one line',
    async (args) => {
      const r = await runCli(['sandbox', ...args]);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^rsi: /);
    },
  );

  it('a port in use is a usage error', async () => {
    const port = new URL(proc.url).port;
    const r = await runCli(['sandbox', '--port', port]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('already in use');
  });
});

describe('startSandbox (in-process)', () => {
  it('close() ends idle keep-alive connections and hanging requests, so it returns', async () => {
    const sb = await startSandbox({ faults: ['hang'] });
    const { Agent, request } = await import('undici');
    const agent = new Agent({ keepAliveTimeout: 60_000 });
    const res = await request(`${sb.url}/.well-known/oauth-authorization-server`, { dispatcher: agent });
    expect(res.statusCode).toBe(200);
    await res.body.text(); // the socket stays open, idle, in the agent's pool
    const hanging = fetch(`${sb.url}/api/v1/projects`).catch((e: unknown) => e);
    // A head start for the request, not a wait the assertion depends on: one that has not arrived
    // yet fails on close() just the same, so slowness cannot trip this.
    await new Promise((r) => setTimeout(r, 50));
    await sb.close(); // would never resolve if idle or hanging sockets kept the server open
    expect(await hanging).toBeInstanceOf(Error);
    await agent.close();
  });
});

describe('faults', () => {
  const started: Sandbox[] = [];
  async function withFault(...faults: string[]): Promise<{ sb: Sandbox; token: string }> {
    const sb = await startSandbox({ autoApprove: true, faults, timeScale: 1000 });
    started.push(sb);
    const token = (await obtainTokens(sb.url)).access_token;
    return { sb, token };
  }
  afterAll(async () => {
    await Promise.all(started.map((s) => s.close()));
  });
  const get = (sb: Sandbox, token: string, path: string): Promise<Response> =>
    fetch(`${sb.url}/api/v1${path}`, { headers: { authorization: `Bearer ${token}` } });

  it('html-502 answers every API route with an HTML proxy page', async () => {
    const { sb, token } = await withFault('html-502');
    const res = await get(sb, token, '/projects');
    expect(res.status).toBe(502);
    expect(res.headers.get('content-type')).toContain('text/html');
  });

  it('analyses-504 records nothing', async () => {
    const { sb, token } = await withFault('analyses-504');
    const projects = (await (await get(sb, token, '/projects')).json().then((b): any => b)).projects;
    const kras = projects.find((p: { name: string }) => p.name === 'KRAS inhibitors').id;
    const res = await fetch(`${sb.url}/api/v1/projects/${kras}/analyses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ top: { type: 'target', limit: 2, confirmed: true } }),
    });
    expect(res.status).toBe(504);
    expect(await res.json().then((b): any => b)).toEqual({ error: 'The scoring service did not respond, and no run was recorded.' });
    expect(sb.stats.runs).toBe(0);
  });

  it('register-429 and scan-error', async () => {
    const sb = await startSandbox({ faults: ['register-429', 'scan-error'] });
    started.push(sb);
    const res = await fetch(`${sb.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:1/cb'] }),
    });
    expect(res.status).toBe(429);
    expect((await res.json().then((b): any => b)).error).toBe('slow_down');
    // Real speed (time jumps below), so the check before the scan finishes cannot race.
    const sb2 = await startSandbox({ autoApprove: true, faults: ['scan-error'] });
    started.push(sb2);
    const token = (await obtainTokens(sb2.url)).access_token;
    const created = await fetch(`${sb2.url}/api/v1/projects`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{"name":"With scan error"}',
    });
    expect(created.status).toBe(201);
    const body = await created.json().then((b): any => b);
    expect(body.scan_error).toEqual(expect.any(String));
    // The project exists and, documented: the scan is retried 10 s later, then takes 30 s.
    const status = async (): Promise<any> => (await get(sb2, token, `/projects/${body.id}/status`)).json();
    expect(await status()).toMatchObject({ signals_ready: false, next: 'wait' });
    await advanceSandbox(sb2, 41);
    expect(await status()).toMatchObject({ signals_ready: true, next: 'list_signals' });
  });

  it('slow delays API answers (a short client timeout gives up; a patient client succeeds)', async () => {
    const { sb, token } = await withFault('slow');
    const impatient = fetch(`${sb.url}/api/v1/projects`, {
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(300),
    });
    await expect(impatient).rejects.toThrow();
    expect((await get(sb, token, '/projects')).status).toBe(200);
    // Discovery is not slowed: clients can still sign in.
    expect((await fetch(`${sb.url}/.well-known/oauth-authorization-server`, { signal: AbortSignal.timeout(1500) })).status).toBe(200);
  });

  it('truncated-json, bad-schema, rate-limit and flaky-503 misbehave as documented', async () => {
    const t = await withFault('truncated-json');
    await expect((await get(t.sb, t.token, '/projects')).json().then((b): any => b)).rejects.toThrow();
    const b = await withFault('bad-schema');
    const body = await (await get(b.sb, b.token, '/keywords?q=egfr')).json().then((b): any => b);
    expect(typeof body.data[0].name).not.toBe('string');
    const r = await withFault('rate-limit');
    const first = await get(r.sb, r.token, '/projects');
    expect(first.status).toBe(429);
    expect(first.headers.get('retry-after')).toBe('1');
    expect((await get(r.sb, r.token, '/projects')).status).toBe(200);
    const f = await withFault('flaky-503');
    expect((await get(f.sb, f.token, '/projects')).status).toBe(503);
    expect((await get(f.sb, f.token, '/projects')).status).toBe(200);
  });

  it('reset cuts the connection mid-body; hang never answers', async () => {
    const r = await withFault('reset');
    await expect(get(r.sb, r.token, '/projects').then((res) => res.text())).rejects.toThrow();
    const h = await withFault('hang');
    await expect(
      fetch(`${h.sb.url}/api/v1/projects`, { headers: { authorization: `Bearer ${h.token}` }, signal: AbortSignal.timeout(300) }),
    ).rejects.toThrow();
  });
});

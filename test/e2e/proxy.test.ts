// Behind a proxy: real `bin/rsi.js` processes against a real sandbox through a real forward proxy
// (test/support/proxy.ts, absolute-form and CONNECT, counting what passes). The whole sign-in
// (discovery, registration, its probe, token), API calls, a refresh, doctor and logout's revoke go
// through it; NO_PROXY bypasses it; lower-case variables work; its credentials are never printed.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { startProxy, type TestProxy } from '../support/proxy.js';
import { startSandbox, type SandboxProcess } from '../support/sandbox.js';

const FAKE_BROWSER = `${process.execPath} ${fileURLToPath(new URL('../support/fake-browser.mjs', import.meta.url))}`;
const PROXY_PASSWORD = 'pr0xy-pa55word';
let sandbox: SandboxProcess;
let proxy: TestProxy;
let proxyUrl: string;

beforeAll(async () => {
  [sandbox, proxy] = await Promise.all([
    startSandbox(['--auto-approve']),
    startProxy({ credentials: { user: 'carol', password: PROXY_PASSWORD } }),
  ]);
  proxyUrl = proxy.url.replace('//', `//carol:${PROXY_PASSWORD}@`);
});
afterAll(async () => {
  await Promise.all([sandbox?.stop(), proxy?.stop()]);
});
beforeEach(() => {
  proxy.hits.length = 0;
});

function env(dir: string, extra: Record<string, string> = {}): Record<string, string> {
  return { RSI_CONFIG_DIR: dir, RSI_CREDENTIAL_STORE: 'file', BROWSER: FAKE_BROWSER, ...extra };
}

/** The paths (with query) of every request the proxy carried to the sandbox. */
function proxiedPaths(): string[] {
  return proxy.hits.map((h) => {
    const u = new URL(h.target);
    return `${h.method} ${u.pathname}${u.searchParams.get('state') === 'probe' ? ' (probe)' : ''}`;
  });
}

describe('behind a forward proxy', () => {
  it('signs in, calls the API, refreshes, runs doctor and logs out all through HTTP_PROXY, never printing its password', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rsi-proxy-'));
    const e = env(dir, { HTTP_PROXY: proxyUrl });
    const outputs: string[] = [];
    const run = async (args: string[]) => {
      const r = await runCli(['--debug', ...args], { env: e });
      outputs.push(r.stdout, r.stderr);
      return r;
    };

    const login = await run(['login', '--base-url', sandbox.url]);
    expect(login.code, login.stderr).toBe(0);
    expect(proxiedPaths()).toEqual([
      'GET /.well-known/oauth-protected-resource/api/v1',
      'GET /.well-known/oauth-authorization-server',
      'POST /oauth/register',
      'POST /oauth/token',
    ]);
    expect(proxy.hits.every((h) => h.authorization === `Basic ${Buffer.from(`carol:${PROXY_PASSWORD}`).toString('base64')}`)).toBe(true);
    expect(login.stderr).toContain(`* through proxy http://[redacted]@127.0.0.1:${proxy.port}`);

    proxy.hits.length = 0;
    const again = await run(['login', '--base-url', sandbox.url]);
    expect(again.code, again.stderr).toBe(0);
    // The second login checks its cached registration with the authorize probe: through the proxy too.
    expect(proxiedPaths()).toContain('GET /oauth/authorize (probe)');

    proxy.hits.length = 0;
    const list = await run(['projects', 'list', '--json']);
    expect(list.code, list.stderr).toBe(0);
    expect(proxiedPaths()).toEqual(['GET /api/v1/projects']);

    // An expired access token: the refresh goes through the proxy as well.
    const file = join(dir, 'credentials.json');
    const stored = JSON.parse(readFileSync(file, 'utf8')) as Record<string, { expiresAt: number }>;
    for (const entry of Object.values(stored)) entry.expiresAt = 0;
    writeFileSync(file, JSON.stringify(stored), { mode: 0o600 });
    proxy.hits.length = 0;
    const refreshed = await run(['projects', 'list', '--json']);
    expect(refreshed.code, refreshed.stderr).toBe(0);
    expect(proxiedPaths()).toEqual(['POST /oauth/token', 'GET /api/v1/projects']);

    proxy.hits.length = 0;
    const doctor = await run(['doctor']);
    expect(doctor.stdout).toContain(`proxy: http://[redacted]@127.0.0.1:${proxy.port} (from HTTP_PROXY)`);
    expect(doctor.stdout).toMatch(/service reachable: 200 in \d+ ms through the proxy http:\/\/\[redacted\]@127\.0\.0\.1/);
    expect(proxiedPaths()).toContain('GET /.well-known/oauth-authorization-server');
    expect(proxiedPaths()).toContain('GET /oauth/authorize (probe)');

    proxy.hits.length = 0;
    const logout = await run(['logout']);
    expect(logout.code, logout.stderr).toBe(0);
    expect(proxiedPaths()).toContain('POST /oauth/revoke');

    for (const text of outputs) {
      expect(text).not.toContain(PROXY_PASSWORD);
      expect(text).not.toContain(Buffer.from(`carol:${PROXY_PASSWORD}`).toString('base64'));
    }
  });

  it('honours lower-case http_proxy, and NO_PROXY sends everything direct (login included)', async () => {
    const lower = mkdtempSync(join(tmpdir(), 'rsi-proxy-'));
    const viaLower = await runCli(['login', '--base-url', sandbox.url], { env: env(lower, { http_proxy: proxyUrl }) });
    expect(viaLower.code, viaLower.stderr).toBe(0);
    expect(proxiedPaths()).toContain('POST /oauth/token');

    proxy.hits.length = 0;
    const direct = mkdtempSync(join(tmpdir(), 'rsi-proxy-'));
    const e = env(direct, { HTTP_PROXY: proxyUrl, NO_PROXY: 'localhost,127.0.0.1' });
    const login = await runCli(['login', '--base-url', sandbox.url], { env: e });
    expect(login.code, login.stderr).toBe(0);
    const list = await runCli(['projects', 'list', '--json'], { env: e });
    expect(list.code, list.stderr).toBe(0);
    const doctor = await runCli(['doctor'], { env: e });
    expect(doctor.stdout).toContain('proxy: none for 127.0.0.1');
    expect(doctor.stdout).toMatch(/service reachable: 200 in \d+ ms directly/);
    expect(proxy.hits).toHaveLength(0);
  });

  it('a proxy that refuses its credentials: exit 8 naming the proxy (redacted), the password nowhere', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rsi-proxy-'));
    const wrong = proxy.url.replace('//', '//carol:not-the-pa55word@');
    const r = await runCli(['--debug', 'login', '--base-url', sandbox.url], { env: env(dir, { HTTPS_PROXY: wrong, HTTP_PROXY: wrong }) });
    expect(r.code).toBe(8);
    expect(r.stderr).toMatch(/^rsi: the proxy http:\/\/\[redacted\]@127\.0\.0\.1:\d+ refused .* \(407\)$/m);
    expect(r.stderr).toContain('hint: put them in the proxy URL');
    expect(r.stderr + r.stdout).not.toContain('not-the-pa55word');
  });

  it('--http-timeout bounds the whole request: a reply dripping a byte at a time through the proxy ends with exit 8', async () => {
    let requests = 0;
    const drip = createServer((req, res) => {
      requests++;
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('[');
      // Each gap is well under the timeout: only a deadline on the whole request can end this.
      const timer = setInterval(() => res.write(' '), 200);
      res.on('close', () => clearInterval(timer));
    });
    await new Promise<void>((resolve) => drip.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(drip.address() as AddressInfo).port}`;
    try {
      const dir = mkdtempSync(join(tmpdir(), 'rsi-proxy-'));
      const r = await runCli(['projects', 'list', '--http-timeout', '1'], {
        env: env(dir, { HTTP_PROXY: proxyUrl, RSI_TOKEN: 'drip-token', RSI_BASE_URL: base }),
      });
      expect(r.signal).toBeNull();
      expect(r.code, r.stderr).toBe(8);
      expect(r.stderr).toMatch(/^rsi: GET http:\/\/127\.0\.0\.1:\d+\/api\/v1\/projects timed out after 1 s$/m);
      // The first attempt and one retry (a timeout is retried once), each through the proxy.
      expect(requests).toBe(2);
      expect(proxy.hits).toHaveLength(2);
    } finally {
      drip.closeAllConnections();
      await new Promise((resolve) => drip.close(resolve));
    }
  });
});

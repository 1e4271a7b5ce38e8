// Behind a proxy: real `bin/rsi.js` processes against a real `rsi sandbox --tls` through a real
// CONNECT proxy (test/support/proxy.ts, counting what passes). The sandbox is named rsi.test, a
// name only the proxy resolves, so a request that bypassed the proxy could not reach it (and
// loopback is never proxied, so 127.0.0.1 would go direct). The whole sign-in (discovery,
// registration, its probe, token), API calls, a refresh, doctor and logout's revoke go through it
// with the proxy's credentials, never printed; NO_PROXY bypasses it; loopback goes direct;
// lower-case variables work; a 407 and a refused CONNECT each say what happened (and the refusal
// is one try). The variables as curl and Go read them: HTTP_PROXY / http_proxy never carry an
// https:// request, HTTPS_PROXY does, ALL_PROXY is the fallback.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { startProxy, tracedRequests, type TestProxy } from '../support/proxy.js';
import { startSocks } from '../support/socks.js';
import { type InProcessSandbox, startSandbox } from '../support/inproc.js';
import { createTestCa } from '../support/tls.js';
import { FAKE_BROWSER } from '../support/browser.js';

const PROXY_PASSWORD = 'pr0xy-pa55word';
const BASIC = `Basic ${Buffer.from(`carol:${PROXY_PASSWORD}`).toString('base64')}`;
let sandbox: InProcessSandbox;
let proxy: TestProxy;
let proxyUrl: string;

beforeAll(async () => {
  [sandbox, proxy] = await Promise.all([
    startSandbox(['--auto-approve', '--tls', '--public-host', 'rsi.test']),
    startProxy({ credentials: { user: 'carol', password: PROXY_PASSWORD }, hosts: { 'rsi.test': '127.0.0.1' } }),
  ]);
  proxyUrl = proxy.url.replace('//', `//carol:${PROXY_PASSWORD}@`);
});
afterAll(async () => {
  await Promise.all([sandbox?.stop(), proxy?.stop()]);
});
beforeEach(() => {
  proxy.hits.length = 0;
});

/** Every variable rsi reads a proxy from: unset unless a test sets it, whatever the parent has. */
const PROXY_VARIABLES = ['http_proxy', 'HTTP_PROXY', 'https_proxy', 'HTTPS_PROXY', 'all_proxy', 'ALL_PROXY', 'no_proxy', 'NO_PROXY'];

function env(dir: string, extra: Record<string, string> = {}): Record<string, string | undefined> {
  return {
    ...Object.fromEntries(PROXY_VARIABLES.map((name) => [name, undefined])),
    RSI_CONFIG_DIR: dir,
    RSI_CREDENTIAL_STORE: 'file',
    BROWSER: FAKE_BROWSER,
    // The fake browser, like a person's browser behind the same proxy, reaches rsi.test.
    RSI_TEST_HOSTS: 'rsi.test=127.0.0.1',
    NODE_EXTRA_CA_CERTS: sandbox.caFile!,
    ...extra,
  };
}

describe('behind a CONNECT proxy (HTTPS_PROXY with credentials)', () => {
  it('signs in, calls the API, refreshes, runs doctor and logs out all through the proxy, never printing its password', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rsi-proxy-'));
    const e = env(dir, { HTTPS_PROXY: proxyUrl });
    const outputs: string[] = [];
    const kinds = new Set<string>();
    const run = async (args: string[]) => {
      const r = await runCli(['--debug', ...args], { env: e });
      outputs.push(r.stdout, r.stderr);
      const traced = tracedRequests(r.stderr);
      expect(traced.length, r.stderr).toBeGreaterThan(0);
      // Every request the command made went through the proxy (none direct).
      expect(traced.filter(([, proxied]) => !proxied)).toEqual([]);
      for (const [request] of traced) kinds.add(request.replace(/^(\w+) https:\/\/rsi\.test:\d+/, '$1 '));
      return r;
    };

    const login = await run(['login', '--base-url', sandbox.url]);
    expect(login.code, login.stderr).toBe(0);
    expect(proxy.hits.length).toBeGreaterThan(0);
    expect(proxy.hits.every((h) => h.method === 'CONNECT' && h.target === new URL(sandbox.url).host)).toBe(true);
    expect(proxy.hits.every((h) => h.authorization === BASIC)).toBe(true);
    expect(login.stderr).toContain(`* through proxy http://[redacted]@127.0.0.1:${proxy.port}`);

    // The second login checks its cached registration with the authorize probe.
    const again = await run(['login', '--base-url', sandbox.url]);
    expect(again.code, again.stderr).toBe(0);

    const list = await run(['projects', 'list', '--json']);
    expect(list.code, list.stderr).toBe(0);

    // An expired access token: the refresh goes through the proxy as well.
    const file = join(dir, 'credentials.json');
    const stored = JSON.parse(readFileSync(file, 'utf8')) as Record<string, { expiresAt: number }>;
    for (const entry of Object.values(stored)) entry.expiresAt = 0;
    writeFileSync(file, JSON.stringify(stored), { mode: 0o600 });
    const refreshed = await run(['projects', 'list', '--json']);
    expect(refreshed.code, refreshed.stderr).toBe(0);

    const doctor = await run(['doctor']);
    expect(doctor.stdout).toContain(`proxy: http://[redacted]@127.0.0.1:${proxy.port} (from HTTPS_PROXY)`);
    expect(doctor.stdout).toMatch(/service reachable: 200 in \d+ ms through the proxy http:\/\/\[redacted\]@127\.0\.0\.1/);

    const logout = await run(['logout']);
    expect(logout.code, logout.stderr).toBe(0);

    expect([...kinds].sort()).toEqual(
      expect.arrayContaining([
        'GET /.well-known/oauth-protected-resource/api/v1',
        'GET /.well-known/oauth-authorization-server',
        'POST /oauth/register',
        'GET /oauth/authorize',
        'POST /oauth/token',
        'GET /api/v1/projects',
        'POST /oauth/revoke',
      ]),
    );
    for (const text of outputs) {
      expect(text).not.toContain(PROXY_PASSWORD);
      expect(text).not.toContain(BASIC.slice(6));
    }
  });

  it('honours lower-case https_proxy; NO_PROXY sends a host direct; loopback is never proxied', async () => {
    const lower = mkdtempSync(join(tmpdir(), 'rsi-proxy-'));
    const viaLower = await runCli(['login', '--base-url', sandbox.url], { env: env(lower, { https_proxy: proxyUrl }) });
    expect(viaLower.code, viaLower.stderr).toBe(0);
    expect(proxy.hits.length).toBeGreaterThan(0);

    // NO_PROXY covers rsi.test: rsi goes direct, where that name does not resolve.
    proxy.hits.length = 0;
    const bypass = mkdtempSync(join(tmpdir(), 'rsi-proxy-'));
    const skipped = await runCli(['login', '--base-url', sandbox.url], { env: env(bypass, { HTTPS_PROXY: proxyUrl, NO_PROXY: '.test' }) });
    expect(skipped.code).toBe(8);
    expect(skipped.stderr).toMatch(/^rsi: cannot reach the service \(GET https:\/\/rsi\.test:\d+\/.*\): host not found$/m);
    expect(proxy.hits).toHaveLength(0);

    // The same sandbox by its loopback address, proxy set and NO_PROXY empty: direct.
    const token = JSON.parse(readFileSync(join(lower, 'credentials.json'), 'utf8')) as Record<string, { accessToken?: string }>;
    const access = Object.values(token).find((t) => t.accessToken)?.accessToken;
    expect(access).toBeTruthy();
    const direct = mkdtempSync(join(tmpdir(), 'rsi-proxy-'));
    const e = env(direct, { HTTPS_PROXY: proxyUrl, HTTP_PROXY: proxyUrl, RSI_TOKEN: access!, RSI_BASE_URL: sandbox.local });
    const list = await runCli(['projects', 'list', '--json'], { env: e });
    expect(list.code, list.stderr).toBe(0);
    const doctor = await runCli(['doctor'], { env: e });
    expect(doctor.stdout).toContain('proxy: none for 127.0.0.1');
    expect(doctor.stdout).toContain('(loopback is never proxied)');
    expect(doctor.stdout).toMatch(/service reachable: 200 in \d+ ms directly/);
    expect(proxy.hits).toHaveLength(0);
  });

  it('a proxy that refuses its credentials (407): exit 8 naming the proxy (redacted) and the variable, the password nowhere', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rsi-proxy-'));
    const wrong = proxy.url.replace('//', '//carol:not-the-pa55word@');
    const r = await runCli(['--debug', 'login', '--base-url', sandbox.url], { env: env(dir, { HTTPS_PROXY: wrong }) });
    expect(r.code).toBe(8);
    expect(r.stderr).toMatch(
      /^rsi: the proxy http:\/\/\[redacted\]@127\.0\.0\.1:\d+ refused GET https:\/\/rsi\.test:\d+\/\S+: it wants credentials \(407\)$/m,
    );
    expect(r.stderr).toContain('hint: put them in the proxy URL: HTTPS_PROXY=http://user:password@host:port');
    expect(r.stderr.match(/^rsi: /gm)).toHaveLength(1);
    expect(r.stderr + r.stdout).not.toContain('not-the-pa55word');
    expect(proxy.hits).toHaveLength(1);
  });

  it('a proxy that refuses CONNECT: exit 8, one line saying the tunnel was refused, one try', async () => {
    const refusing = await startProxy({ refuseConnect: 403 });
    try {
      const dir = mkdtempSync(join(tmpdir(), 'rsi-proxy-'));
      const r = await runCli(['login', '--base-url', sandbox.url], { env: env(dir, { HTTPS_PROXY: refusing.url }) });
      expect(r.code).toBe(8);
      expect(r.stderr).toMatch(
        /^rsi: the proxy http:\/\/127\.0\.0\.1:\d+ \(HTTPS_PROXY\) would not open a tunnel to rsi\.test:\d+ \(403\); GET https:\/\/rsi\.test:\d+\/\S+ was not sent$/m,
      );
      expect(r.stderr).toContain('hint: check HTTPS_PROXY');
      expect(r.stderr.match(/^rsi: /gm)).toHaveLength(1);
      expect(refusing.hits.map((h) => h.method)).toEqual(['CONNECT']);

      // An API GET, which rsi retries on network failures, 502 and 503: a refused tunnel is one try.
      refusing.hits.length = 0;
      const list = await runCli(['projects', 'list'], {
        env: env(dir, { HTTPS_PROXY: refusing.url, RSI_TOKEN: 'any-token', RSI_BASE_URL: sandbox.url }),
      });
      expect(list.code).toBe(8);
      expect(list.stderr).toMatch(
        /^rsi: the proxy \S+ \(HTTPS_PROXY\) would not open a tunnel to rsi\.test:\d+ \(403\); GET \S+ was not sent$/m,
      );
      expect(list.stderr).not.toContain('retrying');
      expect(refusing.hits.map((h) => h.method)).toEqual(['CONNECT']);
    } finally {
      await refusing.stop();
    }
  });

  it('--http-timeout bounds the whole request: a reply dripping a byte at a time through the tunnel ends with exit 8', async () => {
    const ca = createTestCa();
    let requests = 0;
    const drip = createServer(ca.issue('drip', { subjectAltName: 'DNS:drip.test' }), (req, res) => {
      requests++;
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('[');
      // Each gap is well under the timeout: only a deadline on the whole request can end this.
      const timer = setInterval(() => res.write(' '), 200);
      res.on('close', () => clearInterval(timer));
    });
    await new Promise<void>((resolve) => drip.listen(0, '127.0.0.1', resolve));
    const port = (drip.address() as AddressInfo).port;
    const dripProxy = await startProxy({ hosts: { 'drip.test': '127.0.0.1' } });
    try {
      const dir = mkdtempSync(join(tmpdir(), 'rsi-proxy-'));
      // A deadline of 10 s, not 1: under load the CONNECT and the TLS handshake alone took over
      // a second, so the request timed out before the server saw it. Ten seconds of 200 ms drips
      // is still only ever ended by the deadline on the whole request.
      const r = await runCli(['projects', 'list', '--http-timeout', '10'], {
        env: env(dir, {
          HTTPS_PROXY: dripProxy.url,
          NODE_EXTRA_CA_CERTS: ca.caFile,
          RSI_TOKEN: 'drip-token',
          RSI_BASE_URL: `https://drip.test:${port}`,
        }),
      });
      expect(r.signal).toBeNull();
      expect(r.code, r.stderr).toBe(8);
      expect(r.stderr).toMatch(
        /^rsi: GET https:\/\/drip\.test:\d+\/api\/v1\/projects timed out after 10 s \(through the proxy http:\/\/127\.0\.0\.1:\d+, HTTPS_PROXY\)$/m,
      );
      // The first attempt and one retry (a timeout is retried once), each through the proxy: at
      // least one reached the dripping server (a machine stalled for the whole deadline could
      // keep the other from getting there, which is not what this test is about).
      expect(requests).toBeGreaterThanOrEqual(1);
      expect(requests).toBeLessThanOrEqual(2);
      expect(dripProxy.hits.length).toBeGreaterThan(0);
    } finally {
      drip.closeAllConnections();
      await new Promise((resolve) => drip.close(resolve));
      await dripProxy.stop();
    }
  });
});

describe('behind a SOCKS5 proxy rsi did not write (ALL_PROXY=socks5h://user:password@…)', () => {
  it('signs in and calls the API over TLS through it, its password nowhere; a wrong password is one line, exit 8, one try', async () => {
    const password = 's0cks-pa55word';
    const socks = await startSocks({ auth: { username: 'erin', password }, hosts: { 'rsi.test': '127.0.0.1' } });
    try {
      const dir = mkdtempSync(join(tmpdir(), 'rsi-socks-'));
      const e = env(dir, { ALL_PROXY: socks.url.replace('//', `//erin:${password}@`) });
      const outputs: string[] = [];
      for (const args of [
        ['login', '--base-url', sandbox.url],
        ['projects', 'list', '--json'],
      ]) {
        const r = await runCli(['--debug', ...args], { env: e });
        outputs.push(r.stdout, r.stderr);
        expect(r.code, r.stderr).toBe(0);
        const traced = tracedRequests(r.stderr);
        expect(traced.length).toBeGreaterThan(0);
        expect(traced.filter(([, proxied]) => !proxied)).toEqual([]);
        expect(r.stderr).toContain(`* through proxy socks5h://[redacted]@127.0.0.1:${socks.port}`);
      }
      // The proxy resolved rsi.test (socks5h://) and every tunnel carried the proxy's user.
      expect(socks.hits.length).toBeGreaterThan(0);
      expect(socks.hits.every((h) => h.host === 'rsi.test' && h.port === Number(new URL(sandbox.url).port) && h.user === 'erin')).toBe(
        true,
      );
      for (const text of outputs) expect(text).not.toContain(password);

      socks.hits.length = 0;
      const wrong = await runCli(['projects', 'list', '--json'], { env: { ...e, ALL_PROXY: socks.url.replace('//', '//erin:not-it@') } });
      expect(wrong.code).toBe(8);
      expect(wrong.stderr).toMatch(
        /^rsi: the proxy socks5h:\/\/\[redacted\]@127\.0\.0\.1:\d+ \(ALL_PROXY\) rejected the user name and password in the proxy URL; GET https:\/\/rsi\.test:\d+\/api\/v1\/projects\S* was not sent$/m,
      );
      expect(wrong.stderr.match(/^rsi: /gm)).toHaveLength(1);
      expect(wrong.stderr + wrong.stdout).not.toContain('not-it');
      expect(wrong.stdout).toBe('');
      // Rejected credentials are not asked again: the proxy saw no CONNECT.
      expect(socks.hits).toHaveLength(0);
    } finally {
      await socks.stop();
    }
  });
});

describe('which variable carries which request (as curl and Go read them)', () => {
  // Each test runs two or three rsi processes: room for a machine busy with other work.
  const SLOW = 120_000;
  const cli = (args: string[], extra: Record<string, string>) => runCli(args, { env: env(signedIn, extra) });
  let signedIn: string;
  beforeAll(async () => {
    // Signed in once, through ALL_PROXY alone: curl's fallback carries the whole sign-in.
    signedIn = mkdtempSync(join(tmpdir(), 'rsi-proxy-'));
    proxy.hits.length = 0;
    const login = await cli(['login', '--base-url', sandbox.url], { ALL_PROXY: proxyUrl });
    expect(login.code, login.stderr).toBe(0);
    expect(proxy.hits.length).toBeGreaterThan(0);
    expect(proxy.hits.every((h) => h.method === 'CONNECT' && h.authorization === BASIC)).toBe(true);
  }, SLOW);

  it.each([['HTTP_PROXY'], ['http_proxy']])(
    '%s alone does not carry an https:// request: rsi goes direct, and the hint names HTTPS_PROXY',
    async (name) => {
      const r = await cli(['projects', 'list', '--json'], { [name]: proxyUrl });
      // rsi.test resolves only through the proxy: direct, it is not found.
      expect(r.code).toBe(8);
      expect(r.stderr).toMatch(/^rsi: cannot reach the service \(GET https:\/\/rsi\.test:\d+\/api\/v1\/projects\): host not found$/m);
      expect(r.stderr).toContain('hint: set HTTPS_PROXY (or ALL_PROXY) if https:// needs the proxy: ');
      expect(r.stderr).not.toContain(PROXY_PASSWORD);
      expect(proxy.hits).toHaveLength(0);
      const doctor = await cli(['doctor'], { [name]: proxyUrl });
      expect(doctor.stdout).toContain(`proxy: none (HTTPS_PROXY, ALL_PROXY not set; ${name} carries http:// URLs only, as in curl and Go)`);
      expect(proxy.hits).toHaveLength(0);
    },
    SLOW,
  );

  it(
    'HTTPS_PROXY carries it, and wins over ALL_PROXY; ALL_PROXY alone carries it too',
    async () => {
      // ALL_PROXY names a port nothing listens on: were it used, the request would fail.
      const both = await cli(['--debug', 'projects', 'list', '--json'], {
        HTTPS_PROXY: proxyUrl,
        HTTP_PROXY: 'http://127.0.0.1:9',
        ALL_PROXY: 'http://127.0.0.1:9',
      });
      expect(both.code, both.stderr).toBe(0);
      expect(tracedRequests(both.stderr).filter(([, proxied]) => !proxied)).toEqual([]);
      expect(proxy.hits.map((h) => h.method)).toEqual(['CONNECT']);

      proxy.hits.length = 0;
      const all = await cli(['projects', 'list', '--json'], { all_proxy: proxyUrl });
      expect(all.code, all.stderr).toBe(0);
      expect(proxy.hits.map((h) => h.method)).toEqual(['CONNECT']);
      const doctor = await cli(['doctor'], { all_proxy: proxyUrl });
      expect(doctor.stdout).toContain(`proxy: http://[redacted]@127.0.0.1:${proxy.port} (from all_proxy)`);
    },
    SLOW,
  );

  it(
    'an ALL_PROXY rsi cannot speak (socks4://) is a usage error only where it would carry a request',
    async () => {
      proxy.hits.length = 0;
      const overridden = await cli(['projects', 'list', '--json'], { HTTPS_PROXY: proxyUrl, ALL_PROXY: 'socks4://gw.test:1080' });
      expect(overridden.code, overridden.stderr).toBe(0);
      expect(proxy.hits.map((h) => h.method)).toEqual(['CONNECT']);
      const used = await cli(['projects', 'list', '--json'], { ALL_PROXY: 'socks4://gw.test:1080' });
      expect(used.code).toBe(2);
      expect(used.stderr).toBe('rsi: ALL_PROXY uses an unsupported scheme (socks4:); use http://, https://, socks5:// or socks5h://\n');
      expect(used.stdout).toBe('');
    },
    SLOW,
  );
});

// A service behind a certificate from a private CA (as behind a corporate TLS gateway): real
// `bin/rsi.js` processes against a real sandbox behind an https front (test/support/tls.ts). Without
// the CA, login and API calls fail with exit 8 and a hint naming NODE_EXTRA_CA_CERTS; with the
// documented NODE_EXTRA_CA_CERTS=/path/ca.pem both work. A wrong host name and an expired
// certificate each get their own message.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { obtainTokens } from '../support/oauth.js';
import { type InProcessSandbox, startSandbox } from '../support/inproc.js';
import { startProxy, type TestProxy } from '../support/proxy.js';
import { createTestCa, startHttpsFront, type HttpsFront, type TestCa } from '../support/tls.js';
import { FAKE_BROWSER } from '../support/browser.js';

let sandbox: InProcessSandbox;
let ca: TestCa;
let good: HttpsFront;
let wrongHost: HttpsFront;
let expired: HttpsFront;
/** An https front named rsi.test, a name only `proxy` resolves. */
let named: HttpsFront;
let proxy: TestProxy;

beforeAll(async () => {
  sandbox = await startSandbox(['--auto-approve']);
  ca = createTestCa();
  [good, wrongHost, expired, named] = await Promise.all([
    startHttpsFront(sandbox.url, ca.issue('good', { subjectAltName: 'IP:127.0.0.1,DNS:localhost' })),
    startHttpsFront(sandbox.url, ca.issue('other', { subjectAltName: 'DNS:service.example' })),
    startHttpsFront(sandbox.url, ca.issue('expired', { subjectAltName: 'IP:127.0.0.1', days: -1 })),
    startHttpsFront(sandbox.url, ca.issue('named', { subjectAltName: 'DNS:rsi.test' }), 'rsi.test'),
  ]);
  proxy = await startProxy({ hosts: { 'rsi.test': '127.0.0.1' } });
});
afterAll(async () => {
  await Promise.all([sandbox?.stop(), good?.stop(), wrongHost?.stop(), expired?.stop(), named?.stop(), proxy?.stop()]);
});

function env(extra: Record<string, string> = {}): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), 'rsi-tls-'));
  return { RSI_CONFIG_DIR: dir, RSI_CREDENTIAL_STORE: 'file', BROWSER: FAKE_BROWSER, NODE_EXTRA_CA_CERTS: '', ...extra };
}

describe('a service with a private CA', () => {
  it('without the CA: login and an API call fail with exit 8 and name NODE_EXTRA_CA_CERTS', async () => {
    const login = await runCli(['login', '--base-url', good.url], { env: env() });
    expect(login.code).toBe(8);
    expect(login.stderr).toMatch(
      /^rsi: cannot reach the service \(GET https:\/\/127\.0\.0\.1:\d+\/.*\): the TLS certificate of 127\.0\.0\.1:\d+ is/m,
    );
    expect(login.stderr).toContain('hint: if your network uses its own certificate authority');
    expect(login.stderr).toContain('NODE_EXTRA_CA_CERTS=/path/ca.pem');

    const tokens = await obtainTokens(sandbox.url, { resource: `${sandbox.url}/api/v1` });
    const api = await runCli(['projects', 'list', '--json'], { env: env({ RSI_TOKEN: tokens.access_token, RSI_BASE_URL: good.url }) });
    expect(api.code).toBe(8);
    expect(api.stderr).toContain('NODE_EXTRA_CA_CERTS=/path/ca.pem');
    // Not retried: an untrusted certificate does not become trusted by waiting.
    expect(api.stderr.match(/^rsi: /gm)).toHaveLength(1);
  });

  it('with NODE_EXTRA_CA_CERTS=/path/ca.pem, as docs/auth.md says: login and an API call work', async () => {
    const e = env({ NODE_EXTRA_CA_CERTS: ca.caFile });
    const before = good.requests;
    const login = await runCli(['login', '--base-url', good.url], { env: e });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stderr).toContain(`Signed in to ${good.url}`);
    const list = await runCli(['projects', 'list', '--json'], { env: e });
    expect(list.code, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout)).toBeTruthy();
    expect(list.stdout).toContain('"id"');
    expect(good.requests).toBeGreaterThan(before);
  });

  it('a certificate for another host name and an expired one each say so', async () => {
    const e = env({ NODE_EXTRA_CA_CERTS: ca.caFile });
    const mismatch = await runCli(['login', '--base-url', wrongHost.url], { env: e });
    expect(mismatch.code).toBe(8);
    expect(mismatch.stderr).toContain('is for another host name (ERR_TLS_CERT_ALTNAME_INVALID)');
    expect(mismatch.stderr).toContain('hint: check --base-url');

    const old = await runCli(['login', '--base-url', expired.url], { env: e });
    expect(old.code).toBe(8);
    expect(old.stderr).toContain('has expired (CERT_HAS_EXPIRED)');
    expect(old.stderr).toContain("hint: check your computer's clock");
  });
});

describe('through a CONNECT proxy', () => {
  it('reaches an https host only the proxy resolves: the tunnel is opened (HTTPS_PROXY), the reply read', async () => {
    // The regression: undici's CONNECT method was not bundled, so this exited 8 with
    // "this[kClient].connect is not a function" before the proxy saw anything.
    const tokens = await obtainTokens(sandbox.url, { resource: `${sandbox.url}/api/v1` });
    proxy.hits.length = 0;
    const before = named.requests;
    const r = await runCli(['projects', 'list', '--json'], {
      env: env({ NODE_EXTRA_CA_CERTS: ca.caFile, HTTPS_PROXY: proxy.url, RSI_TOKEN: tokens.access_token, RSI_BASE_URL: named.url }),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('"id"');
    expect(proxy.hits.map((h) => `${h.method} ${h.target}`)).toEqual([`CONNECT ${new URL(named.url).host}`]);
    expect(named.requests).toBe(before + 1);
  });
});

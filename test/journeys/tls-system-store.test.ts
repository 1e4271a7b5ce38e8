// The operating system's trust store (issue 31): a private CA installed in this machine's store the
// way an administrator installs a corporate one (update-ca-certificates, as root), then real
// `bin/rsi.js` processes against `rsi sandbox --tls --tls-cert … --tls-key …` with a certificate
// from that CA and NO NODE_EXTRA_CA_CERTS: sign-in and every read command work, directly and
// through a CONNECT proxy; RSI_NO_SYSTEM_CA=1 turns the store off and the failure's hint says so.
// On a Node that cannot read the store (before 22.15) the hint says what to do instead. The CA is
// limited by name constraints to loopback and .test names, and taken out of the store at the end.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { EXE, exePart } from '../support/exe.js';
import { startProxy, type TestProxy } from '../support/proxy.js';
import { type InProcessSandbox, startSandbox } from '../support/inproc.js';
import { skipWithout } from '../support/system.js';
import { FAKE_BROWSER } from '../support/browser.js';
import { createTestCa, installInSystemStore, systemTrustStorePart, type TestCa } from '../support/tls.js';

const skip = skipWithout(systemTrustStorePart());
/** Whether this Node (the one every spawned rsi runs on) can read the system store. */
const nodeReadsStore = typeof (process.getBuiltinModule('node:tls') as { getCACertificates?: unknown }).getCACertificates === 'function';

/**
 * Each test's bound: sign-ins on a machine shared by many test runs have taken over 20 s, and the
 * first read of the system store longer. Each rsi run's own bound is runCli's (240 s).
 */
const LONG = 600_000;
let ca: TestCa;
let uninstall: (() => void) | undefined;
/** On 127.0.0.1, reached directly. */
let direct: InProcessSandbox;
/** Named rsi.test, which only the proxy resolves. */
let named: InProcessSandbox;
let proxy: TestProxy;

beforeAll(async () => {
  if (skip) return;
  ca = createTestCa({ loopbackOnly: true });
  ca.issue('service', { subjectAltName: 'IP:127.0.0.1,DNS:localhost,DNS:rsi.test' });
  uninstall = installInSystemStore(ca.caFile);
  const tls = ['--tls', '--tls-cert', join(ca.dir, 'service.pem'), '--tls-key', join(ca.dir, 'service.key')];
  [direct, named, proxy] = await Promise.all([
    startSandbox(['--auto-approve', '--quiet', ...tls]),
    startSandbox(['--auto-approve', '--quiet', ...tls, '--public-host', 'rsi.test']),
    startProxy({ hosts: { 'rsi.test': '127.0.0.1' } }),
  ]);
  // update-ca-certificates walks every certificate of the store with a shell loop: tens of seconds
  // on a busy machine.
}, LONG);
afterAll(async () => {
  uninstall?.();
  await Promise.all([direct?.stop(), named?.stop(), proxy?.stop()]);
}, LONG);

/** No NODE_EXTRA_CA_CERTS (this machine's shell sets one), and the store in its default place. */
function env(configDir: string, extra: Record<string, string> = {}): Record<string, string | undefined> {
  return {
    RSI_CONFIG_DIR: configDir,
    RSI_CREDENTIAL_STORE: 'file',
    // The stand-in browser is not under test: it is told the CA (rsi gets its environment).
    BROWSER: `env NODE_EXTRA_CA_CERTS=${ca.caFile} ${FAKE_BROWSER}`,
    NODE_EXTRA_CA_CERTS: undefined,
    NODE_USE_SYSTEM_CA: undefined,
    SSL_CERT_FILE: undefined,
    SSL_CERT_DIR: undefined,
    ...extra,
  };
}

describe.skipIf(skip || !nodeReadsStore)('a CA in the system trust store, no NODE_EXTRA_CA_CERTS', () => {
  const configDir = mkdtempSync(join(tmpdir(), 'rsi-system-ca-'));

  it(
    'signs in (API and MCP); the --debug trace says the system store was read after Node roots failed',
    async () => {
      const login = await runCli(['--debug', 'login', '--base-url', direct.url], { env: env(configDir) });
      expect(login.code, login.stderr).toBe(0);
      expect(login.stderr).toContain(`Signed in to ${direct.url}`);
      expect(login.stderr).toMatch(/^\* certificate not trusted by Node's roots: trying again with the system's trust store \(\d+ more/m);
      // Read once per process, however many requests the sign-in made.
      expect(login.stderr.match(/trying again with the system's trust store/g)).toHaveLength(1);
      // The MCP server's own sign-in (its discovery too), for scoreboard and mcp tools below.
      const mcp = await runCli(['login', '--resource', 'mcp'], { env: env(configDir) });
      expect(mcp.code, mcp.stderr).toBe(0);
    },
    LONG,
  );

  it(
    'every read command works',
    async () => {
      const commands = [
        ['projects', 'list', '--json'],
        ['keywords', 'search', 'EGFR', '--json'],
        ['keywords', 'get', 'erbb1', '--json'],
        ['keywords', 'relations', 'NSCLC', '--relation', 'assets', '--limit', '5', '--json'],
        ['opportunities', 'Oncology watchlist', '--json'],
        ['signals', 'KRAS inhibitors', '--limit', '5', '--json'],
        ['status', 'KRAS inhibitors', '--json'],
        ['scoreboard', 'Oncology watchlist', '--json', '--limit', '2'],
        ['mcp', 'tools', '--json'],
        ['api', 'GET', '/projects'],
        ['auth', 'status', '--json'],
        ['doctor', '--json'],
      ];
      // Two at a time: a busy machine must make this slower, never make it fail.
      for (let i = 0; i < commands.length; i += 2) {
        const batch = commands.slice(i, i + 2);
        const results = await Promise.all(batch.map((args) => runCli(args, { env: env(configDir) })));
        results.forEach((r, j) => {
          const args = batch[j]!.join(' ');
          expect(r.code, `${args}: ${r.stderr}`).toBe(0);
          expect(JSON.parse(r.stdout), args).toBeTruthy();
        });
      }
    },
    LONG,
  );

  it(
    'through a CONNECT proxy to a host only the proxy resolves',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'rsi-system-ca-proxy-'));
      const e = env(dir, { HTTPS_PROXY: proxy.url, RSI_TEST_HOSTS: 'rsi.test=127.0.0.1' });
      const before = proxy.hits.length;
      const login = await runCli(['login', '--base-url', named.url], { env: e });
      expect(login.code, login.stderr).toBe(0);
      const list = await runCli(['projects', 'list', '--json'], { env: e });
      expect(list.code, list.stderr).toBe(0);
      expect(list.stdout).toContain('"id"');
      expect(proxy.hits.length).toBeGreaterThan(before);
      expect(proxy.hits.slice(before).every((h) => h.method === 'CONNECT')).toBe(true);
    },
    LONG,
  );

  it(
    'RSI_NO_SYSTEM_CA=1 turns the store off: exit 8, once, with a hint naming it and NODE_EXTRA_CA_CERTS',
    async () => {
      const r = await runCli(['projects', 'list', '--json'], { env: env(configDir, { RSI_NO_SYSTEM_CA: '1' }) });
      expect(r.code).toBe(8);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(
        /^rsi: cannot reach the service \(GET https:\/\/127\.0\.0\.1:\d+\/api\/v1\/projects\): the TLS certificate/m,
      );
      expect(r.stderr).toContain(
        "hint: if your network uses its own certificate authority (a corporate proxy or gateway), trust it: NODE_EXTRA_CA_CERTS=/path/ca.pem, or let rsi read the system's trust store: unset RSI_NO_SYSTEM_CA",
      );
      expect(r.stderr.match(/^rsi: /gm)).toHaveLength(1);
      // With the CA named explicitly it works again, the store still off.
      const named = await runCli(['projects', 'list', '--json'], {
        env: env(configDir, { RSI_NO_SYSTEM_CA: '1', NODE_EXTRA_CA_CERTS: ca.caFile }),
      });
      expect(named.code, named.stderr).toBe(0);
    },
    LONG,
  );
});

describe.skipIf(skip || nodeReadsStore)(`a CA in the system trust store, on Node ${process.version}, which cannot read it`, () => {
  it(
    'sign-in fails with exit 8 and a hint naming NODE_EXTRA_CA_CERTS and the Node that reads the store',
    async () => {
      const r = await runCli(['login', '--base-url', direct.url], {
        env: env(mkdtempSync(join(tmpdir(), 'rsi-system-ca-'))),
      });
      expect(r.code).toBe(8);
      expect(r.stderr).toContain(
        `trust it: NODE_EXTRA_CA_CERTS=/path/ca.pem (Node ${process.version} cannot read the system's trust store; on Node 22.15 or later rsi trusts it too)`,
      );
    },
    LONG,
  );
});

// The single executable embeds Node 26, which reads the store whatever Node runs the tests.
const noExe = skip || skipWithout(exePart());
describe.skipIf(noExe)('the single executable and the system trust store', () => {
  it(
    'signs in and lists projects with no NODE_EXTRA_CA_CERTS',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'rsi-system-ca-exe-'));
      const login = await runCli(['login', '--base-url', direct.url], { bin: EXE, env: env(dir) });
      expect(login.code, login.stderr).toBe(0);
      const list = await runCli(['projects', 'list', '--json'], { bin: EXE, env: env(dir) });
      expect(list.code, list.stderr).toBe(0);
      expect(list.stdout).toContain('"id"');
    },
    LONG,
  );
});

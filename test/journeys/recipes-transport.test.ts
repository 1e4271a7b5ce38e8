// The transport recipes of the docs, run as written under `bash -e -o pipefail` with `rsi` on
// PATH: docs/sandbox.md's HTTPS sandbox (started by the recipe itself, trusted through the CA path
// it prints), and docs/auth.md's "Behind a proxy" through a real CONNECT proxy that wants the
// recipe's credentials, to `rsi sandbox --tls` under a host name only that proxy resolves. Only the
// example proxy address, CA path and service URL are replaced.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProxy, type TestProxy } from '../support/proxy.js';
import { type InProcessSandbox, startSandbox } from '../support/inproc.js';
import { codeBlocks, runBash } from '../support/shell.js';
import { FAKE_BROWSER } from '../support/browser.js';

const docs = (name: string) => readFileSync(new URL(`../../docs/${name}`, import.meta.url), 'utf8');

/** The one sh block of `doc` containing `marker`. */
function recipe(doc: string, marker: string): string {
  const found = codeBlocks(doc, 'sh').filter((b) => b.code.includes(marker));
  expect(found, `one recipe containing ${JSON.stringify(marker)}`).toHaveLength(1);
  return found[0]!.code;
}

let sandbox: InProcessSandbox;
let proxy: TestProxy;
beforeAll(async () => {
  [sandbox, proxy] = await Promise.all([
    startSandbox(['--auto-approve', '--quiet', '--tls', '--public-host', 'research.test']),
    // The recipe's user alice, password pa@ss (written pa%40ss in the URL).
    startProxy({ credentials: { user: 'alice', password: 'pa@ss' }, hosts: { 'research.test': '127.0.0.1' } }),
  ]);
});
afterAll(async () => {
  await Promise.all([sandbox?.stop(), proxy?.stop()]);
});

describe('docs/auth.md "Behind a proxy"', () => {
  it('signs in, checks and walks --all through the proxy with its credentials, as written', async () => {
    const code = recipe(docs('auth.md'), 'export HTTPS_PROXY=http://alice:pa%40ss@proxy.corp.example:3128');
    const cwd = mkdtempSync(join(tmpdir(), 'rsi-recipe-'));
    const r = await runBash(
      code
        .replaceAll('proxy.corp.example:3128', `127.0.0.1:${proxy.port}`)
        .replaceAll('/path/ca.pem', sandbox.caFile!)
        .replaceAll('https://research.example.com', sandbox.url),
      {
        cwd,
        env: {
          RSI_CONFIG_DIR: join(cwd, 'config'),
          RSI_CREDENTIAL_STORE: 'file',
          BROWSER: FAKE_BROWSER,
          RSI_TEST_HOSTS: 'research.test=127.0.0.1',
        },
      },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`proxy: http://[redacted]@127.0.0.1:${proxy.port} (from HTTPS_PROXY)`);
    expect(r.stdout).toMatch(/service reachable: 200 in \d+ ms through the proxy/);
    const assets = JSON.parse(readFileSync(join(cwd, 'assets.json'), 'utf8')) as unknown[];
    expect(assets.length).toBeGreaterThan(100);
    expect(proxy.hits.length).toBeGreaterThan(0);
    expect(
      proxy.hits.every((h) => h.method === 'CONNECT' && h.authorization === `Basic ${Buffer.from('alice:pa@ss').toString('base64')}`),
    ).toBe(true);
    expect(r.stdout + r.stderr).not.toContain('pa@ss');
    expect(r.stdout + r.stderr).not.toContain('pa%40ss');
  });
});

describe('docs/sandbox.md "HTTPS (--tls)"', () => {
  it('starts an HTTPS sandbox, trusts its CA from the second line, signs in and lists projects; the CA goes with it', async () => {
    const code = recipe(docs('sandbox.md'), 'rsi sandbox --tls');
    const cwd = mkdtempSync(join(tmpdir(), 'rsi-recipe-'));
    const r = await runBash(code, {
      cwd,
      env: { RSI_CONFIG_DIR: join(cwd, 'config'), RSI_CREDENTIAL_STORE: 'file', BROWSER: FAKE_BROWSER },
    });
    expect(r.code, r.stderr).toBe(0);
    const [url, caFile] = readFileSync(join(cwd, 'sandbox.out'), 'utf8').trim().split('\n');
    expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(r.stderr).toContain(`Signed in to ${url}`);
    expect(r.stdout).toContain('KRAS inhibitors');
    // kill sends SIGTERM; the sandbox removes its CA folder as it stops.
    await expect.poll(() => existsSync(caFile!)).toBe(false);
  });
});

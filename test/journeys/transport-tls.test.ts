// The production transport end to end: real `bin/rsi.js` processes against a real `rsi sandbox
// --tls` (HTTPS, its throwaway CA trusted with NODE_EXTRA_CA_CERTS exactly as a corporate CA is)
// through a real CONNECT proxy. The sandbox is named rsi.test, a name only the proxy resolves: a
// request that bypassed the proxy could not reach it, and every command's --debug trace must show
// each request going through the proxy. Covered: sign-in (API and MCP), every read command, --all
// walks, analyses --wait, a refresh, MCP, logout's revoke — every kind of request: discovery,
// registration, authorize probe, token, refresh, revoke, API, MCP.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import * as S from '../../src/client/schemas.js';
import { runCli, type CliResult } from '../support/cli.js';
import { startProxy, tracedRequests, type TestProxy } from '../support/proxy.js';
import { expireTokens, sandboxFetch, sandboxStats } from '../support/sandbox.js';
import { type InProcessSandbox, startSandbox } from '../support/inproc.js';
import { FAKE_BROWSER } from '../support/browser.js';

let sandbox: InProcessSandbox;
let proxy: TestProxy;
let configDir: string;
/** Every request kind seen in the traces, as `METHOD /path`. */
const kinds = new Set<string>();

beforeAll(async () => {
  [sandbox, proxy] = await Promise.all([
    startSandbox(['--auto-approve', '--quiet', '--time-scale', '200', '--tls', '--public-host', 'rsi.test']),
    startProxy({ credentials: { user: 'dave', password: 'tunnel-pa55' }, hosts: { 'rsi.test': '127.0.0.1' } }),
  ]);
  configDir = mkdtempSync(join(tmpdir(), 'rsi-transport-'));
});
afterAll(async () => {
  await Promise.all([sandbox?.stop(), proxy?.stop()]);
});

/** bin/rsi.js --debug through the proxy; fails the test if any request of the run went direct. */
async function rsi(args: string[], extra: Record<string, string> = {}): Promise<CliResult> {
  const before = proxy.hits.length;
  const r = await runCli(['--debug', ...args], {
    env: {
      RSI_CONFIG_DIR: configDir,
      RSI_CREDENTIAL_STORE: 'file',
      RSI_BASE_URL: sandbox.url,
      BROWSER: FAKE_BROWSER,
      RSI_TEST_HOSTS: 'rsi.test=127.0.0.1',
      NODE_EXTRA_CA_CERTS: sandbox.caFile!,
      HTTPS_PROXY: proxy.url.replace('//', '//dave:tunnel-pa55@'),
      ...extra,
    },
  });
  const traced = tracedRequests(r.stderr);
  expect(traced.length, `${args.join(' ')}: ${r.stderr}`).toBeGreaterThan(0);
  expect(
    traced.filter(([, proxied]) => !proxied),
    args.join(' '),
  ).toEqual([]);
  expect(proxy.hits.length, `${args.join(' ')} opened no tunnel`).toBeGreaterThan(before);
  expect(proxy.hits.slice(before).every((h) => h.method === 'CONNECT' && h.target === new URL(sandbox.url).host)).toBe(true);
  expect(r.stderr + r.stdout).not.toContain('tunnel-pa55');
  for (const [request] of traced) kinds.add(request.replace(/^(\w+) https:\/\/rsi\.test:\d+/, '$1 ').replace(/[0-9a-f-]{36}/g, '{id}'));
  return r;
}

const json = (r: CliResult): unknown => JSON.parse(r.stdout);

/** The API by the sandbox's loopback address, trusting its CA, with the stored access token. */
async function apiDirect(path: string): Promise<unknown> {
  const stored = JSON.parse(readFileSync(join(configDir, 'credentials.json'), 'utf8')) as Record<
    string,
    { accessToken?: string; resource?: string }
  >;
  const token = Object.entries(stored).find(([k, v]) => v.accessToken && !k.includes('mcp'))?.[1].accessToken;
  const reach = sandboxFetch(sandbox.url);
  const res = await reach.fetch(`${reach.base}/api/v1${path}`, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  return res.json();
}

describe('sandbox --tls through a CONNECT proxy', () => {
  it('signs in to the API and to MCP (discovery, registration, authorize, token)', async () => {
    expect(sandbox.url).toMatch(/^https:\/\/rsi\.test:\d+$/);
    const login = await rsi(['login', '--base-url', sandbox.url]);
    expect(login.code, login.stderr).toBe(0);
    expect(login.stderr).toContain(`Signed in to ${sandbox.url}`);
    const again = await rsi(['login']);
    expect(again.code, again.stderr).toBe(0);
    const mcp = await rsi(['login', '--resource', 'mcp']);
    expect(mcp.code, mcp.stderr).toBe(0);
  });

  it('every read command works', async () => {
    const list = await rsi(['projects', 'list', '--json']);
    expect(list.code, list.stderr).toBe(0);
    expect(S.ProjectList().parse(json(list)).projects.length).toBeGreaterThan(0);
    for (const args of [
      ['keywords', 'search', 'EGFR', '--json'],
      ['keywords', 'get', 'erbb1', '--json'],
      ['opportunities', 'Oncology watchlist', '--json'],
      ['signals', 'KRAS inhibitors', '--limit', '5', '--json'],
      ['scoreboard', 'Oncology watchlist', '--json', '--limit', '2'],
      ['mcp', 'tools', '--json'],
    ]) {
      const r = await rsi(args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(json(r)).toBeTruthy();
    }
  });

  it('keywords relations X --relation assets --all returns every row, through the tunnel to a host only the proxy resolves', async () => {
    const r = await rsi(['keywords', 'relations', 'NSCLC', '--relation', 'assets', '--all', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const items = z.array(S.RelationItem()).parse(json(r));
    const keyword = S.KeywordSearchPage().parse(await apiDirect('/keywords?q=NSCLC&limit=1')).data[0]!.id;
    const truth = S.RelationPage().parse(await apiDirect(`/keywords/${keyword}/relations?relation=assets&limit=1`)).meta.total;
    expect(truth).toBeGreaterThan(100);
    expect(items).toHaveLength(truth);
    expect(new Set(items.map((i) => i.id)).size).toBe(truth);
    const search = await rsi(['keywords', 'search', 'a', '--all', '--json']);
    expect(search.code, search.stderr).toBe(0);
    expect((json(search) as unknown[]).length).toBeGreaterThan(20);
  });

  it('analyses run --wait, then status', async () => {
    const project = S.ProjectList()
      .parse(json(await rsi(['projects', 'list', '--json'])))
      .projects.find((p) => p.name === 'KRAS inhibitors')!;
    const run = await rsi([
      'analyses',
      'run',
      project.id,
      '--top',
      '2',
      '--type',
      'target',
      '--yes',
      '--wait',
      '--interval',
      '0.1',
      '--json',
    ]);
    expect([0, 10], run.stderr).toContain(run.code);
    const [result, ...statuses] = run.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(result).toHaveProperty('runs');
    expect(statuses.length).toBeGreaterThan(0);
    const status = await rsi(['status', project.id, '--json']);
    expect(status.code, status.stderr).toBe(0);
  });

  it('a new project: its setup_url says https:// too', async () => {
    const r = await rsi(['projects', 'create', '--name', 'Through the tunnel', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect((json(r) as { setup_url: string }).setup_url).toMatch(new RegExp(`^${sandbox.url}/projects/[0-9a-f-]+/overview`));
  });

  it('refreshes an expired token through the proxy', async () => {
    const before = (await sandboxStats(sandbox)).tokens.refreshed;
    await expireTokens(sandbox, configDir, 7200);
    const r = await rsi(['projects', 'list', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect((await sandboxStats(sandbox)).tokens.refreshed).toBeGreaterThan(before);
  });

  it('logs out, revoking both sign-ins', async () => {
    const before = (await sandboxStats(sandbox)).tokens.revoked;
    const r = await rsi(['logout']);
    expect(r.code, r.stderr).toBe(0);
    expect((await sandboxStats(sandbox)).tokens.revoked).toBeGreaterThan(before);
  });

  it('every kind of request went through the proxy', () => {
    expect([...kinds], [...kinds].join('\n')).toEqual(
      expect.arrayContaining([
        'GET /.well-known/oauth-protected-resource/api/v1',
        'GET /.well-known/oauth-authorization-server',
        'POST /oauth/register',
        'GET /oauth/authorize',
        'POST /oauth/token',
        'POST /oauth/revoke',
        'GET /api/v1/projects',
        'POST /mcp',
      ]),
    );
  });
});

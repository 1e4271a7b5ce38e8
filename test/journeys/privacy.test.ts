// README, "What rsi sends, and where": the whole demo (`npm run demo`: sandbox, sign-in through a
// browser, search, card, relations, project, setup, signals, analyses, scoring, opportunities) with
// every proxy variable pointing at a recorder and every Node process of the run hooked
// (test/support/connect-recorder.mjs), so any attempt to reach a host other than loopback, through
// a proxy or directly, is recorded: none may be. Two controls prove each recorder sees what it must.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { startStub, type StubServer } from '../support/stub-server.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const RECORDER = pathToFileURL(join(ROOT, 'test', 'support', 'connect-recorder.mjs')).href;

let proxy: StubServer;
/** What reached the proxy: CONNECT targets and absolute-form request URLs. */
let proxied: string[] = [];
let work: string;
let proxyEnv: Record<string, string>;

beforeAll(async () => {
  proxy = await startStub((req, res) => {
    proxied.push(`${req.method} ${req.url}`);
    res.writeHead(502).end();
  });
  proxy.server.on('connect', (req, socket) => {
    proxied.push(`CONNECT ${req.url}`);
    socket.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
  });
  const url = proxy.url;
  proxyEnv = Object.fromEntries(['http_proxy', 'HTTP_PROXY', 'https_proxy', 'HTTPS_PROXY', 'all_proxy', 'ALL_PROXY'].map((n) => [n, url]));
  work = mkdtempSync(join(tmpdir(), 'rsi-privacy-'));
});
afterAll(async () => {
  await proxy?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

function hooked(log: string, extra: Record<string, string> = {}): Record<string, string | undefined> {
  writeFileSync(log, '');
  return { ...proxyEnv, NO_PROXY: undefined, no_proxy: undefined, NODE_OPTIONS: `--import=${RECORDER}`, RSI_CONNECT_LOG: log, ...extra };
}

const recorded = (log: string) =>
  readFileSync(log, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { kind: string; host: string });

describe('what rsi contacts', () => {
  it('controls: a request to another host reaches the proxy recorder, and a direct attempt the connection recorder', async () => {
    proxied = [];
    const viaProxy = join(work, 'control-proxy.log');
    const r = await runCli(['keywords', 'search', 'egfr', '--base-url', 'https://service.test', '--http-timeout', '5'], {
      env: { ...hooked(viaProxy), RSI_TOKEN: 'not-a-real-token' },
    });
    expect(r.code, r.stderr).toBe(8);
    expect(proxied).toContain('CONNECT service.test:443');

    const direct = join(work, 'control-direct.log');
    const d = await runCli(['keywords', 'search', 'egfr', '--base-url', 'https://service.test', '--http-timeout', '5'], {
      env: { ...hooked(direct), ...Object.fromEntries(Object.keys(proxyEnv).map((n) => [n, undefined])), RSI_TOKEN: 'not-a-real-token' },
    });
    expect(d.code, d.stderr).toBe(8);
    expect(recorded(direct).map((e) => e.host)).toContain('service.test');
  });

  it('the whole demo contacts no host but loopback, directly or through a proxy', async () => {
    proxied = [];
    const log = join(work, 'demo.log');
    const env: NodeJS.ProcessEnv = {};
    for (const [key, value] of Object.entries(process.env)) if (!/^(RSI_|npm_|VITEST|NODE_OPTIONS$)/i.test(key)) env[key] = value;
    for (const [key, value] of Object.entries(hooked(log))) if (value !== undefined) env[key] = value;
    const demo = spawn(process.execPath, [join(ROOT, 'test', 'demo', 'demo.mjs')], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    demo.stdout.setEncoding('utf8').on('data', (c: string) => (output += c));
    demo.stderr.setEncoding('utf8').on('data', (c: string) => (output += c));
    const code = await new Promise<number | null>((resolve) => demo.on('close', resolve));
    expect(code, output).toBe(0);
    // The journey really ran: it signed in and read opportunities.
    expect(output).toMatch(/\$ rsi login --base-url http:\/\/127\.0\.0\.1:\d+/);
    expect(output).toMatch(/\$ rsi opportunities/);
    expect(recorded(log)).toEqual([]);
    expect(proxied).toEqual([]);
  });
});

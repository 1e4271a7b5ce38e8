// Replies that are not what they claim, and redirects (issue 31), through real `bin/rsi.js`
// processes against a loopback server that misbehaves on purpose. Each scenario has its own base
// URL path (`http://127.0.0.1:PORT/<scenario>`), so they run side by side and count their own hits.
//
// - A body that does not decode as its Content-Encoding says (plain text labelled gzip, gzip cut
//   short inside a whole HTTP message, a broken br stream) is one line naming the encoding, exit 1,
//   one request (not retried). Raw deflate is read as curl reads it; an unknown encoding is named.
//   A connection cut in the middle of a gzip body is still a network failure (exit 8, retried).
// - A reply that is not HTTP at all: exit 1, one request, no "check your network".
// - Same-origin 307/308 on a GET are followed (≤ 5), keeping the Authorization header; a 301, a
//   redirect to another host, another scheme, or on a POST is not followed: one line naming the
//   status and the target (credentials and token-like parameters removed), exit 1. `rsi api -i`
//   shows each reply.
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer as createNetServer, type Server as NetServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/inproc.js';
import { startStub, type StubServer } from '../support/stub-server.js';

const PROJECTS = JSON.stringify({ projects: [{ id: '0b0c5d5e-0000-4000-8000-000000000001', name: 'Lying encodings', role: 'owner' }] });
const TOKEN = 'redirect-test-token';

type Handler = (req: IncomingMessage, res: ServerResponse, rest: string) => void;

/** Scenario name → what the server does under /<name>/api/v1/…; `rest` is the path after /api/v1. */
const scenarios: Record<string, Handler> = {
  'gzip-plain': (_req, res) => res.writeHead(200, json({ 'content-encoding': 'gzip' })).end(PROJECTS),
  'gzip-truncated': (_req, res) => {
    const whole = gzipSync(PROJECTS);
    res.writeHead(200, json({ 'content-encoding': 'gzip' })).end(whole.subarray(0, whole.length - 12));
  },
  'br-broken': (_req, res) => res.writeHead(200, json({ 'content-encoding': 'br' })).end(Buffer.from('not brotli at all, sorry')),
  'deflate-raw': (_req, res) => res.writeHead(200, json({ 'content-encoding': 'deflate' })).end(deflateRawSync(PROJECTS)),
  'deflate-zlib': (_req, res) => res.writeHead(200, json({ 'content-encoding': 'deflate' })).end(deflateSync(PROJECTS)),
  'gzip-then-br': (_req, res) => res.writeHead(200, json({ 'content-encoding': 'gzip, br' })).end(brotliCompressSync(gzipSync(PROJECTS))),
  compress: (_req, res) => res.writeHead(200, json({ 'content-encoding': 'compress' })).end(PROJECTS),
  // Headers promise 20 kB of gzip; the connection dies after one.
  'gzip-cut': (_req, res) => {
    // Random filler, so the first kilobyte is not already the whole compressed body.
    const whole = gzipSync(JSON.stringify({ projects: [], filler: randomBytes(20_000).toString('base64') }));
    res.writeHead(200, json({ 'content-encoding': 'gzip', 'content-length': String(whole.length) }));
    res.write(whole.subarray(0, 1000), () => res.socket?.destroy());
  },
};

function json(extra: Record<string, string> = {}): Record<string, string> {
  return { 'content-type': 'application/json', ...extra };
}

/** Requests seen, per scenario: method, path after the scenario, Authorization. */
const hits: Record<string, { method: string; path: string; authorization: string | undefined; body: string }[]> = {};
let server: StubServer;
let base: string;
/** A second origin (another port), where a redirect must not take the token. */
let other: StubServer;
let otherBase: string;
const otherHits: { authorization: string | undefined }[] = [];
/** A port that answers anything with bytes that are not HTTP. */
let notHttp: NetServer;
let notHttpBase: string;
let notHttpConnections = 0;

function redirecting(res: ServerResponse, scenario: string, rest: string): boolean {
  const to = (status: number, location: string) => {
    res.writeHead(status, json({ location })).end('{}');
    return true;
  };
  const api = `/${scenario}/api/v1`;
  switch (scenario) {
    case 'moved-307':
      // /projects → /projects-v2 (307, relative Location), which answers.
      if (rest === '/projects') return to(307, `${api}/projects-v2`);
      if (rest === '/projects-v2') return (res.writeHead(200, json()).end(PROJECTS), true);
      return false;
    case 'moved-308-absolute':
      if (rest === '/projects') return to(308, `${base}${api}/here/projects`);
      if (rest === '/here/projects') return (res.writeHead(200, json()).end(PROJECTS), true);
      return false;
    case 'chain-5': {
      // Five hops then the answer: followed to the end.
      const hop = Number(/^\/projects(\d*)$/.exec(rest)?.[1] || 0);
      if (hop < 5) return to(307, `${api}/projects${hop + 1}`);
      return (res.writeHead(200, json()).end(PROJECTS), true);
    }
    case 'loop':
      return to(307, `${api}${rest}`);
    case 'moved-301':
      return to(301, `${api}/projects-v2`);
    case 'cross-origin':
      return to(307, `${otherBase}/api/v1/projects?access_token=${TOKEN}&page=1`);
    case 'other-scheme':
      return to(308, `https://127.0.0.1:${new URL(base).port}${api}${rest}`);
    case 'with-credentials':
      return to(307, `http://someone:pa55word@127.0.0.1:${new URL(base).port}${api}/projects-v2`);
    case 'post-307':
      return to(307, `${api}${rest}-v2`);
    default:
      return false;
  }
}

beforeAll(async () => {
  server = await startStub((req, res, body) => {
    const [, scenario = '', ...parts] = (req.url ?? '/').split('?')[0]!.split('/');
    const rest = `/${parts.join('/')}`.replace(/^\/api\/v1/, '');
    (hits[scenario] ??= []).push({ method: req.method ?? '', path: rest, authorization: req.headers.authorization, body });
    if (redirecting(res, scenario, rest)) return;
    const handler = scenarios[scenario];
    if (handler) return handler(req, res, rest);
    res.writeHead(404, json()).end('{"error":"not_found"}');
  });
  other = await startStub((req, res) => {
    otherHits.push({ authorization: req.headers.authorization });
    res.writeHead(200, json()).end(PROJECTS);
  });
  notHttp = createNetServer((socket) => {
    notHttpConnections++;
    socket.once('data', () => socket.end('SSH-2.0-OpenSSH_9.6\r\nProtocol mismatch.\r\n'));
  });
  await new Promise<void>((r) => notHttp.listen(0, '127.0.0.1', r));
  base = server.url;
  otherBase = other.url;
  notHttpBase = `http://127.0.0.1:${(notHttp.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await Promise.all([server?.close(), other?.close(), new Promise((r) => notHttp?.close(r))]);
});

const configDir = mkdtempSync(join(tmpdir(), 'rsi-replies-'));
function rsi(scenario: string, args: string[], baseUrl = `${base}/${scenario}`) {
  return runCli(args, { env: { RSI_TOKEN: TOKEN, RSI_BASE_URL: baseUrl, RSI_CONFIG_DIR: configDir } });
}

describe('a body that does not decode as its Content-Encoding says', () => {
  it.each([
    ['gzip-plain', 'gzip', 'incorrect header check'],
    ['gzip-truncated', 'gzip', 'unexpected end of file'],
    ['br-broken', 'br', 'Decompression failed'],
  ])('%s: one line naming %s, exit 1, one request', async (scenario, encoding, detail) => {
    const r = await rsi(scenario, ['projects', 'list', '--json']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `rsi: the reply to GET ${base}/${scenario}/api/v1/projects is not valid ${encoding}, as its Content-Encoding says (${detail})\n` +
        'hint: the service, or a proxy in front of it, sent a body its Content-Encoding header does not describe; this is not a network failure and retrying will not help\n',
    );
    expect(hits[scenario]).toHaveLength(1);
  });

  it('an encoding rsi cannot read is named, exit 1, one request', async () => {
    const r = await rsi('compress', ['projects', 'list', '--json']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(
      /^rsi: the reply to GET \S+\/compress\/api\/v1\/projects uses a content encoding rsi cannot read \(compress\)$/m,
    );
    expect(hits.compress).toHaveLength(1);
  });

  it.each(['deflate-raw', 'deflate-zlib', 'gzip-then-br'])('%s: read, as curl reads it', async (scenario) => {
    const r = await rsi(scenario, ['projects', 'list', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(JSON.parse(PROJECTS));
  });

  it('a connection cut inside a gzip body is still a network failure: exit 8, retried', async () => {
    const r = await rsi('gzip-cut', ['projects', 'list', '--json']);
    expect(r.code, r.stderr).toBe(8);
    expect(r.stderr).toMatch(/^rsi: cannot reach the service \(GET \S+\/gzip-cut\/api\/v1\/projects\)/m);
    expect(r.stderr).not.toContain('Content-Encoding');
    expect(hits['gzip-cut']!.length).toBeGreaterThan(1);
  });
});

describe('a reply that is not HTTP', () => {
  it('exit 1, one connection, and a hint about the address rather than the network', async () => {
    const r = await rsi('', ['projects', 'list', '--json'], notHttpBase);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/^rsi: the reply to GET http:\/\/127\.0\.0\.1:\d+\/api\/v1\/projects is not valid HTTP \(.+\)$/m);
    expect(r.stderr).toContain('hint: check that --base-url names the service, its port and scheme');
    expect(r.stderr).not.toContain('your network');
    expect(notHttpConnections).toBe(1);
  });
});

describe('doctor, where the service answers but is not an OAuth service', () => {
  it('points at --base-url, not the network', async () => {
    const r = await rsi('nothing-here', ['doctor', '--json']);
    const checks = JSON.parse(r.stdout) as { name: string; ok: boolean; hint?: string }[];
    const discovery = checks.find((c) => c.name === 'OAuth discovery')!;
    expect(discovery.ok).toBe(false);
    expect(discovery.hint).toBe("check --base-url: it must be the service's own address, which serves its OAuth metadata");
  });
});

describe('redirects', () => {
  it.each(['moved-307', 'moved-308-absolute'])('%s on a GET is followed, the token kept', async (scenario) => {
    const r = await rsi(scenario, ['projects', 'list', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(JSON.parse(PROJECTS));
    expect(hits[scenario]).toHaveLength(2);
    expect(hits[scenario]!.every((h) => h.authorization === `Bearer ${TOKEN}` && h.method === 'GET')).toBe(true);
  });

  it('five hops are followed; a sixth is not', async () => {
    const five = await rsi('chain-5', ['projects', 'list', '--json']);
    expect(five.code, five.stderr).toBe(0);
    expect(hits['chain-5']).toHaveLength(6);

    const loop = await rsi('loop', ['projects', 'list', '--json']);
    expect(loop.code).toBe(1);
    expect(loop.stderr).toMatch(
      /^rsi: GET \/projects was redirected \(307 Temporary Redirect\) to http:\/\/127\.0\.0\.1:\d+\/loop\/api\/v1\/projects; not followed: rsi follows at most 5 redirects$/m,
    );
    expect(hits.loop).toHaveLength(6);
  });

  it('a 301 is not followed: one line with the status and the target, exit 1', async () => {
    const r = await rsi('moved-301', ['projects', 'list', '--json']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `rsi: GET /projects was redirected (301 Moved Permanently) to ${base}/moved-301/api/v1/projects-v2; not followed: rsi follows only 307 and 308, which keep the method and body\n` +
        'hint: the service may have moved that path; `rsi api -i GET /projects` shows the reply\n',
    );
    expect(hits['moved-301']).toHaveLength(1);
  });

  it('another origin is not followed and never sees the token; the target is shown without it', async () => {
    const r = await rsi('cross-origin', ['projects', 'list', '--json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `rsi: GET /projects was redirected (307 Temporary Redirect) to ${otherBase}/api/v1/projects?access_token=%5Bredacted%5D&page=1; not followed: it leads to another host, which must not receive your sign-in`,
    );
    expect(r.stderr).toContain('hint: if the service has moved, sign in at its new address: rsi login --base-url <new address>');
    expect(r.stderr).not.toContain(TOKEN);
    expect(otherHits).toHaveLength(0);
  });

  it('another scheme, and credentials in the target, are not followed either', async () => {
    const scheme = await rsi('other-scheme', ['projects', 'list', '--json']);
    expect(scheme.code).toBe(1);
    expect(scheme.stderr).toMatch(
      /\(308 Permanent Redirect\) to https:\/\/127\.0\.0\.1:\d+\/other-scheme\/api\/v1\/projects; not followed: it changes the scheme$/m,
    );
    const creds = await rsi('with-credentials', ['projects', 'list', '--json']);
    expect(creds.code).toBe(1);
    expect(creds.stderr).not.toContain('pa55word');
    expect(creds.stderr).toMatch(
      /to http:\/\/127\.0\.0\.1:\d+\/with-credentials\/api\/v1\/projects-v2; not followed: the target carries credentials of its own$/m,
    );
    expect(hits['with-credentials']).toHaveLength(1);
  });

  it('a 307 on a POST is not followed: the request is not sent again', async () => {
    const r = await rsi('post-307', ['api', 'POST', '/projects', '--field', 'name=Once']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^rsi: POST \/projects was redirected \(307 Temporary Redirect\) to \S+\/post-307\/api\/v1\/projects-v2; not followed: rsi does not repeat a POST at another address$/m,
    );
    expect(hits['post-307']).toEqual([{ method: 'POST', path: '/projects', authorization: `Bearer ${TOKEN}`, body: '{"name":"Once"}' }]);
  });

  it('rsi api -i shows every reply on the way, and the raw reply of one it does not follow', async () => {
    const followed = await rsi('moved-307', ['api', '-i', 'GET', '/projects']);
    expect(followed.code, followed.stderr).toBe(0);
    expect(followed.stderr).toMatch(/^HTTP 307\n(.+\n)*location: \/moved-307\/api\/v1\/projects-v2\n(.+\n)*\nHTTP 200\n/);
    const raw = await rsi('moved-301', ['api', '-i', 'GET', '/projects']);
    expect(raw.code).toBe(1);
    expect(raw.stderr).toMatch(/^HTTP 301\n(.+\n)*location: \/moved-301\/api\/v1\/projects-v2\n/);
    expect(raw.stderr).toContain('rsi: GET /projects was redirected (301 Moved Permanently)');
  });
});

// The one network path (src/http/network.ts): the whole-request deadline against a dripping
// server, bounded bodies and gzip bombs, the fail-closed trace, proxy settings and NO_PROXY through
// a real forward proxy, and the TLS hints per Node version.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PassThrough } from 'node:stream';
import { deflateRawSync, gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ResponseTooLargeError, ServiceUnavailableError, UsageError } from '../../src/errors.js';
import { RetryingHttp } from '../../src/http/retrying-http.js';
import { Network } from '../../src/http/network.js';
import { OAUTH_MAX_BYTES } from '../../src/http/wire.js';
import { startSocks } from '../support/socks.js';
import { createServer as createRawServer } from 'node:net';
import { tlsFailure } from '../../src/http/tls-errors.js';
import { httpOnlyNote, proxyFor, proxySettings, redactProxyUrl } from '../../src/http/proxy.js';
import { redactBody } from '../../src/http/redact.js';
import { fakeClock } from '../support/fakes.js';
import { TestHttp } from '../support/http.js';
import { startProxy, type TestProxy } from '../support/proxy.js';
import { startStub, type StubServer } from '../support/stub-server.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

let server: StubServer;
let base: string;
let handler: Handler = (_req, res) => res.end();
let hits = 0;
const timers = new Set<NodeJS.Timeout>();

beforeAll(async () => {
  server = await startStub(
    (req, res) => {
      hits++;
      req.resume();
      handler(req, res);
    },
    { streaming: true },
  );
  base = server.url;
});
afterAll(() => server?.close());
afterEach(() => {
  hits = 0;
  for (const t of timers) clearInterval(t);
  timers.clear();
  server.server.closeAllConnections();
});

function collect(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (c: Buffer) => (text += c.toString()));
  return { stream, text: () => text };
}

/** Headers at once, then one byte every `everyMs`, never ending: beats any idle timeout. */
function drip(everyMs: number): Handler {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('[');
    const t = setInterval(() => res.write(' '), everyMs);
    timers.add(t);
    res.on('close', () => clearInterval(t));
  };
}

describe('the whole-request deadline', () => {
  it('ends a reply that drips one byte at a time: timed out (exit 8), the timeout retried once', async () => {
    // Each gap (100 ms) is far below the timeout (800 ms): only a deadline on the whole request ends it.
    handler = drip(100);
    const http = new TestHttp({ baseUrl: base, timeoutMs: 800, userAgent: 'rsi/t', clock: fakeClock(), random: () => 0 });
    try {
      const error = await http.request({ method: 'GET', path: '/drip' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ServiceUnavailableError);
      expect((error as ServiceUnavailableError).exitCode).toBe(8);
      expect((error as ServiceUnavailableError).timedOut).toBe(true);
      expect((error as Error).message).toContain('timed out after 0.8 s');
      expect(hits).toBe(2);
    } finally {
      await http.close();
    }
  });

  it('bounds the OAuth path the same way', async () => {
    handler = drip(100);
    const network = new Network({ env: {}, timeoutMs: 600 });
    try {
      const error = await network.fetch(`${base}/.well-known/oauth-authorization-server`).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ServiceUnavailableError);
      expect((error as ServiceUnavailableError).timedOut).toBe(true);
    } finally {
      await network.close();
    }
  });
});

describe('bounded bodies', () => {
  it('stops a gzip bomb on the OAuth path at the cap, counting decompressed bytes', async () => {
    const bomb = gzipSync(Buffer.alloc(OAUTH_MAX_BYTES * 8, 0x20));
    expect(bomb.length).toBeLessThan(OAUTH_MAX_BYTES / 8);
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(bomb);
    };
    const network = new Network({ env: {}, timeoutMs: 120_000 });
    try {
      const error = await network.fetch(`${base}/.well-known/oauth-authorization-server`).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ResponseTooLargeError);
      expect((error as Error).message).toContain('larger than 1 MiB');
    } finally {
      await network.close();
    }
  });

  it('reads an empty body labelled with an encoding as empty, as curl does', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end();
    };
    const network = new Network({ env: {}, timeoutMs: 120_000 });
    try {
      const res = await network.fetch(`${base}/doc`);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('');
    } finally {
      await network.close();
    }
  });

  it('stops a raw-deflate bomb at the cap too (raw deflate is read as curl reads it)', async () => {
    const bomb = deflateRawSync(Buffer.alloc(OAUTH_MAX_BYTES * 8, 0x20));
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'deflate' });
      res.end(bomb);
    };
    const network = new Network({ env: {}, timeoutMs: 120_000 });
    try {
      const error = await network.fetch(`${base}/doc`).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ResponseTooLargeError);
    } finally {
      await network.close();
    }
  });

  it('decompresses a gzip reply within the cap', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(gzipSync(JSON.stringify({ issuer: 'x' })));
    };
    const network = new Network({ env: {}, timeoutMs: 120_000 });
    try {
      const res = await network.fetch(`${base}/doc`);
      expect(await res.json()).toEqual({ issuer: 'x' });
    } finally {
      await network.close();
    }
  });

  it('says an oversized API reply is too large (exit 1), not "cannot reach", and does not retry it', async () => {
    const bomb = gzipSync(Buffer.alloc(65 * 1024 * 1024, 0x20));
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(bomb);
    };
    const http = new TestHttp({ baseUrl: base, timeoutMs: 120_000, userAgent: 'rsi/t', clock: fakeClock() });
    try {
      const error = await http.request({ method: 'GET', path: '/big' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ResponseTooLargeError);
      expect((error as ResponseTooLargeError).exitCode).toBe(1);
      expect((error as Error).message).not.toContain('cannot reach');
      expect(hits).toBe(1);
    } finally {
      await http.close();
    }
  });
});

describe("direct requests on Node's own client", () => {
  it('keeps repeated headers as sent (set-cookie one by one) and joins the rest, lower-case', async () => {
    handler = (_req, res) => {
      res.setHeader('Set-Cookie', ['a=1', 'b=2']);
      res.setHeader('X-Many', ['one', 'two']);
      res.setHeader('Content-Type', 'application/json');
      res.end('{}');
    };
    const network = new Network({ env: {}, timeoutMs: 120_000 });
    try {
      const res = await network.send({ method: 'GET', url: new URL(`${base}/h`), headers: {}, maxBytes: 1024 });
      expect(res.headers['x-many']).toBe('one, two');
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.rawHeaders.filter(([k]) => k === 'set-cookie')).toEqual([
        ['set-cookie', 'a=1'],
        ['set-cookie', 'b=2'],
      ]);
      const fetched = await network.fetch(`${base}/h`);
      expect(fetched.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    } finally {
      await network.close();
    }
  });

  it("sends a body with its length in bytes (not chunked), and the caller's headers as given", async () => {
    let seen: { length?: string; chunked?: string; body: string; ua?: string } = { body: '' };
    handler = (req, res) => {
      let body = '';
      req.removeAllListeners('data');
      req.setEncoding('utf8');
      req.on('data', (c: string) => (body += c));
      req.on('end', () => {
        seen = { length: req.headers['content-length'], chunked: req.headers['transfer-encoding'], body, ua: req.headers['user-agent'] };
        res.end('{}');
      });
    };
    const network = new Network({ env: {}, timeoutMs: 120_000 });
    try {
      const body = JSON.stringify({ name: 'Ünïcode ✓' });
      await network.send({ method: 'POST', url: new URL(`${base}/p`), headers: { 'user-agent': 'rsi/t' }, body, maxBytes: 1024 });
      expect(seen).toEqual({ length: String(Buffer.byteLength(body)), chunked: undefined, body, ua: 'rsi/t' });
    } finally {
      await network.close();
    }
  });

  it('reuses one connection for requests in a row, and recovers when the server closed it meanwhile', async () => {
    const sockets = new Set<unknown>();
    handler = (req, res) => {
      sockets.add(req.socket);
      res.end('{}');
    };
    const network = new Network({ env: {}, timeoutMs: 120_000 });
    try {
      for (let i = 0; i < 3; i++) await network.send({ method: 'GET', url: new URL(`${base}/k`), headers: {}, maxBytes: 1024 });
      expect(sockets.size).toBe(1);
      // The server drops its idle connections (as one does after its keep-alive timeout).
      server.server.closeIdleConnections();
      // Time for the close to reach the client, not a wait the assertion needs: a request sent on
      // the closed socket before the client sees it is sent again on a new one (STALE_SOCKET).
      await new Promise((resolve) => setTimeout(resolve, 50));
      const res = await network.send({ method: 'GET', url: new URL(`${base}/k`), headers: {}, maxBytes: 1024 });
      expect(res.status).toBe(200);
      expect(sockets.size).toBe(2);
    } finally {
      await network.close();
    }
  });

  it('never sends a POST twice: a kept-alive connection closed after the POST reached the server is an unknown outcome (issue 52)', async () => {
    // The server reads the POST that arrives on an already used connection and closes it without
    // an answer: it may have acted. rsi must not write the POST again on a new connection.
    const served = new Map<unknown, number>();
    const posts: string[] = [];
    handler = (req, res) => {
      const n = (served.get(req.socket) ?? 0) + 1;
      served.set(req.socket, n);
      if (req.method === 'POST') posts.push(n === 1 ? 'new connection' : 'reused connection');
      if (n > 1) {
        req.socket.destroy();
        return;
      }
      res.end('{}');
    };
    const network = new Network({ env: {}, timeoutMs: 120_000 });
    try {
      await network.send({ method: 'GET', url: new URL(`${base}/first`), headers: {}, maxBytes: 1024 });
      let told = 0;
      const error = await network
        .send({
          method: 'POST',
          url: new URL(`${base}/token`),
          headers: {},
          body: 'a=1',
          maxBytes: 1024,
          hintIfSent: 'it may have been done',
          onSent: () => told++,
        })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ServiceUnavailableError);
      expect((error as ServiceUnavailableError).hint).toBe('it may have been done');
      expect(posts).toEqual(['reused connection']);
      expect(told).toBe(1);
      // A GET in the same place goes again on a new connection: the send rule's other half.
      handler = (req, res) => {
        const n = (served.get(req.socket) ?? 0) + 1;
        served.set(req.socket, n);
        if (n > 1) return void req.socket.destroy();
        res.end('{}');
      };
      await network.send({ method: 'GET', url: new URL(`${base}/a`), headers: {}, maxBytes: 1024 });
      const res = await network.send({ method: 'GET', url: new URL(`${base}/b`), headers: {}, maxBytes: 1024 });
      expect(res.status).toBe(200);
    } finally {
      await network.close();
    }
  });

  it('says a refused connection in one line, and a reset mid-body as a closed connection', async () => {
    const network = new Network({ env: {}, timeoutMs: 120_000 });
    try {
      const refused = await network
        .send({ method: 'GET', url: new URL('http://127.0.0.1:1/x'), headers: {}, maxBytes: 1024 })
        .catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(ServiceUnavailableError);
      expect((refused as Error).message).toBe('cannot reach the service (GET http://127.0.0.1:1/x): connection refused');
      handler = (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
        res.write('{"data":');
        setTimeout(() => res.socket?.destroy(), 10);
      };
      const cut = await network.send({ method: 'GET', url: new URL(`${base}/cut`), headers: {}, maxBytes: 1024 }).catch((e: unknown) => e);
      expect(cut).toBeInstanceOf(ServiceUnavailableError);
      expect((cut as Error).message).toContain('the connection was closed unexpectedly');
    } finally {
      await network.close();
    }
  });
});

describe('the --debug trace fails closed', () => {
  it('shows a placeholder for JSON too deep to redact, and for bodies that are not JSON or a form', () => {
    let deep = '{"access_token":"DEEP-SECRET-1"}';
    for (let i = 0; i < 5000; i++) deep = `{"a":${deep}}`;
    const out = redactBody(deep, 'application/json');
    expect(out).not.toContain('DEEP-SECRET-1');
    expect(out).toMatch(/^\[\d+ bytes of application\/json could not be redacted\]$/);
    expect(redactBody('<p>refresh_token=HTML-SECRET</p>', 'text/html')).toBe('[32 bytes of text/html not shown]');
    expect(redactBody('{"broken": "JSON-SECRET', 'application/json')).not.toContain('JSON-SECRET');
  });

  it('scrubs every token it has seen from every later line, whatever the body shape', async () => {
    handler = (req, res) => {
      if (req.url === '/token') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ access_token: 'AT-learnt-123', refresh_token: 'RT-learnt-456' }));
      } else {
        // The tokens come back where no key names them: in an odd member and in a header.
        res.writeHead(200, { 'content-type': 'application/json', 'x-echo': 'RT-learnt-456' });
        res.end(JSON.stringify({ note: 'you sent AT-learnt-123 and code-verifier-789' }));
      }
    };
    const trace = collect();
    const network = new Network({ env: {}, timeoutMs: 120_000, trace: trace.stream });
    try {
      await network.fetch(`${base}/token`, {
        method: 'POST',
        body: new URLSearchParams({ grant_type: 'authorization_code', code_verifier: 'code-verifier-789' }),
      });
      await network.fetch(`${base}/echo`);
      const out = trace.text();
      expect(out).toContain('> POST');
      expect(out).toContain('x-echo: [redacted]');
      expect(out).toContain('you sent [redacted] and [redacted]');
      for (const secret of ['AT-learnt-123', 'RT-learnt-456', 'code-verifier-789']) expect(out).not.toContain(secret);
    } finally {
      await network.close();
    }
  });
});

describe('proxy settings', () => {
  it('reads either case (lower case first), defaults the scheme and redacts credentials', () => {
    const s = proxySettings({ https_proxy: 'u:p@proxy.corp:3128', HTTPS_PROXY: 'http://other:1', http_proxy: 'http://h:2' });
    expect(s.https).toBe('http://u:p@proxy.corp:3128/');
    expect(s.source).toEqual({ http: 'http_proxy', https: 'https_proxy' });
    expect(redactProxyUrl(s.https!)).toBe('http://[redacted]@proxy.corp:3128');
    expect(redactProxyUrl('not a url user:pw@x')).not.toContain('pw');
    const https = new URL('https://svc.test/');
    expect(() => proxyFor(https, proxySettings({ HTTPS_PROXY: 'ftp://u:secretpw@h' }))).toThrow(UsageError);
    expect(() => proxyFor(https, proxySettings({ HTTPS_PROXY: 'http://u:secretpw@h:99999' }))).toThrow(/\[redacted\]/);
  });

  it('a variable rsi cannot use is a usage error only where it applies', () => {
    // ALL_PROXY=socks4://… (curl speaks SOCKS4; rsi does not) under an HTTPS_PROXY that overrides it.
    const s = proxySettings({ ALL_PROXY: 'socks4://gw.test:1080', HTTPS_PROXY: 'http://s.test:3128' });
    expect(proxyFor(new URL('https://svc.test/'), s)).toBe('http://s.test:3128/');
    expect(() => proxyFor(new URL('http://svc.test/'), s)).toThrow(
      'ALL_PROXY uses an unsupported scheme (socks4:); use http://, https://, socks5:// or socks5h://',
    );
    // Where it would apply but the host goes direct anyway, it does not matter.
    expect(proxyFor(new URL('http://127.0.0.1:5/'), s)).toBeUndefined();
    expect(
      proxyFor(new URL('http://svc.test/'), proxySettings({ ALL_PROXY: 'socks4://gw.test:1080', NO_PROXY: 'svc.test' })),
    ).toBeUndefined();
  });

  it('uses http_proxy for http:// only and https_proxy for https:// only, as curl and Go do', () => {
    const httpOnly = proxySettings({ http_proxy: 'http://h:2' });
    expect(proxyFor(new URL('http://svc.test/'), httpOnly)).toBe('http://h:2/');
    expect(proxyFor(new URL('https://svc.test/'), httpOnly)).toBeUndefined();
    expect(httpOnlyNote(httpOnly)).toBe('http_proxy carries http:// URLs only, as in curl and Go');
    const httpsOnly = proxySettings({ HTTPS_PROXY: 'http://s:3' });
    expect(proxyFor(new URL('https://svc.test/'), httpsOnly)).toBe('http://s:3/');
    expect(proxyFor(new URL('http://svc.test/'), httpsOnly)).toBeUndefined();
    // Neither carries another scheme (Go's "ftp://insecure.tld/" row).
    expect(proxyFor(new URL('ftp://svc.test/'), proxySettings({ http_proxy: 'h:2', https_proxy: 's:3' }))).toBeUndefined();
  });

  it('reads upper-case HTTP_PROXY for http:// (the contract, Go), but not under CGI (httpoxy)', () => {
    const s = proxySettings({ HTTP_PROXY: 'http://p.test:1' });
    expect(proxyFor(new URL('http://svc.test/'), s)).toBe('http://p.test:1/');
    expect(proxyFor(new URL('https://svc.test/'), s)).toBeUndefined();
    expect(httpOnlyNote(s)).toBe('HTTP_PROXY carries http:// URLs only, as in curl and Go');
    // A CGI server fills HTTP_PROXY from a request's Proxy: header: there it names nothing.
    const cgi = proxySettings({ HTTP_PROXY: 'http://attacker.test:1', REQUEST_METHOD: 'GET' });
    expect(cgi.http).toBeUndefined();
    expect(proxyFor(new URL('http://svc.test/'), cgi)).toBeUndefined();
    // An invalid one stops nothing until a request would use it.
    expect(() => proxySettings({ HTTP_PROXY: 'ftp://x' })).not.toThrow();
    expect(httpOnlyNote(proxySettings({ HTTP_PROXY: 'h:1', HTTPS_PROXY: 's:1' }))).toBeUndefined();
  });

  it('falls back to all_proxy, then ALL_PROXY, for both schemes; empty values count as unset', () => {
    const all = proxySettings({ ALL_PROXY: 'socks5://a:1080', all_proxy: 'http://lower:1' });
    expect([all.http, all.https]).toEqual(['http://lower:1/', 'http://lower:1/']);
    expect(all.source).toEqual({ http: 'all_proxy', https: 'all_proxy' });
    const upper = proxySettings({ ALL_PROXY: 'socks5://a:1080' });
    expect(proxyFor(new URL('https://svc.test/'), upper)).toBe('socks5://a:1080');
    expect(upper.source.https).toBe('ALL_PROXY');
    // The scheme's own variable comes first.
    expect(proxySettings({ ALL_PROXY: 'http://a:1', HTTPS_PROXY: 'http://s:2' }).https).toBe('http://s:2/');
    // Set but empty is unset, as curl and Go read it: the next variable in line applies.
    expect(proxySettings({ https_proxy: '', HTTPS_PROXY: 'http://s:2' }).https).toBe('http://s:2/');
    expect(proxySettings({ https_proxy: ' ', all_proxy: '', ALL_PROXY: 'http://a:1' }).https).toBe('http://a:1/');
    expect(proxySettings({ no_proxy: '', NO_PROXY: '.svc.test' }).noProxy).toBe('.svc.test');
    expect(proxySettings({ no_proxy: 'a.test', NO_PROXY: 'b.test' }).noProxy).toBe('a.test');
  });

  // NO_PROXY as curl and Go read it, and loopback always direct. [url, NO_PROXY, goes direct?]
  const table: [string, string, boolean][] = [
    ['https://api.svc.example/x', '', false],
    ['https://api.svc.example/x', 'svc.example', true],
    ['https://svc.example/x', 'svc.example', true],
    ['https://api.svc.example/x', '.svc.example', true],
    ['https://svc.example/x', '.svc.example', true],
    ['https://api.svc.example/x', '*.svc.example', true],
    ['https://notsvc.example/x', 'svc.example', false],
    ['https://API.SVC.example/x', 'Svc.Example', true],
    ['https://api.svc.example./x', 'svc.example', true],
    ['https://api.svc.example/x', 'other.example, api.svc.example:443', true],
    // Entries are separated by commas; blanks inside one make it match nothing (curl and Go).
    ['https://api.svc.example/x', 'other.example api.svc.example', false],
    ['https://api.svc.example/x', ' other.example ,  api.svc.example  ', true],
    // *.x is under x only (Go); .x and x are x and under it (curl).
    ['https://svc.example/x', '*.svc.example', false],
    // IDN names compare in punycode, whichever way each side is written.
    ['https://api.示例.test/x', '.示例.test', true],
    ['https://api.xn--fsq092h.test/x', '示例.test', true],
    ['https://api.示例.test/x', 'xn--fsq092h.test', true],
    ['https://xn--fsq092h.test/x', '*.示例.test', false],
    ['https://api.bücher.test/x', 'BÜCHER.test', true],
    ['https://api.svc.example/x', 'api.svc.example:8443', false],
    ['https://api.svc.example:8443/x', 'api.svc.example:8443', true],
    ['http://api.svc.example/x', 'api.svc.example:80', true],
    ['https://api.svc.example/x', '*', true],
    ['https://api.svc.example/x', ' , ,', false],
    ['https://10.1.2.3/x', '10.1.2.3', true],
    ['https://10.1.2.3/x', '10.1.2.4', false],
    ['https://10.1.2.3/x', '10.0.0.0/8', true],
    ['https://11.1.2.3/x', '10.0.0.0/8', false],
    ['https://192.168.7.9:8443/x', '192.168.0.0/16', true],
    ['https://svc.example/x', '10.0.0.0/8', false],
    ['https://10.1.2.3/x', '10.1', false],
    ['https://[fd00::5]/x', 'fd00::/8', true],
    ['https://[fe80::5]/x', 'fd00::/8', false],
    ['https://[2001:db8::1]/x', '[2001:db8::1]', true],
    ['https://[2001:db8::1]/x', '2001:db8::1', true],
    ['https://[2001:db8::1]/x', '2001:db8:0:0:0:0:0:1', true],
    ['https://[2001:db8::1]:8443/x', '[2001:db8::1]:8443', true],
    ['https://[2001:db8::1]/x', '[2001:db8::1]:8443', false],
    // Loopback: direct whatever NO_PROXY says (Go's net/http and Chromium do the same).
    ['http://127.0.0.1:5/', '', true],
    ['http://127.8.9.10:5/', 'other.example', true],
    ['http://localhost:5/', '', true],
    ['http://app.localhost:5/', '', true],
    ['http://[::1]:5/', '', true],
    ['http://[::ffff:127.0.0.1]:5/', '', true],
    ['https://localhost.example/', '', false],
    ['https://128.0.0.1/', '', false],
  ];
  it.each(table)('%s with NO_PROXY=%j goes direct: %s', (url, noProxy, direct) => {
    const s = proxySettings({ HTTPS_PROXY: 'http://p:1', http_proxy: 'http://p:1', NO_PROXY: noProxy });
    expect(proxyFor(new URL(url), s)).toBe(direct ? undefined : 'http://p:1/');
  });
});

describe('a socks5:// proxy (a SOCKS5 server rsi did not write)', () => {
  const get = async (env: Record<string, string>, url: string) => {
    const network = new Network({ env, timeoutMs: 120_000 });
    try {
      const res = await network.fetch(url);
      return { status: res.status, body: await res.text() };
    } catch (error) {
      return { error: error as ServiceUnavailableError };
    } finally {
      await network.close();
    }
  };
  const named = () => base.replace('127.0.0.1', 'svc.test');

  it('socks5h:// carries http:// with no authentication, the proxy resolving the name; socks5:// resolves it here, as curl does', async () => {
    handler = (_req, res) => res.end('pong');
    const socks = await startSocks({ hosts: { 'svc.test': '127.0.0.1' } });
    try {
      expect(await get({ ALL_PROXY: socks.url }, `${named()}/ping`)).toEqual({ status: 200, body: 'pong' });
      expect(socks.hits).toEqual([{ host: 'svc.test', port: Number(new URL(base).port), user: undefined }]);
      // socks5:// resolves svc.test on this machine, which cannot: one line naming socks5h://.
      const local = await get({ ALL_PROXY: socks.url.replace('socks5h:', 'socks5:') }, `${named()}/ping`);
      expect(local.error?.message).toBe(
        `the proxy socks5://127.0.0.1:${socks.port} (ALL_PROXY) needs svc.test resolved on this machine, which cannot (ENOTFOUND); use socks5h:// to let the proxy resolve it; GET ${named()}/ping was not sent`,
      );
      expect(local.error?.exitCode).toBe(8);
      expect(socks.hits).toHaveLength(1);
    } finally {
      await socks.stop();
    }
  });

  it('sends the user name and password of the proxy URL; a wrong one is one line, exit 8, no password printed', async () => {
    handler = (_req, res) => res.end('pong');
    const socks = await startSocks({ auth: { username: 'dave', password: 's0cks-s3cret' }, hosts: { 'svc.test': '127.0.0.1' } });
    const withPassword = (p: string) => socks.url.replace('//', `//dave:${p}@`);
    try {
      expect(await get({ ALL_PROXY: withPassword('s0cks-s3cret') }, `${named()}/ping`)).toEqual({ status: 200, body: 'pong' });
      expect(socks.hits.map((h) => h.user)).toEqual(['dave']);
      const wrong = await get({ ALL_PROXY: withPassword('wr0ng-pw') }, `${named()}/ping`);
      expect(wrong.error?.message).toBe(
        `the proxy socks5h://[redacted]@127.0.0.1:${socks.port} (ALL_PROXY) rejected the user name and password in the proxy URL; GET ${named()}/ping was not sent`,
      );
      expect(wrong.error?.exitCode).toBe(8);
      expect(`${wrong.error?.message} ${wrong.error?.hint}`).not.toContain('wr0ng-pw');
      const none = await get({ ALL_PROXY: socks.url }, `${named()}/ping`);
      expect(none.error?.message).toContain('wants a user name and password, and the proxy URL has none');
    } finally {
      await socks.stop();
    }
  });

  it('a target the proxy cannot reach, a proxy nobody listens on, and one that closes mid-handshake: one line each, exit 8', async () => {
    // The proxy's target is down: it answers reply 5 (connection refused). Not a port that was
    // freed a moment ago, which another test's server may take meanwhile (CI once saw a reset).
    const socks = await startSocks({ refuse: ['down.test'] });
    const deadPort = 44839;
    // A proxy nobody listens on: port 1 (tcpmux), which no test and no CI machine serves.
    // A "proxy" that reads the greeting and hangs up.
    const rude = createRawServer((s) => s.once('data', () => s.destroy()));
    await new Promise<void>((r) => rude.listen(0, '127.0.0.1', () => r()));
    const rudePort = (rude.address() as { port: number }).port;
    try {
      const down = await get({ ALL_PROXY: socks.url }, `http://down.test:${deadPort}/x`);
      expect(down.error?.message).toBe(
        `the proxy socks5h://127.0.0.1:${socks.port} (ALL_PROXY) would not connect to down.test:${deadPort} (SOCKS5 reply 5: connection refused); GET http://down.test:${deadPort}/x was not sent`,
      );
      const nobody = await get({ ALL_PROXY: 'socks5h://127.0.0.1:1' }, 'https://svc.test/x');
      expect(nobody.error?.message).toMatch(
        /^cannot reach the proxy socks5h:\/\/127\.0\.0\.1:1 \(ALL_PROXY\): .*refused.*; GET https:\/\/svc\.test\/x was not sent$/,
      );
      const hungUp = await get({ ALL_PROXY: `socks5h://127.0.0.1:${rudePort}` }, 'https://svc.test/x');
      expect(hungUp.error?.message).toBe(
        `the proxy socks5h://127.0.0.1:${rudePort} (ALL_PROXY) closed the connection during the SOCKS5 handshake; GET https://svc.test/x was not sent`,
      );
      for (const r of [down, nobody, hungUp]) expect(r.error?.exitCode).toBe(8);
    } finally {
      await Promise.all([socks.stop(), new Promise((r) => rude.close(r))]);
    }
  });
});

describe('through a real forward proxy', () => {
  let proxy: TestProxy;
  /** The test server under a name only the proxy resolves: loopback itself is never proxied. */
  let named: string;
  beforeAll(async () => {
    proxy = await startProxy({ credentials: { user: 'alice', password: 'pr0xy-s3cret' }, hosts: { 'svc.test': '127.0.0.1' } });
    named = base.replace('127.0.0.1', 'svc.test');
  });
  afterAll(() => proxy.stop());

  it('sends API and OAuth requests through the proxy with its credentials, never printing them', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    };
    proxy.hits.length = 0;
    const trace = collect();
    const proxyUrl = proxy.url.replace('//', '//alice:pr0xy-s3cret@');
    const network = new Network({ env: { http_proxy: proxyUrl }, timeoutMs: 120_000, trace: trace.stream });
    const http = new RetryingHttp({ baseUrl: named, timeoutMs: 120_000, userAgent: 'rsi/t', clock: fakeClock() }, network);
    try {
      expect((await http.request({ method: 'GET', path: '/keywords' })).json).toEqual({ ok: true });
      expect((await network.fetch(`${named}/.well-known/oauth-authorization-server`)).status).toBe(200);
      expect(proxy.hits.map((h) => h.target)).toEqual([`${named}/api/v1/keywords`, `${named}/.well-known/oauth-authorization-server`]);
      expect(proxy.hits.every((h) => h.authorization?.startsWith('Basic '))).toBe(true);
      expect(trace.text()).toContain(`* through proxy http://[redacted]@127.0.0.1:${proxy.port}`);
      expect(trace.text()).not.toContain('pr0xy-s3cret');
      expect(network.proxyFor(new URL(named))).toBe(`http://[redacted]@127.0.0.1:${proxy.port}`);
    } finally {
      await network.close();
    }
  });

  it('names the proxy (redacted) and does not retry when it wants credentials (407)', async () => {
    proxy.hits.length = 0;
    const network = new Network({ env: { http_proxy: proxy.url.replace('//', '//alice:wrong-pass@') }, timeoutMs: 120_000 });
    const http = new RetryingHttp({ baseUrl: named, timeoutMs: 120_000, userAgent: 'rsi/t', clock: fakeClock() }, network);
    try {
      const error = await http.request({ method: 'GET', path: '/keywords' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ServiceUnavailableError);
      expect((error as Error).message).toContain('407');
      expect((error as Error).message).toContain('[redacted]@127.0.0.1');
      expect((error as Error).message + (error as ServiceUnavailableError).hint).not.toContain('wrong-pass');
      expect(proxy.hits).toHaveLength(1);
    } finally {
      await network.close();
    }
  });

  it('goes direct for hosts in NO_PROXY', async () => {
    handler = (_req, res) => res.end('{}');
    proxy.hits.length = 0;
    const network = new Network({ env: { http_proxy: proxy.url, no_proxy: '127.0.0.1,svc.test' }, timeoutMs: 120_000 });
    try {
      expect((await network.fetch(`${base}/x`)).status).toBe(200);
      expect(proxy.hits).toHaveLength(0);
      expect(hits).toBe(1);
    } finally {
      await network.close();
    }
  });

  it('never proxies loopback: 127.0.0.1 goes direct though http_proxy is set and NO_PROXY is empty', async () => {
    handler = (_req, res) => res.end('{}');
    proxy.hits.length = 0;
    const network = new Network({ env: { http_proxy: proxy.url, HTTPS_PROXY: proxy.url }, timeoutMs: 120_000 });
    try {
      expect((await network.fetch(`${base}/x`)).status).toBe(200);
      expect(network.proxyFor(new URL(base))).toBeUndefined();
      expect(proxy.hits).toHaveLength(0);
      expect(hits).toBe(1);
    } finally {
      await network.close();
    }
  });

  it('sends http:// through upper-case HTTP_PROXY too, as the contract and Go read it', async () => {
    proxy.hits.length = 0;
    const network = new Network({ env: { HTTP_PROXY: proxy.url }, timeoutMs: 120_000 });
    try {
      expect(network.proxyFor(new URL(`${named}/x`))).toBe(proxy.url);
    } finally {
      await network.close();
    }
  });
});

describe('an https:// request with only an http proxy set', () => {
  it('goes direct, and the failure names the variables that did not apply', async () => {
    const network = new Network({ env: { http_proxy: 'http://127.0.0.1:9', HTTP_PROXY: 'http://127.0.0.1:9' }, timeoutMs: 120_000 });
    try {
      expect(network.proxyFor(new URL('https://svc.test/'))).toBeUndefined();
      const error = (await network.fetch('https://svc.test:8443/x').catch((e: unknown) => e)) as ServiceUnavailableError;
      expect(error.message).toBe('cannot reach the service (GET https://svc.test:8443/x): host not found');
      expect(error.hint).toBe(
        'set HTTPS_PROXY (or ALL_PROXY) if https:// needs the proxy: http_proxy and HTTP_PROXY carry http:// URLs only, as in curl and Go',
      );
    } finally {
      await network.close();
    }
  });
});

describe('a proxy that refuses CONNECT', () => {
  // 403: the proxy's policy; 502/503: it would not or could not reach the host. Either way asking the
  // same proxy again is no use: one try, as curl makes.
  it.each([403, 502, 503])('%i: one line naming the proxy, the host and the status, and no retry', async (status) => {
    const refusing = await startProxy({ refuseConnect: status });
    const network = new Network({ env: { HTTPS_PROXY: refusing.url }, timeoutMs: 120_000 });
    const http = new RetryingHttp(
      { baseUrl: 'https://svc.test:8443', timeoutMs: 120_000, userAgent: 'rsi/t', clock: fakeClock() },
      network,
    );
    try {
      const error = (await http.request({ method: 'GET', path: '/keywords' }).catch((e: unknown) => e)) as ServiceUnavailableError;
      expect(error).toBeInstanceOf(ServiceUnavailableError);
      expect(error.message).toBe(
        `the proxy ${refusing.url} (HTTPS_PROXY) would not open a tunnel to svc.test:8443 (${status}); GET https://svc.test:8443/api/v1/keywords was not sent`,
      );
      expect(error.hint).toContain('check HTTPS_PROXY');
      expect(refusing.hits.map((h) => `${h.method} ${h.target}`)).toEqual(['CONNECT svc.test:8443']);
    } finally {
      await network.close();
      await refusing.stop();
    }
  });
});

describe('TLS failures name the fix', () => {
  it('says in one line that an https:// address reached a port that is not TLS, and does not retry', async () => {
    handler = (_req, res) => res.end('{}');
    const http = new TestHttp({ baseUrl: base.replace('http:', 'https:'), timeoutMs: 120_000, userAgent: 'rsi/t', clock: fakeClock() });
    try {
      const error = await http.request({ method: 'GET', path: '/keywords' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ServiceUnavailableError);
      const host = new URL(base).host;
      expect((error as Error).message).toBe(
        `cannot reach the service (GET https://${host}/api/v1/keywords): ${host} does not answer in TLS on that port (wrong version number)`,
      );
      expect((error as ServiceUnavailableError).hint).toContain('http:// address');
      expect(hits).toBe(0);
    } finally {
      await http.close();
    }
  });

  it('points an unknown CA at the fix that is open: the system store, NODE_EXTRA_CA_CERTS, RSI_NO_SYSTEM_CA', () => {
    const onOld = tlsFailure('SELF_SIGNED_CERT_IN_CHAIN', 'svc:443', { state: 'unavailable', nodeVersion: 'v22.14.0' })!;
    expect(onOld.hint).toContain('NODE_EXTRA_CA_CERTS=/path/ca.pem');
    expect(onOld.hint).toContain("Node v22.14.0 cannot read the system's trust store; on Node 22.15 or later rsi trusts it too");
    const read = tlsFailure('UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'svc', { state: 'added', count: 3, context: {} as never })!;
    expect(read.reason).toBe(
      "the TLS certificate of svc is signed by an authority Node and this system's trust store do not trust (UNABLE_TO_GET_ISSUER_CERT_LOCALLY)",
    );
    expect(read.hint).toContain("install it in the system's trust store");
    expect(read.hint).toContain('NODE_EXTRA_CA_CERTS=/path/ca.pem');
    const off = tlsFailure('DEPTH_ZERO_SELF_SIGNED_CERT', 'svc', { state: 'off' })!;
    expect(off.hint).toContain("NODE_EXTRA_CA_CERTS=/path/ca.pem, or let rsi read the system's trust store: unset RSI_NO_SYSTEM_CA");
    const broken = tlsFailure('CERT_UNTRUSTED', 'svc', { state: 'unreadable', reason: 'EACCES' })!;
    expect(broken.hint).toContain("the system's trust store could not be read: EACCES");
    const unread = { state: 'unread' } as const;
    expect(tlsFailure('ERR_TLS_CERT_ALTNAME_INVALID', 'svc', unread)!.reason).toContain('another host name');
    expect(tlsFailure('CERT_HAS_EXPIRED', 'svc', unread)!.reason).toContain('expired');
    expect(tlsFailure('ECONNREFUSED', 'svc', unread)).toBeUndefined();
    // A certificate OpenSSL rejects for another reason is named as such, not "check your network".
    expect(tlsFailure('INVALID_PURPOSE', 'svc', unread)!.reason).toBe('the TLS certificate of svc was rejected (INVALID_PURPOSE)');
    expect(tlsFailure('CERT_REVOKED', 'svc', unread)!.hint).toContain('its owner must replace it');
    expect(
      tlsFailure('EPROTO', 'svc', unread, 'write EPROTO 80:error:0A00010B:SSL routines:ssl3_get_record:sslv3 alert bad record mac:x.c:1:')!
        .reason,
    ).toBe('the TLS handshake with svc failed (sslv3 alert bad record mac)');
  });
});

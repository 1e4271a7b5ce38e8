import type { IncomingMessage, ServerResponse } from 'node:http';
import { PassThrough } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { InterruptedError, NotSignedInError, ServiceUnavailableError } from '../../src/errors.js';
import type { RetryingHttp } from '../../src/http/retrying-http.js';
import { redactBody, redactHeaders, redactUrl } from '../../src/http/redact.js';
import type { AuthProvider } from '../../src/http/types.js';
import type { Clock } from '../../src/io/io.js';
import { fakeClock } from '../support/fakes.js';
import { TestHttp } from '../support/http.js';
import { startStub, type StubServer } from '../support/stub-server.js';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

let server: StubServer;
let base: string;
let handler: Handler = (_req, res) => res.end();
const seen: { method: string; url: string; auth: string | undefined; ua: string | undefined; body: string }[] = [];

beforeAll(async () => {
  server = await startStub((req, res, body) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', auth: req.headers.authorization, ua: req.headers['user-agent'], body });
    handler(req, res, body);
  });
  base = server.url;
});
afterAll(() => server?.close());
afterEach(() => {
  seen.length = 0;
});

/** A clock whose sleeps return at once and are recorded. */
function json(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(value));
}

function makeHttp(opts: { auth?: AuthProvider; clock?: Clock; trace?: PassThrough; timeoutMs?: number } = {}): RetryingHttp {
  return new TestHttp({
    baseUrl: base,
    auth: opts.auth,
    timeoutMs: opts.timeoutMs ?? 120_000,
    userAgent: 'rsi/9.9.9',
    clock: opts.clock ?? fakeClock(1_000_000),
    trace: opts.trace,
    random: () => 0.5,
  });
}

describe('RetryingHttp', () => {
  it('sends JSON under /api/v1 with the query, user agent and bearer token, and parses the reply', async () => {
    handler = (_req, res) => json(res, 200, { ok: true });
    const http = makeHttp({ auth: { getAccessToken: async () => 'tok-1', refreshAfterUnauthorized: async () => undefined } });
    try {
      const res = await http.request({ method: 'GET', path: '/keywords', query: { q: 'a b', ids: [1, 2], skip: undefined } });
      expect(res.status).toBe(200);
      expect(res.isJson).toBe(true);
      expect(res.json).toEqual({ ok: true });
      expect(seen[0]).toMatchObject({ method: 'GET', url: '/api/v1/keywords?q=a+b&ids=1&ids=2', auth: 'Bearer tok-1', ua: 'rsi/9.9.9' });
      expect(http.apiBase).toBe(`${base}/api/v1`);
    } finally {
      await http.close();
    }
  });

  it('retries a GET on 503, honouring Retry-After, then resolves the success', async () => {
    let calls = 0;
    handler = (_req, res) => (++calls < 3 ? json(res, 503, { error: 'busy' }, { 'retry-after': '2' }) : json(res, 200, { n: calls }));
    const clock = fakeClock(1_000_000);
    const http = makeHttp({ clock });
    try {
      const res = await http.request({ method: 'GET', path: '/x' });
      expect(res.status).toBe(200);
      expect(seen).toHaveLength(3);
      expect(clock.sleeps).toEqual([2000, 2000]);
    } finally {
      await http.close();
    }
  });

  it('tells the request each time it is about to retry, and never for a request it does not retry', async () => {
    let calls = 0;
    handler = (_req, res) => (++calls < 3 ? json(res, 503, { error: 'busy' }) : json(res, 200, { n: calls }));
    const http = makeHttp({ clock: fakeClock(1_000_000) });
    try {
      let retries = 0;
      expect((await http.request({ method: 'GET', path: '/x', onRetry: () => retries++ })).status).toBe(200);
      expect(retries).toBe(2);
      calls = 0;
      retries = 0;
      expect((await http.request({ method: 'POST', path: '/x', body: {}, onRetry: () => retries++ })).status).toBe(503);
      handler = (_req, res) => json(res, 200, {});
      await http.request({ method: 'GET', path: '/x', onRetry: () => retries++ });
      expect(retries).toBe(0);
    } finally {
      await http.close();
    }
  });

  it('stops after 3 retries and resolves the last 502', async () => {
    handler = (_req, res) => json(res, 502, { error: 'bad gateway' });
    const clock = fakeClock(1_000_000);
    const http = makeHttp({ clock });
    try {
      const res = await http.request({ method: 'GET', path: '/x' });
      expect(res.status).toBe(502);
      expect(seen).toHaveLength(4);
      // Jittered exponential backoff (random fixed at 0.5): base/2 + base/2.
      expect(clock.sleeps).toEqual([250, 500, 1000]);
    } finally {
      await http.close();
    }
  });

  it('does not wait for a Retry-After beyond the cap', async () => {
    handler = (_req, res) => json(res, 429, { error: 'slow down' }, { 'retry-after': '3600' });
    const clock = fakeClock(1_000_000);
    const http = makeHttp({ clock });
    try {
      expect((await http.request({ method: 'GET', path: '/x' })).status).toBe(429);
      expect(seen).toHaveLength(1);
      expect(clock.sleeps).toEqual([]);
    } finally {
      await http.close();
    }
  });

  it('never retries a POST automatically', async () => {
    handler = (_req, res) => json(res, 503, { error: 'busy' });
    const http = makeHttp();
    try {
      const res = await http.request({ method: 'POST', path: '/runs', body: { a: 1 } });
      expect(res.status).toBe(503);
      expect(seen).toHaveLength(1);
      expect(seen[0]?.body).toBe('{"a":1}');
    } finally {
      await http.close();
    }
  });

  it('retries by the method alone (src/http/resend.ts): PUT and DELETE are idempotent, POST and PATCH are not', async () => {
    handler = (_req, res) => json(res, 503, { error: 'busy' });
    const http = makeHttp();
    try {
      expect((await http.request({ method: 'POST', path: '/x', body: {} })).status).toBe(503);
      expect(seen).toHaveLength(1);
      expect((await http.request({ method: 'PATCH', path: '/x', body: {} })).status).toBe(503);
      expect(seen).toHaveLength(2);
      expect((await http.request({ method: 'DELETE', path: '/x' })).status).toBe(503);
      expect(seen).toHaveLength(6);
      expect((await http.request({ method: 'PUT', path: '/x', body: {} })).status).toBe(503);
      expect(seen).toHaveLength(10);
    } finally {
      await http.close();
    }
  });

  it('refreshes once on a 401 and resends with the new token', async () => {
    handler = (req, res) => (req.headers.authorization === 'Bearer new' ? json(res, 200, {}) : json(res, 401, { error: 'unauthorized' }));
    const rejected: string[] = [];
    const auth: AuthProvider = {
      getAccessToken: async () => 'old',
      refreshAfterUnauthorized: async (token) => {
        rejected.push(token);
        return 'new';
      },
    };
    const http = makeHttp({ auth });
    try {
      expect((await http.request({ method: 'POST', path: '/runs', body: {} })).status).toBe(200);
      expect(rejected).toEqual(['old']);
      expect(seen.map((s) => s.auth)).toEqual(['Bearer old', 'Bearer new']);
    } finally {
      await http.close();
    }
  });

  it('resolves the 401 when the refresh gives nothing, without looping', async () => {
    handler = (_req, res) => json(res, 401, { error: 'unauthorized' });
    let refreshes = 0;
    const http = makeHttp({ auth: { getAccessToken: async () => 't', refreshAfterUnauthorized: async () => (refreshes++, 'still-bad') } });
    try {
      expect((await http.request({ method: 'GET', path: '/x' })).status).toBe(401);
      expect(refreshes).toBe(1);
      expect(seen).toHaveLength(2);
    } finally {
      await http.close();
    }
  });

  it('passes on NotSignedInError from the auth provider', async () => {
    const http = makeHttp({
      auth: {
        getAccessToken: async () => Promise.reject(new NotSignedInError('not signed in')),
        refreshAfterUnauthorized: async () => undefined,
      },
    });
    try {
      await expect(http.request({ method: 'GET', path: '/x' })).rejects.toBeInstanceOf(NotSignedInError);
      expect(seen).toHaveLength(0);
    } finally {
      await http.close();
    }
  });

  it('maps a refused connection to ServiceUnavailableError (exit 8) after retrying a GET', async () => {
    // Port 1 (tcpmux) has no listener here: a port freed a moment ago could be taken again by
    // another suite running beside this one.
    const port = 1;
    const clock = fakeClock(1_000_000);
    const http = new TestHttp({ baseUrl: `http://127.0.0.1:${port}`, timeoutMs: 2000, userAgent: 'rsi/t', clock, random: () => 0 });
    try {
      const error = await http.request({ method: 'GET', path: '/x' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ServiceUnavailableError);
      expect((error as ServiceUnavailableError).exitCode).toBe(8);
      expect((error as Error).message).toContain('connection refused');
      expect(clock.sleeps).toHaveLength(3);
      let retries = 0;
      await http.request({ method: 'GET', path: '/x', onRetry: () => retries++ }).catch(() => undefined);
      expect(retries).toBe(3);
    } finally {
      await http.close();
    }
  });

  it('times out a hung reply as ServiceUnavailableError and retries a timeout only once', async () => {
    handler = () => undefined; // never answers
    const clock = fakeClock(1_000_000);
    const http = makeHttp({ clock, timeoutMs: 300 });
    try {
      const error = await http.request({ method: 'GET', path: '/hang' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ServiceUnavailableError);
      expect((error as ServiceUnavailableError).timedOut).toBe(true);
      expect((error as Error).message).toContain('timed out');
      expect(seen).toHaveLength(2);
    } finally {
      await http.close();
      server.server.closeAllConnections();
    }
  });

  it('turns an abort into InterruptedError', async () => {
    handler = () => undefined;
    const controller = new AbortController();
    const http = makeHttp();
    try {
      const pending = http.request({ method: 'GET', path: '/hang', signal: controller.signal });
      setTimeout(() => controller.abort(new InterruptedError()), 50);
      await expect(pending).rejects.toBeInstanceOf(InterruptedError);
    } finally {
      await http.close();
      server.server.closeAllConnections();
    }
  });

  it('traces requests and responses with every secret redacted', async () => {
    handler = (_req, res) => json(res, 200, { access_token: 'AT-secret', refresh_token: 'RT-secret', name: 'visible' });
    const trace = new PassThrough();
    let out = '';
    trace.on('data', (c: Buffer) => (out += c.toString()));
    const http = makeHttp({
      trace,
      auth: { getAccessToken: async () => 'BEARER-secret', refreshAfterUnauthorized: async () => undefined },
    });
    try {
      await http.request({ method: 'POST', path: '/x', query: { code: 'CODE-secret' }, body: { code_verifier: 'VER-secret', keep: 1 } });
      expect(out).toContain('> POST');
      expect(out).toContain('< 200');
      expect(out).toContain('visible');
      expect(out).toContain('[redacted]');
      for (const secret of ['AT-secret', 'RT-secret', 'BEARER-secret', 'CODE-secret', 'VER-secret']) expect(out).not.toContain(secret);
    } finally {
      await http.close();
    }
  });
});

describe('redaction helpers', () => {
  it('redacts headers, URLs, JSON and form bodies', () => {
    expect(redactHeaders({ Authorization: 'Bearer x', accept: 'a' })).toEqual({ Authorization: '[redacted]', accept: 'a' });
    expect(redactUrl('http://h/cb?code=abc&state=s')).toBe('http://h/cb?code=%5Bredacted%5D&state=s');
    expect(redactBody('grant_type=refresh_token&refresh_token=RT', 'application/x-www-form-urlencoded')).not.toContain('RT&');
    expect(redactBody('grant_type=refresh_token&refresh_token=RT')).toBe('grant_type=refresh_token&refresh_token=%5Bredacted%5D');
    expect(redactBody('{"a":{"token":"T"},"b":[{"id_token":"I"}]}', 'application/json')).toBe(
      '{"a":{"token":"[redacted]"},"b":[{"id_token":"[redacted]"}]}',
    );
    // Fail closed: a body that is neither JSON nor a form is never shown.
    expect(redactBody('plain text')).toBe('[10 bytes of text not shown]');
  });
});

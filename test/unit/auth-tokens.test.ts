import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { NotSignedInError, UnexpectedReplyError, UsageError } from '../../src/errors.js';
import { normaliseBaseUrl, isLoopbackHost } from '../../src/auth/base-url.js';
import { InvalidGrantError, authServerInfo, checkEndpoints, discoverAuthorizationServer } from '../../src/auth/oauth.js';
import { StaticTokenProvider, StoredTokenProvider, refreshMargin } from '../../src/auth/tokens.js';
import type { StoredTokens } from '../../src/storage/credentials.js';
import { MemoryStore } from '../support/memory-store.js';
import type { Clock } from '../../src/io/io.js';
import { exitOutsideShield } from '../../src/io/shield.js';
import { acquireLock } from '../../src/storage/lock.js';
import { Network } from '../../src/http/network.js';
import { startStub, type StubServer } from '../support/stub-server.js';

// The one network path OAuth calls take, as the Context's would be.
const network = new Network({ env: {}, timeoutMs: 120_000 });
afterAll(() => network.close());

const NOW = 1_700_000_000_000;
const clock: Clock = { now: () => NOW, sleep: async () => undefined };
const key = { baseUrl: 'http://127.0.0.1:1', profile: 'default' };

/** A token endpoint that rotates RT-n → RT-(n+1) and refuses anything else with invalid_grant. */
let server: StubServer;
let tokenEndpoint: string;
let current = 'RT-1';
let refreshes = 0;
let onRefresh: () => Promise<void> = async () => undefined;

beforeAll(async () => {
  server = await startStub(async (_req, res, body) => {
    const form = new URLSearchParams(body);
    await onRefresh();
    res.setHeader('content-type', 'application/json');
    res.setHeader('cache-control', 'no-store');
    if (form.get('grant_type') !== 'refresh_token' || form.get('refresh_token') !== current) {
      res.statusCode = 400;
      res.end(JSON.stringify({ error: 'invalid_grant' }));
      return;
    }
    refreshes++;
    const n = Number(current.slice(3)) + 1;
    current = `RT-${n}`;
    res.end(
      JSON.stringify({ access_token: `AT-${n}`, token_type: 'Bearer', expires_in: 600, refresh_token: current, scope: 'service:read' }),
    );
  });
  tokenEndpoint = `${server.url}/oauth/token`;
});
afterAll(() => server?.close());

let dir: string;
beforeEach(async () => {
  current = 'RT-1';
  refreshes = 0;
  onRefresh = async () => undefined;
  dir = await mkdtemp(join(tmpdir(), 'rsi-auth-'));
  return () => rm(dir, { recursive: true, force: true });
});

function tokens(over: Partial<StoredTokens> = {}): StoredTokens {
  return {
    accessToken: 'AT-1',
    refreshToken: 'RT-1',
    expiresAt: NOW + 600_000,
    obtainedAt: NOW - 1000,
    scope: 'service:read',
    clientId: 'c1',
    ...over,
  };
}

function provider(store: MemoryStore, warnings: string[] = []): StoredTokenProvider {
  return new StoredTokenProvider({
    store,
    key,
    authServer: { issuer: 'http://127.0.0.1', token_endpoint: tokenEndpoint },
    configDir: dir,
    clock,
    oauth: { userAgent: 'rsi/test', network },
    warn: (m) => warnings.push(m),
  });
}

describe('base URL validation', () => {
  it('accepts https anywhere and http only on loopback', () => {
    expect(normaliseBaseUrl('https://svc.example/')).toBe('https://svc.example');
    expect(normaliseBaseUrl('http://127.0.0.1:8080')).toBe('http://127.0.0.1:8080');
    expect(normaliseBaseUrl('http://localhost:1/x/')).toBe('http://localhost:1/x');
    expect(normaliseBaseUrl('http://[::1]:5')).toBe('http://[::1]:5');
    expect(() => normaliseBaseUrl('http://svc.example')).toThrow(UsageError);
    expect(() => normaliseBaseUrl('ftp://svc.example')).toThrow(UsageError);
    expect(() => normaliseBaseUrl('not a url')).toThrow(UsageError);
    expect(() => normaliseBaseUrl('https://u:p@svc.example')).toThrow(UsageError);
    expect(isLoopbackHost('127.5.6.7')).toBe(true);
    expect(isLoopbackHost('127.0.0.1.evil.example')).toBe(false);
  });
});

describe('token providers', () => {
  it('RSI_TOKEN is used as is and never refreshed: refused, it says to renew the variable, not to sign in', async () => {
    const p = new StaticTokenProvider('env-token');
    expect(await p.getAccessToken()).toBe('env-token');
    const refused = await p.refreshAfterUnauthorized().catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(NotSignedInError);
    expect((refused as NotSignedInError).message).toMatch(/^the service refused the access token in RSI_TOKEN \(expired/);
    expect((refused as NotSignedInError).hint).toMatch(/^renew RSI_TOKEN with a fresh access token/);
    expect((refused as NotSignedInError).hint).not.toMatch(/rsi login/);
    const mcp = await new StaticTokenProvider('env-token', 'RSI_MCP_TOKEN').refreshAfterUnauthorized().catch((e: unknown) => e);
    expect((mcp as NotSignedInError).hint).toMatch(/^renew RSI_MCP_TOKEN/);
  });

  it('refreshes early only within the margin (a minute, or a quarter of a short lifetime)', () => {
    expect(refreshMargin({ expiresAt: 10_000_000 })).toBe(60_000);
    expect(refreshMargin({ expiresAt: 2000, obtainedAt: 0 })).toBe(500);
  });

  it('uses a fresh stored token without refreshing', async () => {
    const store = new MemoryStore();
    await store.save(key, tokens());
    expect(await provider(store).getAccessToken()).toBe('AT-1');
    expect(refreshes).toBe(0);
  });

  it('refreshes a token about to expire and stores the rotation with an absolute expiry', async () => {
    const store = new MemoryStore();
    await store.save(key, tokens({ expiresAt: NOW + 30_000, obtainedAt: NOW - 570_000 }));
    expect(await provider(store).getAccessToken()).toBe('AT-2');
    expect(refreshes).toBe(1);
    expect(await store.load(key)).toMatchObject({ accessToken: 'AT-2', refreshToken: 'RT-2', expiresAt: NOW + 600_000, obtainedAt: NOW });
  });

  it('refreshes reactively once after a 401 and gives up quietly on a second', async () => {
    const store = new MemoryStore();
    await store.save(key, tokens());
    const p = provider(store);
    expect(await p.refreshAfterUnauthorized('AT-1')).toBe('AT-2');
    current = 'RT-gone';
    expect(await p.refreshAfterUnauthorized('AT-2')).toBeUndefined();
  });

  it('uses tokens another process refreshed while it waited instead of refreshing again', async () => {
    const store = new MemoryStore();
    await store.save(key, tokens());
    const p = provider(store);
    expect(await p.getAccessToken()).toBe('AT-1');
    // Another process rotates while this one's request is being refused with 401.
    await store.save(key, tokens({ accessToken: 'AT-other', refreshToken: 'RT-other', expiresAt: NOW + 600_000 }));
    expect(await p.refreshAfterUnauthorized('AT-1')).toBe('AT-other');
    expect(refreshes).toBe(0);
  });

  it("invalid_grant for a token another process rotated keeps the winner's tokens", async () => {
    const store = new MemoryStore();
    await store.save(key, tokens({ expiresAt: NOW - 1 }));
    current = 'RT-9';
    // While our refresh is in flight, the "other process" stores its rotated tokens.
    onRefresh = async () => {
      onRefresh = async () => undefined;
      await store.save(key, tokens({ accessToken: 'AT-9', refreshToken: 'RT-9', expiresAt: NOW + 600_000 }));
    };
    expect(await provider(store).getAccessToken()).toBe('AT-9');
    expect((await store.load(key))?.refreshToken).toBe('RT-9');
  });

  it('a real invalid_grant is exit 3 with `rsi login` and deletes nothing', async () => {
    const store = new MemoryStore();
    await store.save(key, tokens({ expiresAt: NOW - 1, refreshToken: 'RT-revoked' }));
    const error = await provider(store)
      .getAccessToken()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidGrantError);
    expect((error as NotSignedInError).exitCode).toBe(3);
    expect((error as NotSignedInError).hint).toContain('rsi login');
    expect((await store.load(key))?.refreshToken).toBe('RT-revoked');
  });

  it('says loudly when rotated tokens cannot be saved', async () => {
    const store = new MemoryStore();
    await store.save(key, tokens({ expiresAt: NOW - 1 }));
    store.save = async () => {
      throw new Error('disk full');
    };
    const warnings: string[] = [];
    expect(await provider(store, warnings).getAccessToken()).toBe('AT-2');
    expect(warnings.join('\n')).toMatch(/saving them failed \(disk full\).*rsi login/);
  });

  it('with nothing stored: NotSignedInError', async () => {
    await expect(provider(new MemoryStore()).getAccessToken()).rejects.toBeInstanceOf(NotSignedInError);
  });
});

describe('discovery is checked before the browser opens', () => {
  /** Serves RFC 8414 metadata for its own origin, with `over` replacing fields. */
  async function metadataServer(over: (base: string) => Record<string, unknown>): Promise<{ base: string; close: () => Promise<void> }> {
    const srv = await startStub((req, res) => {
      const base = srv.url;
      res.setHeader('content-type', 'application/json');
      if (req.url === '/.well-known/oauth-authorization-server') {
        res.end(
          JSON.stringify({
            issuer: base,
            authorization_endpoint: `${base}/oauth/authorize`,
            token_endpoint: `${base}/oauth/token`,
            registration_endpoint: `${base}/oauth/register`,
            revocation_endpoint: `${base}/oauth/revoke`,
            code_challenge_methods_supported: ['S256'],
            ...over(base),
          }),
        );
      } else {
        res.statusCode = 404;
        res.end('{}');
      }
    });
    return { base: srv.url, close: () => srv.close() };
  }
  const env = { userAgent: 'rsi/test', timeoutMs: 120_000, network };

  it('accepts https endpoints and loopback http ones', async () => {
    const s = await metadataServer(() => ({ revocation_endpoint: 'https://revoke.example/r' }));
    try {
      const as = await discoverAuthorizationServer(s.base, env);
      expect(authServerInfo(as)).toMatchObject({
        token_endpoint: `${s.base}/oauth/token`,
        revocation_endpoint: 'https://revoke.example/r',
      });
    } finally {
      await s.close();
    }
  });

  it.each([
    ['authorization_endpoint', 'javascript:alert(1)', /authorization_endpoint "javascript:alert\(1\)", which is not an https:\/\/ URL/],
    ['authorization_endpoint', 'file:///etc/passwd', /authorization_endpoint "file:\/\/\/etc\/passwd", which is not an https:\/\/ URL/],
    ['token_endpoint', 'http://tokens.example/token', /token_endpoint "http:\/\/tokens\.example\/token", which is plain http/],
    ['registration_endpoint', 'http://10.0.0.1/register', /registration_endpoint .* plain http/],
    ['revocation_endpoint', 'not a url', /revocation_endpoint "not a url", which is not a URL/],
    ['token_endpoint', 'https://user:pw@tokens.example/t', /carries credentials/],
  ])('refuses %s %s with a clear error', async (field, value, message) => {
    const s = await metadataServer(() => ({ [field]: value }));
    try {
      const error = (await discoverAuthorizationServer(s.base, env).catch((e: unknown) => e)) as UnexpectedReplyError;
      expect(error).toBeInstanceOf(UnexpectedReplyError);
      expect(error.message).toMatch(message);
      expect(error.message).toContain('refusing to sign in');
    } finally {
      await s.close();
    }
  });

  it('authServerInfo re-checks what it stores', () => {
    expect(() => checkEndpoints({ token_endpoint: 'https://a.example/t', authorization_endpoint: 'data:text/html,hi' })).toThrow(
      UnexpectedReplyError,
    );
    expect(() =>
      authServerInfo({ issuer: 'https://a.example', token_endpoint: 'http://a.example/t' } as Parameters<typeof authServerInfo>[0]),
    ).toThrow(/plain http/);
  });
});

describe('interrupts never lose a rotated token', () => {
  it('a second Ctrl-C during a refresh exits only after the rotated tokens are saved, and says so', async () => {
    const store = new MemoryStore();
    await store.save(key, tokens({ expiresAt: NOW - 1 }));
    const said: string[] = [];
    const storedAtExit: (string | undefined)[] = [];
    const exit = () => void store.load(key).then((t) => storedAtExit.push(t?.refreshToken));
    let exitsBeforeSave = -1;
    // The server has the request (it is about to rotate) when the user presses Ctrl-C again.
    onRefresh = async () => {
      exitOutsideShield(exit, (line) => said.push(line));
      exitsBeforeSave = storedAtExit.length;
    };
    expect(await provider(store).getAccessToken()).toBe('AT-2');
    await new Promise((r) => setImmediate(r));
    expect(exitsBeforeSave).toBe(0);
    expect(storedAtExit).toEqual(['RT-2']);
    expect(said).toEqual(['saving your refreshed sign-in before exiting (press Ctrl-C again to leave at once)']);
  });

  it('a third Ctrl-C leaves at once and tells the user exactly what may be lost', async () => {
    const store = new MemoryStore();
    await store.save(key, tokens({ expiresAt: NOW - 1 }));
    const said: string[] = [];
    let exits = 0;
    onRefresh = async () => {
      exitOutsideShield(
        () => exits++,
        (line) => said.push(line),
      );
      exitOutsideShield(
        () => exits++,
        (line) => said.push(line),
      );
      expect(exits).toBe(1);
    };
    await provider(store).getAccessToken();
    expect(said[1]).toMatch(/left while refreshed tokens were being saved; .*run `rsi login`/);
  });

  it('outside a refresh, a second Ctrl-C leaves at once without a word', () => {
    let exits = 0;
    const said: string[] = [];
    exitOutsideShield(
      () => exits++,
      (line) => said.push(line),
    );
    expect([exits, said]).toEqual([1, []]);
  });

  it('waiting for another process’s refresh lock says so once on stderr, then uses the refresh', async () => {
    const store = new MemoryStore();
    await store.save(key, tokens({ expiresAt: NOW - 1 }));
    const warnings: string[] = [];
    const holder = await acquireLock(join(dir, 'refresh-default.lock'), { staleMs: 20_000, what: 'test' });
    const p = new StoredTokenProvider({
      store,
      key,
      authServer: { issuer: 'http://127.0.0.1', token_endpoint: tokenEndpoint },
      configDir: dir,
      clock,
      oauth: { userAgent: 'rsi/test', network },
      warn: (m) => warnings.push(m),
      lockNoteAfterMs: 20,
    });
    const refreshed = p.getAccessToken();
    while (warnings.length === 0) await new Promise((r) => setTimeout(r, 10));
    expect(warnings).toEqual(['waiting for another rsi process that is refreshing the sign-in of profile default…']);
    expect(refreshes).toBe(0);
    await holder();
    expect(await refreshed).toBe('AT-2');
    expect(warnings).toHaveLength(1);
  });

  it('no note when nobody else holds the lock', async () => {
    const store = new MemoryStore();
    await store.save(key, tokens({ expiresAt: NOW - 1 }));
    const warnings: string[] = [];
    await provider(store, warnings).getAccessToken();
    expect(warnings).toEqual([]);
  });
});

// The sandbox's authorization server against the spec's Authentication section and the RFCs it
// names: an independent client (oauth4webapi) plus raw requests for every error row.
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as oauth from 'oauth4webapi';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { ALL_SCOPES } from '../support/oauth.js';
import { sandboxAdmin } from '../support/sandbox.js';

let sb: Sandbox;
const REDIRECT = 'http://127.0.0.1:53682/callback';

beforeAll(async () => {
  sb = await startSandbox({ autoApprove: true, timeScale: 1000 });
});
afterAll(async () => {
  await sb?.close();
});

async function register(body: unknown = { client_name: 'conformance', redirect_uris: [REDIRECT] }): Promise<Response> {
  return fetch(`${sb.url}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

function authorizeUrl(clientId: string, challenge: string, extra: Record<string, string> = {}): URL {
  const u = new URL(`${sb.url}/oauth/authorize`);
  u.search = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    resource: `${sb.url}/api/v1`,
    scope: ALL_SCOPES.join(' '),
    state: 'st',
    ...extra,
  }).toString();
  return u;
}

async function token(form: Record<string, string>): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(`${sb.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
  });
  return { status: res.status, body: await res.json().then((b): any => b), headers: res.headers };
}

/** Registers, authorizes (auto-approve) and returns the code + what is needed to exchange it. */
async function codeFor(extra: Record<string, string> = {}): Promise<{ clientId: string; code: string; verifier: string }> {
  const { client_id: clientId } = (await (await register()).json().then((b): any => b)) as { client_id: string };
  const { verifier, challenge } = pkce();
  const res = await fetch(authorizeUrl(clientId, challenge, extra), { redirect: 'manual' });
  const code = new URL(res.headers.get('location')!).searchParams.get('code')!;
  return { clientId, code, verifier };
}

describe('an independent OAuth client (oauth4webapi)', () => {
  it('discovers, registers, authorizes, exchanges, calls every route, refreshes and revokes', async () => {
    const opts = { [oauth.allowInsecureRequests]: true };
    const resourceId = new URL(`${sb.url}/api/v1`);
    const rs = await oauth.processResourceDiscoveryResponse(resourceId, await oauth.resourceDiscoveryRequest(resourceId, opts));
    const issuer = new URL(rs.authorization_servers![0]!);
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { ...opts, algorithm: 'oauth2' }));
    expect(as.code_challenge_methods_supported).toEqual(['S256']);
    const client = (await oauth.processDynamicClientRegistrationResponse(
      await oauth.dynamicClientRegistrationRequest(
        as,
        { client_name: 'independent', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' },
        opts,
      ),
    )) as oauth.Client;
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = authorizeUrl(client.client_id, await oauth.calculatePKCECodeChallenge(verifier), { state });
    const redirect = await fetch(url, { redirect: 'manual' });
    const params = oauth.validateAuthResponse(as, client, new URL(redirect.headers.get('location')!), state);
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, REDIRECT, verifier, {
        ...opts,
        additionalParameters: { resource: resourceId.href },
      }),
    );
    expect(tokens.scope).toBe(ALL_SCOPES.join(' '));
    expect(tokens.expires_in).toBe(3600);

    const call = async (method: string, path: string, body?: unknown): Promise<Response> =>
      oauth.protectedResourceRequest(
        tokens.access_token,
        method,
        new URL(`${sb.url}/api/v1${path}`),
        new Headers(body ? { 'content-type': 'application/json' } : {}),
        body ? JSON.stringify(body) : undefined,
        opts,
      );
    const kw = (await (await call('GET', '/keywords?q=kras')).json().then((b): any => b)).data[0];
    expect((await call('GET', `/keywords/${kw.id}`)).status).toBe(200);
    expect((await call('GET', `/keywords/${kw.id}/relations?relation=assets`)).status).toBe(200);
    const projects = (await (await call('GET', '/projects')).json().then((b): any => b)).projects;
    const created = await (await call('POST', '/projects', { name: 'oauth4webapi' })).json().then((b): any => b);
    expect(created.role).toBe('owner');
    const kras = projects.find((p: { name: string }) => p.name === 'KRAS inhibitors').id;
    for (const sub of ['status', 'signals', 'opportunities']) expect((await call('GET', `/projects/${kras}/${sub}`)).status).toBe(200);
    expect((await call('POST', `/projects/${kras}/analyses`, { top: { type: 'modality', limit: 1 } })).status).toBe(202);

    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, opts),
    );
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect(
      (
        await oauth.protectedResourceRequest(
          refreshed.access_token,
          'GET',
          new URL(`${sb.url}/api/v1/projects`),
          new Headers(),
          undefined,
          opts,
        )
      ).status,
    ).toBe(200);

    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, oauth.None(), refreshed.refresh_token!, opts));
    // oauth4webapi throws on a WWW-Authenticate challenge, which is exactly what a revoked token gets.
    await expect(
      oauth.protectedResourceRequest(refreshed.access_token, 'GET', new URL(`${sb.url}/api/v1/projects`), new Headers(), undefined, opts),
    ).rejects.toThrow(/WWW-Authenticate/);
    const plain = await fetch(`${sb.url}/api/v1/projects`, { headers: { authorization: `Bearer ${refreshed.access_token}` } });
    expect(plain.status).toBe(401);
  });
});

describe('metadata', () => {
  it('RFC 8414 and RFC 9728 documents name each other and the four endpoints', async () => {
    const as = await (await fetch(`${sb.url}/.well-known/oauth-authorization-server`)).json().then((b): any => b);
    expect(as).toMatchObject({
      issuer: sb.url,
      authorization_endpoint: `${sb.url}/oauth/authorize`,
      token_endpoint: `${sb.url}/oauth/token`,
      registration_endpoint: `${sb.url}/oauth/register`,
      revocation_endpoint: `${sb.url}/oauth/revoke`,
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
    });
    for (const r of ['api/v1', 'mcp']) {
      const pr = await (await fetch(`${sb.url}/.well-known/oauth-protected-resource/${r}`)).json().then((b): any => b);
      expect(pr).toMatchObject({ resource: `${sb.url}/${r}`, authorization_servers: [sb.url] });
    }
  });
});

describe('registration', () => {
  it.each([
    ['not JSON', '{oops'],
    ['no redirect URIs', { client_name: 'x' }],
    ['http on a non-loopback host', { redirect_uris: ['http://example.com/cb'] }],
    ['a custom scheme', { redirect_uris: ['myapp://cb'] }],
    ['a confidential auth method', { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'client_secret_basic' }],
  ])('rejects %s with invalid_client_metadata', async (_name, body) => {
    const res = await register(body);
    expect(res.status).toBe(400);
    expect((await res.json().then((b): any => b)).error).toBe('invalid_client_metadata');
  });

  it('accepts https and http on localhost, 127.0.0.1 and [::1]', async () => {
    const res = await register({
      redirect_uris: ['https://example.com/cb', 'http://localhost:1/cb', 'http://127.0.0.1:2/cb', 'http://[::1]:3/cb'],
    });
    expect(res.status).toBe(201);
    expect((await res.json().then((b): any => b)).client_id).toEqual(expect.any(String));
  });

  it('the per-address limit answers 429 slow_down with Retry-After', async () => {
    let last: Response | undefined;
    for (let i = 0; i < 40; i++) {
      last = await register();
      if (last.status === 429) break;
    }
    expect(last!.status).toBe(429);
    expect((await last!.json().then((b): any => b)).error).toBe('slow_down');
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('authorize and token', () => {
  // The registration limit above is per address and this file shares one sandbox: use a fresh one.
  let fresh: Sandbox;
  let original: Sandbox;
  let base: string;
  beforeAll(async () => {
    fresh = await startSandbox({ autoApprove: true, tokenTtlSeconds: 90 });
    base = fresh.url;
    original = sb;
    sb = fresh;
  });
  afterAll(async () => {
    sb = original;
    await fresh?.close();
  });

  it('redirect carries code, state and iss; errors redirect with error, unknown clients do not redirect', async () => {
    const { client_id: clientId } = await (await register()).json().then((b): any => b);
    const { challenge } = pkce();
    const ok = await fetch(authorizeUrl(clientId, challenge), { redirect: 'manual' });
    const loc = new URL(ok.headers.get('location')!);
    expect(loc.origin + loc.pathname).toBe(REDIRECT);
    expect(loc.searchParams.get('state')).toBe('st');
    expect(loc.searchParams.get('iss')).toBe(base);
    expect(loc.searchParams.get('code')).toBeTruthy();

    const errorOf = async (extra: Record<string, string>): Promise<string | null> => {
      const r = await fetch(authorizeUrl(clientId, challenge, extra), { redirect: 'manual' });
      return new URL(r.headers.get('location')!).searchParams.get('error');
    };
    expect(await errorOf({ code_challenge_method: 'plain' })).toBe('invalid_request');
    expect(await errorOf({ code_challenge: '' })).toBe('invalid_request');
    expect(await errorOf({ resource: `${base}/other` })).toBe('invalid_target');
    expect(await errorOf({ scope: 'service:read admin' })).toBe('invalid_scope');
    expect(await errorOf({ response_type: 'token' })).toBe('unsupported_response_type');

    expect((await fetch(authorizeUrl('nope', challenge), { redirect: 'manual' })).status).toBe(400);
    expect(
      (await fetch(authorizeUrl(clientId, challenge, { redirect_uri: 'http://127.0.0.1:53682/other' }), { redirect: 'manual' })).status,
    ).toBe(400);
  });

  it('code exchange: PKCE, redirect_uri and resource must match; a code works once', async () => {
    const c = await codeFor();
    const form = {
      grant_type: 'authorization_code',
      code: c.code,
      client_id: c.clientId,
      redirect_uri: REDIRECT,
      code_verifier: c.verifier,
      resource: `${base}/api/v1`,
    };
    expect((await token({ ...form, code_verifier: pkce().verifier })).body.error).toBe('invalid_grant');
    expect((await token({ ...form, redirect_uri: 'http://127.0.0.1:1/x' })).body.error).toBe('invalid_grant');
    expect((await token({ ...form, resource: `${base}/nope` })).body.error).toBe('invalid_target');
    expect((await token({ ...form, resource: `${base}/mcp` })).body.error).toBe('invalid_target');
    const ok = await token(form);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('cache-control')).toBe('no-store');
    expect(ok.body).toMatchObject({ token_type: 'Bearer', expires_in: 90, scope: ALL_SCOPES.join(' ') });
    const again = await token(form);
    expect(again).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(again.body.error_description).toEqual(expect.any(String));
    // Replaying the code revoked what it produced.
    const r = await fetch(`${base}/api/v1/projects`, { headers: { authorization: `Bearer ${ok.body.access_token}` } });
    expect(r.status).toBe(401);
  });

  it('unsupported_grant_type, and a missing code is invalid_grant', async () => {
    expect((await token({ grant_type: 'password' })).body.error).toBe('unsupported_grant_type');
    expect((await token({})).body.error).toBe('unsupported_grant_type');
    expect((await token({ grant_type: 'authorization_code' })).body.error).toBe('invalid_grant');
  });

  it('refresh rotates; reusing a rotated refresh token revokes the family', async () => {
    const c = await codeFor();
    const first = (
      await token({
        grant_type: 'authorization_code',
        code: c.code,
        client_id: c.clientId,
        redirect_uri: REDIRECT,
        code_verifier: c.verifier,
        resource: `${base}/api/v1`,
      })
    ).body;
    const second = await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: c.clientId });
    expect(second.status).toBe(200);
    expect(second.body.refresh_token).not.toBe(first.refresh_token);
    const reuse = await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: c.clientId });
    expect(reuse.body.error).toBe('invalid_grant');
    const dead = await token({ grant_type: 'refresh_token', refresh_token: second.body.refresh_token, client_id: c.clientId });
    expect(dead.body.error).toBe('invalid_grant');
  });

  it('refresh with a wrong resource is invalid_target; access tokens expire after --token-ttl', async () => {
    const c = await codeFor();
    const first = (
      await token({
        grant_type: 'authorization_code',
        code: c.code,
        client_id: c.clientId,
        redirect_uri: REDIRECT,
        code_verifier: c.verifier,
        resource: `${base}/api/v1`,
      })
    ).body;
    expect(
      (await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: c.clientId, resource: `${base}/mcp` }))
        .body.error,
    ).toBe('invalid_target');
    const headers = { authorization: `Bearer ${first.access_token}` };
    expect((await fetch(`${base}/api/v1/projects`, { headers })).status).toBe(200);
    fresh.advance(80);
    expect((await fetch(`${base}/api/v1/projects`, { headers })).status).toBe(200);
    fresh.advance(11);
    expect((await fetch(`${base}/api/v1/projects`, { headers })).status).toBe(401);
  });

  it('revoke answers 200 for unknown tokens and 400 without a token', async () => {
    const res = await fetch(`${base}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'token=unknown',
    });
    expect(res.status).toBe(200);
    const missing = await fetch(`${base}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
    });
    expect(missing.status).toBe(400);
  });
});

describe('lifetimes (clock jumps through POST /__sandbox/advance)', () => {
  let fresh: Sandbox;
  let original: Sandbox;
  beforeAll(async () => {
    fresh = await startSandbox({ autoApprove: true });
    original = sb;
    sb = fresh;
  });
  afterAll(async () => {
    sb = original;
    await fresh?.close();
  });
  const advance = async (seconds: number): Promise<void> => {
    const res = await sandboxAdmin(sb, `advance?seconds=${seconds}`, { method: 'POST' });
    expect(res.status).toBe(200);
  };
  const exchange = (c: { clientId: string; code: string; verifier: string }) =>
    token({
      grant_type: 'authorization_code',
      code: c.code,
      client_id: c.clientId,
      redirect_uri: REDIRECT,
      code_verifier: c.verifier,
      resource: `${sb.url}/api/v1`,
    });

  it('an authorization code lives 60 seconds', async () => {
    const young = await codeFor();
    await advance(55);
    expect((await exchange(young)).status).toBe(200);
    const old = await codeFor();
    await advance(61);
    expect((await exchange(old)).body.error).toBe('invalid_grant');
  });

  it('an access token lives 3600 seconds by default; a refresh token 30 days', async () => {
    const c = await codeFor();
    const clientId = c.clientId;
    const first = (await exchange(c)).body;
    expect(first.expires_in).toBe(3600);
    const call = (t: string) => fetch(`${sb.url}/api/v1/projects`, { headers: { authorization: `Bearer ${t}` } }).then((r) => r.status);
    await advance(3590);
    expect(await call(first.access_token)).toBe(200);
    await advance(20);
    expect(await call(first.access_token)).toBe(401);
    // 29 days later the refresh token still works and rotates; the new one dies after 30 days.
    await advance(29 * 86400);
    const second = await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: clientId });
    expect(second.status).toBe(200);
    expect(await call(second.body.access_token)).toBe(200);
    await advance(30 * 86400 + 1);
    expect((await token({ grant_type: 'refresh_token', refresh_token: second.body.refresh_token, client_id: clientId })).body.error).toBe(
      'invalid_grant',
    );
  });

  it('rejects a bad advance', async () => {
    expect((await sandboxAdmin(sb, 'advance?seconds=-1', { method: 'POST' })).status).toBe(400);
  });
});

describe('the consent page over plain HTTP (no --auto-approve)', () => {
  let consent: Sandbox;
  beforeAll(async () => {
    consent = await startSandbox({});
  });
  afterAll(async () => {
    await consent?.close();
  });

  async function open(clientName: string): Promise<{ html: string; request: string }> {
    const reg = await (
      await fetch(`${consent.url}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: clientName, redirect_uris: [REDIRECT] }),
      })
    )
      .json()
      .then((b): any => b);
    const u = new URL(`${consent.url}/oauth/authorize`);
    u.search = new URLSearchParams({
      response_type: 'code',
      client_id: reg.client_id,
      redirect_uri: REDIRECT,
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
      resource: `${consent.url}/mcp`,
      scope: 'service:read',
      state: 'plain',
    }).toString();
    const res = await fetch(u);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const html = await res.text();
    return { html, request: /name="request" value="([^"]+)"/.exec(html)![1]! };
  }
  const decide = (request: string, decision: string): Promise<Response> =>
    fetch(`${consent.url}/oauth/authorize/decision`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ request, decision }),
      redirect: 'manual',
    });

  it('names the client (escaped), the scopes and the resource; a decision is answerable once', async () => {
    const { html, request } = await open('<script>alert(1)</script> Tool');
    expect(html).not.toContain('<script>alert(1)</script>');
    expect(html).toContain('&lt;script&gt;');
    expect(html).toContain('service:read');
    expect(html).toContain(`${consent.url}/mcp`);
    expect(html).toContain('Dana Reyes');
    const approved = await decide(request, 'approve');
    expect(approved.status).toBe(302);
    const loc = new URL(approved.headers.get('location')!);
    expect(loc.searchParams.get('code')).toBeTruthy();
    expect(loc.searchParams.get('iss')).toBe(consent.url);
    expect((await decide(request, 'approve')).status).toBe(400);
  });

  it('deny redirects with access_denied, state and iss', async () => {
    const { request } = await open('Denied tool');
    const denied = await decide(request, 'deny');
    const loc = new URL(denied.headers.get('location')!);
    expect(loc.searchParams.get('error')).toBe('access_denied');
    expect(loc.searchParams.get('state')).toBe('plain');
    expect(loc.searchParams.get('iss')).toBe(consent.url);
  });
});

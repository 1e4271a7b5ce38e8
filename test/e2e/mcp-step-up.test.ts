// Step-up inside `rsi login --resource mcp` (MCP authorization spec 2025-11-25, "Scope Challenge
// Handling"): the new token is tried at once, and a 403 `insufficient_scope` naming scopes not yet
// granted is answered by a sign-in for the union, a bounded number of times. The conformance suite
// covers the other paths; its servers never refuse tools/list after sign-in for a scope they would
// then grant, so this small loopback MCP server and authorization server do: tools/list needs
// `mcp:read mcp:list`, and the authorization server grants what is asked, less what it withholds.
import { mkdtempSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/inproc.js';
import { FAKE_BROWSER } from '../support/browser.js';
import { startStub, type StubServer } from '../support/stub-server.js';

/**
 * A sign-in is several processes (rsi, the browser, the consent page): on a machine as busy as CI's
 * it can take far longer than runCli's default, so it is only a bound for a hang.
 */
const SLOW = 120_000;

interface Fake {
  base: string;
  /** The `scope` of every authorization request, in order. */
  asked: string[];
  server: StubServer;
}
let fake: Fake | undefined;

afterEach(async () => {
  await fake?.server.close();
  fake = undefined;
});

/**
 * One loopback server playing both parts; `withheld` scopes are never granted. With `client`, the
 * authorization server offers no registration and knows only that confidential client (Basic).
 */
async function startFake(withheld: string[], client?: { id: string; secret: string }): Promise<Fake> {
  const asked: string[] = [];
  const tokens = new Map<string, string[]>();
  let base = '';
  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
  const server = await startStub(async (req, res, body) => {
    const url = new URL(req.url!, base);
    if (url.pathname === '/.well-known/oauth-protected-resource/mcp') {
      return json(res, 200, { resource: `${base}/mcp`, authorization_servers: [base], scopes_supported: ['mcp:read', 'mcp:list'] });
    }
    if (url.pathname === '/.well-known/oauth-authorization-server') {
      return json(res, 200, {
        issuer: base,
        authorization_endpoint: `${base}/authorize`,
        token_endpoint: `${base}/token`,
        ...(client ? {} : { registration_endpoint: `${base}/register` }),
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: client ? ['client_secret_basic'] : ['none'],
      });
    }
    if (url.pathname === '/register') return json(res, 201, { client_id: 'step-up-client', token_endpoint_auth_method: 'none' });
    if (url.pathname === '/authorize') {
      const scope = url.searchParams.get('scope') ?? '';
      asked.push(scope);
      const back = new URL(url.searchParams.get('redirect_uri')!);
      back.searchParams.set('code', `code-${asked.length}`);
      back.searchParams.set('state', url.searchParams.get('state')!);
      res.writeHead(302, { location: back.href });
      return res.end();
    }
    if (url.pathname === '/token') {
      if (client && req.headers.authorization !== `Basic ${btoa(`${client.id}:${client.secret}`)}`) {
        return json(res, 401, { error: 'invalid_client' });
      }
      const granted = (asked.at(-1) ?? '').split(' ').filter((s) => s && !withheld.includes(s));
      const token = `token-${tokens.size + 1}`;
      tokens.set(token, granted);
      return json(res, 200, { access_token: token, token_type: 'Bearer', expires_in: 3600, scope: granted.join(' ') });
    }
    if (url.pathname === '/mcp' && req.method === 'POST') {
      const rpc = JSON.parse(body) as { id?: number; method: string };
      const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
      const metadata = `resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`;
      if (!token || !tokens.has(token)) return json(res, 401, { error: 'invalid_token' }, { 'www-authenticate': `Bearer ${metadata}` });
      if (rpc.method === 'initialize') {
        return json(res, 200, {
          jsonrpc: '2.0',
          id: rpc.id,
          result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'fake', version: '1' } },
        });
      }
      if (rpc.id === undefined) {
        res.writeHead(202);
        return res.end();
      }
      const needed = ['mcp:read', 'mcp:list'];
      if (!needed.every((s) => tokens.get(token)!.includes(s))) {
        return json(
          res,
          403,
          { error: 'insufficient_scope' },
          { 'www-authenticate': `Bearer error="insufficient_scope", scope="${needed.join(' ')}", ${metadata}` },
        );
      }
      return json(res, 200, { jsonrpc: '2.0', id: rpc.id, result: { tools: [] } });
    }
    json(res, 404, { error: 'not_found' });
  });
  base = server.url;
  return { base, asked, server };
}

function env(base: string): Record<string, string> {
  return {
    RSI_BASE_URL: base,
    RSI_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'rsi-step-up-')),
    RSI_CREDENTIAL_STORE: 'file',
    BROWSER: FAKE_BROWSER,
  };
}

describe('rsi login --resource mcp: step-up', () => {
  it('a token refused for a scope not yet granted: one more sign-in for the union, and it is kept', async () => {
    fake = await startFake([]);
    const r = await runCli(['login', '--resource', 'mcp', '--scope', 'mcp:read'], { env: env(fake.base), timeoutMs: SLOW });
    expect(r.code, r.stderr).toBe(0);
    expect(fake.asked).toEqual(['mcp:read', 'mcp:read mcp:list']);
    expect(r.stderr).toContain('The MCP server also asks for mcp:list; signing in again for mcp:read mcp:list (step-up).');
    expect(r.stderr).toMatch(/^Scopes: mcp:read mcp:list$/m);
    expect(r.stderr).not.toContain('still refuses');
  }, 300_000);

  it('a scope the authorization server refuses to grant: asked for once, not again, and said', async () => {
    fake = await startFake(['mcp:list']);
    const r = await runCli(['login', '--resource', 'mcp', '--scope', 'mcp:read'], { env: env(fake.base), timeoutMs: SLOW });
    expect(r.code, r.stderr).toBe(0);
    expect(fake.asked).toEqual(['mcp:read', 'mcp:read mcp:list']);
    expect(r.stderr).toContain('warning: the MCP server still refuses this sign-in for lack of mcp:list');
    expect(r.stderr).toContain('the service did not grant mcp:list');
  }, 300_000);

  it('a pre-registered confidential client (--client-id, RSI_CLIENT_SECRET): used for the step-up, and remembered for the next sign-in', async () => {
    fake = await startFake([], { id: 'pre-registered', secret: 'pre-secret' });
    const e = env(fake.base);
    const r = await runCli(['login', '--resource', 'mcp', '--client-id', 'pre-registered', '--scope', 'mcp:read'], {
      env: { ...e, RSI_CLIENT_SECRET: 'pre-secret' },
      timeoutMs: SLOW,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(fake.asked).toEqual(['mcp:read', 'mcp:read mcp:list']);
    // The secret is never printed; the next sign-in (as a hint would name it) needs neither flag nor variable.
    expect(r.stderr).not.toContain('pre-secret');
    const again = await runCli(['login', '--resource', 'mcp', '--scope', 'mcp:read,mcp:list'], { env: e, timeoutMs: SLOW });
    expect(again.code, again.stderr).toBe(0);
    expect(fake.asked).toHaveLength(3);
    // Without it, and with no registration offered, rsi says what to pass.
    const fresh = await runCli(['login', '--resource', 'mcp'], { env: env(fake.base), timeoutMs: SLOW });
    expect(fresh.code).toBe(2);
    expect(fresh.stderr).toContain('offers no dynamic client registration');
    expect(fresh.stderr).toContain('--client-id <id>');
  }, 300_000);
});

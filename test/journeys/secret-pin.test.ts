// A pre-registered client's secret goes only where the user said (issue 41.4): `rsi login
// --resource mcp --client-id … ` with RSI_CLIENT_SECRET is tied to the authorization server the
// client was registered with — given with --issuer, or stored with the profile by the first
// sign-in — and MCP metadata naming another issuer is refused before the browser opens and before
// the secret is sent. Real rsi processes against loopback servers: an MCP server whose
// protected-resource metadata names whichever authorization server the test sets, and two
// authorization servers that count what reaches them.
import { mkdtempSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { FAKE_BROWSER } from '../support/browser.js';
import { startStub, type StubServer } from '../support/stub-server.js';

const CLIENT = { id: 'pre-registered', secret: 'pre-secret' };

interface Party {
  base: string;
  /** Requests by path. */
  hits: string[];
  server: StubServer;
}
const parties: Party[] = [];
afterEach(async () => {
  await Promise.all(parties.splice(0).map((p) => p.server.close()));
});

/** An authorization server (and, with `mcp`, the MCP server too, naming `names()` as its AS). */
async function party(mcp?: { names: () => string }): Promise<Party> {
  const p = { hits: [] as string[] } as Party;
  const tokens = new Set<string>();
  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
  p.server = await startStub(async (req, res, body) => {
    const url = new URL(req.url ?? '/', p.base);
    p.hits.push(url.pathname);
    if (mcp && url.pathname === '/.well-known/oauth-protected-resource/mcp')
      return json(res, 200, { resource: `${p.base}/mcp`, authorization_servers: [mcp.names()], scopes_supported: ['mcp:read'] });
    if (mcp && url.pathname === '/mcp') {
      const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
      if (!token || !tokens.has(token))
        return json(res, 401, {}, { 'www-authenticate': `Bearer resource_metadata="${p.base}/.well-known/oauth-protected-resource/mcp"` });
      const rpc = JSON.parse(body) as { id?: number; method: string };
      if (rpc.id === undefined) return res.writeHead(202).end();
      const result =
        rpc.method === 'initialize'
          ? { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'fake', version: '1' } }
          : { tools: [] };
      return json(res, 200, { jsonrpc: '2.0', id: rpc.id, result });
    }
    if (url.pathname === '/.well-known/oauth-authorization-server')
      return json(res, 200, {
        issuer: p.base,
        authorization_endpoint: `${p.base}/authorize`,
        token_endpoint: `${p.base}/token`,
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['client_secret_basic'],
      });
    if (url.pathname === '/authorize') {
      const back = new URL(url.searchParams.get('redirect_uri')!);
      back.searchParams.set('code', 'a-code');
      back.searchParams.set('state', url.searchParams.get('state')!);
      return res.writeHead(302, { location: back.href }).end();
    }
    if (url.pathname === '/token') {
      if (req.headers.authorization !== `Basic ${btoa(`${CLIENT.id}:${CLIENT.secret}`)}`)
        return json(res, 401, { error: 'invalid_client' });
      const token = `token-${tokens.size + 1}`;
      tokens.add(token);
      return json(res, 200, { access_token: token, token_type: 'Bearer', expires_in: 3600, scope: 'mcp:read' });
    }
    json(res, 404, { error: 'not_found' });
  });
  p.base = p.server.url;
  parties.push(p);
  return p;
}

function env(base: string, dir = mkdtempSync(join(tmpdir(), 'rsi-pin-'))): Record<string, string> {
  return { RSI_BASE_URL: base, RSI_CONFIG_DIR: dir, RSI_CREDENTIAL_STORE: 'file', BROWSER: FAKE_BROWSER, RSI_CLIENT_SECRET: CLIENT.secret };
}
const login = (extra: string[] = []) => ['login', '--resource', 'mcp', '--client-id', CLIENT.id, ...extra];
const secretSeen = (p: Party) => p.hits.filter((h) => h === '/token' || h === '/authorize');

describe('a client secret goes only to the issuer it was registered with', () => {
  it('--issuer names another authorization server than the metadata: refused before the browser, the secret never sent', async () => {
    let names = '';
    const service = await party({ names: () => names });
    names = service.base;
    const r = await runCli(login(['--issuer', 'https://auth.elsewhere.test']), { env: env(service.base) });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain(
      `rsi: the MCP server's metadata names the authorization server ${service.base}, but client pre-registered was registered with https://auth.elsewhere.test (--issuer); its secret was not sent`,
    );
    expect(secretSeen(service)).toEqual([]);
  });

  it('the first sign-in pins the issuer it used; later metadata naming another issuer is refused, nothing sent there', async () => {
    let names = '';
    const service = await party({ names: () => names });
    const other = await party();
    names = service.base;
    const e = env(service.base);
    const first = await runCli(login(), { env: e });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain(`The secret of client pre-registered is tied to ${service.base} from now on`);
    // The same issuer again: no word, it just works (and --issuer naming it is the same).
    const same = await runCli(login(['--issuer', `${service.base}/`]), { env: e });
    expect(same.code, same.stderr).toBe(0);
    expect(same.stderr).not.toContain('tied to');

    names = other.base;
    const moved = await runCli(login(), { env: e });
    expect(moved.code, moved.stderr).toBe(1);
    expect(moved.stderr).toContain(
      `rsi: the MCP server's metadata names the authorization server ${other.base}, but client pre-registered was registered with ${service.base} (the profile); its secret was not sent`,
    );
    expect(secretSeen(other)).toEqual([]);
    expect(moved.stderr).not.toContain(CLIENT.secret);
  });
});

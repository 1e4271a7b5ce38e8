// Issue 42 item 6: what the next MCP revision (2026-07-28) asks that costs little. Dynamic
// registration says rsi is a native application; a cached registration is never used at another
// authorization server (a protected resource that names a new one gets a new registration); and
// `initialize` carries the MCP-Protocol-Version header.
import { describe, expect, it } from 'vitest';
import type * as oauth from 'oauth4webapi';
import { clientMetadata, registerClient, registrationAt } from '../../src/auth/registration.js';
import type { LoginOptions } from '../../src/auth/login-types.js';
import type { Network } from '../../src/http/network.js';
import { createMcpFetch, initializeVersion } from '../../src/mcp/fetch.js';

/** A network that records each request and answers from `reply`. */
function recordingNetwork(reply: (url: string, init: { body?: unknown }) => Response) {
  const sent: Array<{ url: string; headers: Headers; body: string | undefined }> = [];
  const network = {
    fetch: async (url: string | URL, init: { headers?: ConstructorParameters<typeof Headers>[0]; body?: unknown } = {}) => {
      sent.push({ url: String(url), headers: new Headers(init.headers), body: typeof init.body === 'string' ? init.body : undefined });
      return reply(String(url), init);
    },
  } as unknown as Network;
  return { network, sent };
}

describe('registration', () => {
  it('asks for a native public client (application_type: "native")', async () => {
    const { network, sent } = recordingNetwork(
      () =>
        new Response(JSON.stringify({ client_id: 'c1', redirect_uris: ['http://127.0.0.1:5/callback'] }), {
          status: 201,
          headers: { 'content-type': 'application/json' },
        }),
    );
    const as = { issuer: 'https://as.test', registration_endpoint: 'https://as.test/register' } as oauth.AuthorizationServer;
    const opts = { oauth: { network, userAgent: 'rsi-test' }, clock: { now: () => 0 } } as unknown as LoginOptions;
    const client = await registerClient(opts, as, 'http://127.0.0.1:5/callback');
    expect(client.client_id).toBe('c1');
    expect(JSON.parse(sent[0]!.body!)).toEqual({
      ...clientMetadata('http://127.0.0.1:5/callback'),
      application_type: 'native',
      token_endpoint_auth_method: 'none',
    });
  });

  it('a cached registration applies only at the authorization server that made it', () => {
    const cached = { clientId: 'old', issuer: 'https://as-old.test' };
    expect(registrationAt(cached, 'https://as-old.test')).toBe(cached);
    // The protected resource now names another authorization server: register anew.
    expect(registrationAt(cached, 'https://as-new.test')).toBeUndefined();
    const unknown: { clientId: string; issuer?: string } = { clientId: 'no issuer' };
    expect(registrationAt(unknown, 'https://as-new.test')).toBeUndefined();
    expect(registrationAt(undefined, 'https://as-new.test')).toBeUndefined();
  });
});

describe('MCP-Protocol-Version on initialize', () => {
  const initialize = (version: unknown) =>
    JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: version, capabilities: {} } });

  it('reads the version an initialize request asks for, and nothing else', () => {
    expect(initializeVersion(initialize('2025-11-25'))).toBe('2025-11-25');
    expect(initializeVersion(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }))).toBeUndefined();
    expect(initializeVersion(initialize('bad\r\nx-injected: 1'))).toBeUndefined();
    expect(initializeVersion('not json')).toBeUndefined();
  });

  it('the MCP fetch sends it on initialize, and leaves a header the SDK set as it is', async () => {
    const { network, sent } = recordingNetwork(() => new Response('{}', { status: 200 }));
    const auth = { token: async () => 't', refreshAfterUnauthorized: async () => undefined } as never;
    const { fetch } = createMcpFetch({ userAgent: 'rsi-test', auth, notSignedInHint: '' }, network);
    await fetch('https://mcp.test/mcp', { method: 'POST', body: initialize('2025-11-25') });
    await fetch('https://mcp.test/mcp', {
      method: 'POST',
      headers: { 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    await fetch('https://mcp.test/mcp', { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
    expect(sent.map((r) => r.headers.get('mcp-protocol-version'))).toEqual(['2025-11-25', '2025-06-18', null]);
  });
});

// The pure parts of the MCP sign-in's discovery (MCP authorization spec 2025-11-25): the Bearer
// challenge, the metadata addresses in the spec's order, which resource a protected-resource
// document may speak for, and the token-endpoint authentication a registration leads to. The whole
// flow runs against the official conformance suite (test/outside/mcp-conformance.test.ts).
import type * as oauth from 'oauth4webapi';
import { describe, expect, it } from 'vitest';
import { registeredCredentials } from '../../src/auth/registration.js';
import { resourceCovers } from '../../src/auth/mcp.js';
import { clientAuth, metadataUrls } from '../../src/auth/oauth.js';
import { parseBearerChallenge } from '../../src/http/challenge.js';

describe('parseBearerChallenge', () => {
  it('reads quoted and token parameters of the Bearer challenge', () => {
    expect(
      parseBearerChallenge(
        'Bearer error="insufficient_scope", scope="mcp:basic mcp:write", resource_metadata="https://h.test/.well-known/oauth-protected-resource/mcp"',
      ),
    ).toEqual({
      error: 'insufficient_scope',
      scope: 'mcp:basic mcp:write',
      resource_metadata: 'https://h.test/.well-known/oauth-protected-resource/mcp',
    });
    expect(parseBearerChallenge('bearer error=invalid_token,scope=a')).toEqual({ error: 'invalid_token', scope: 'a' });
  });

  it('finds Bearer among other challenges and keeps escaped quotes and commas inside values', () => {
    expect(parseBearerChallenge('Basic realm="x, y", Bearer realm="a \\"b\\"", scope="s1 s2", DPoP algs="ES256"')).toEqual({
      realm: 'a "b"',
      scope: 's1 s2',
    });
  });

  it('is undefined without a Bearer challenge', () => {
    expect(parseBearerChallenge(null)).toBeUndefined();
    expect(parseBearerChallenge('Basic realm="x"')).toBeUndefined();
  });
});

describe('metadataUrls', () => {
  it('an issuer without a path: RFC 8414, then OpenID Connect', () => {
    expect(metadataUrls(new URL('https://as.test')).map(String)).toEqual([
      'https://as.test/.well-known/oauth-authorization-server',
      'https://as.test/.well-known/openid-configuration',
    ]);
  });

  it('an issuer with a path: both inserted, then OpenID Connect appended', () => {
    expect(metadataUrls(new URL('https://as.test/tenant1/')).map(String)).toEqual([
      'https://as.test/.well-known/oauth-authorization-server/tenant1',
      'https://as.test/.well-known/openid-configuration/tenant1',
      'https://as.test/tenant1/.well-known/openid-configuration',
    ]);
  });
});

describe('resourceCovers', () => {
  it('the endpoint itself, or a parent on the same origin', () => {
    expect(resourceCovers('https://h.test/mcp', 'https://h.test/mcp')).toBe(true);
    expect(resourceCovers('https://h.test', 'https://h.test/mcp')).toBe(true);
    expect(resourceCovers('https://h.test/', 'https://h.test/mcp')).toBe(true);
  });

  it('never another origin, a sibling path, or something that is not a URL', () => {
    expect(resourceCovers('https://evil.test/mcp', 'https://h.test/mcp')).toBe(false);
    expect(resourceCovers('http://h.test/mcp', 'https://h.test/mcp')).toBe(false);
    expect(resourceCovers('https://h.test/mc', 'https://h.test/mcp')).toBe(false);
    expect(resourceCovers('https://h.test/other', 'https://h.test/mcp')).toBe(false);
    expect(resourceCovers('not a url', 'https://h.test/mcp')).toBe(false);
  });
});

describe('registeredCredentials', () => {
  const as = (methods?: string[]): oauth.AuthorizationServer => ({
    issuer: 'https://as.test',
    ...(methods ? { token_endpoint_auth_methods_supported: methods } : {}),
  });

  it('the method the registration returned, with its secret', () => {
    expect(registeredCredentials({ client_id: 'c', token_endpoint_auth_method: 'none' }, as())).toEqual({ method: 'none' });
    expect(registeredCredentials({ client_id: 'c', client_secret: 's', token_endpoint_auth_method: 'client_secret_post' }, as())).toEqual({
      method: 'client_secret_post',
      secret: 's',
    });
  });

  it('a secret without a method: Basic (RFC 7591 default) unless the server lists only others', () => {
    expect(registeredCredentials({ client_id: 'c', client_secret: 's' }, as())).toEqual({ method: 'client_secret_basic', secret: 's' });
    expect(registeredCredentials({ client_id: 'c', client_secret: 's' }, as(['client_secret_post']))).toEqual({
      method: 'client_secret_post',
      secret: 's',
    });
    expect(registeredCredentials({ client_id: 'c', client_secret: 's' }, as(['none']))).toEqual({ method: 'none' });
  });

  it('refuses a secret method without a secret, and methods rsi does not speak', () => {
    expect(() => registeredCredentials({ client_id: 'c', token_endpoint_auth_method: 'client_secret_basic' }, as())).toThrow(
      /no client_secret/,
    );
    expect(() => registeredCredentials({ client_id: 'c', token_endpoint_auth_method: 'private_key_jwt' }, as())).toThrow(
      /does not support/,
    );
  });
});

describe('clientAuth', () => {
  it('Basic form-encodes id and secret as URLSearchParams does (a dash stays a dash)', () => {
    const headers = new Headers();
    const body = new URLSearchParams();
    clientAuth({ method: 'client_secret_basic', secret: 'se:cr et' })({} as never, { client_id: 'my-client' }, body, headers);
    expect(atob(headers.get('authorization')!.replace(/^Basic /, ''))).toBe('my-client:se%3Acr+et');
    expect([...body.keys()]).toEqual([]);
  });

  it('a secret method without a secret is refused, not sent as none', () => {
    expect(() => clientAuth({ method: 'client_secret_post' })).toThrow(/no client secret is known/);
  });
});

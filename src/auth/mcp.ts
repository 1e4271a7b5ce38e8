/**
 * The service's MCP server (`<base>/mcp`) as an OAuth protected resource, discovered the way the
 * MCP authorization spec (2025-11-25) says: the 401's `WWW-Authenticate` challenge, the MCP
 * server's own protected-resource metadata (RFC 9728), the authorization server that document
 * names (RFC 8414, then OpenID Connect Discovery), and the 2025-03-26 fallbacks for a server with
 * no such document. Also signing out of it. Never prints, never asks.
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization
 */
import type * as oauth from 'oauth4webapi';
import { NotFoundError, ServiceUnavailableError, UnexpectedReplyError } from '../errors.js';
import type { CredentialStore } from '../storage/credentials.js';
import type { Credentials } from './credentials.js';
import type { OAuthEnv } from './oauth.js';
import { credentialKeyFor } from './resources.js';
import { parseBearerChallenge } from '../http/challenge.js';

/** The protocol version rsi's probe speaks (the SDK's client negotiates its own for real sessions). */
const PROBE_PROTOCOL_VERSION = '2025-11-25';

/** What a `WWW-Authenticate: Bearer …` challenge said (RFC 6750 §3, RFC 9728 §5.1). */
export interface BearerChallenge {
  /** The status it came with: 401 (no or a refused token) or 403 (`insufficient_scope`). */
  status: number;
  error?: string | undefined;
  /** The scopes the resource asks for, when it says (space-separated in the header). */
  scope?: string[] | undefined;
  resourceMetadata?: string | undefined;
}

function challengeOf(res: Response): BearerChallenge {
  const params = parseBearerChallenge(res.headers.get('www-authenticate')) ?? {};
  const scope = params.scope?.split(/\s+/).filter(Boolean);
  return {
    status: res.status,
    ...(params.error ? { error: params.error } : {}),
    ...(scope?.length ? { scope } : {}),
    ...(params.resource_metadata ? { resourceMetadata: params.resource_metadata } : {}),
  };
}

/**
 * Asks the MCP server what it wants, as a client without (or with) a token would find out: an
 * `initialize`, then, when that is allowed, `notifications/initialized` and `tools/list` (a server
 * may let the handshake through and guard only the operations). The first 401 or 403 gives its
 * challenge; undefined when everything was answered. Nothing is kept: a session the server opened
 * is ended (DELETE).
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#authorization-server-location
 */
export async function probeMcpServer(mcpUrl: string, env: OAuthEnv, token?: string): Promise<BearerChallenge | undefined> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'user-agent': env.userAgent,
    ...(token ? { authorization: `Bearer ${token}` } : {}),
  };
  const post = async (body: unknown): Promise<{ res: Response; text: string }> => {
    const res = await env.network.fetch(mcpUrl, { method: 'POST', headers, body: JSON.stringify(body) });
    if (res.status >= 500) {
      await res.body?.cancel();
      throw new ServiceUnavailableError(`the MCP server at ${mcpUrl} answered ${res.status}`, res.status);
    }
    // Only the status and headers matter; a body is read (bounded by the network) to learn the version.
    return { res, text: res.status === 200 ? await res.text().catch(() => '') : (await res.body?.cancel(), '') };
  };
  const init = await post({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: PROBE_PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: 'rsi', version: env.userAgent.replace(/^rsi\//, '') },
    },
  });
  if (init.res.status === 401 || init.res.status === 403) return challengeOf(init.res);
  // Signing in for a server that is not there would end in a token nobody can use.
  if (init.res.status === 404) {
    throw new NotFoundError(`no MCP server answers at ${mcpUrl} (404)`, {
      hint: 'check the base URL; the service runs its MCP server at <base>/mcp',
    });
  }
  if (!init.res.ok) return undefined;
  const session = init.res.headers.get('mcp-session-id');
  if (session) headers['mcp-session-id'] = session;
  headers['mcp-protocol-version'] = /"protocolVersion"\s*:\s*"([^"]+)"/.exec(init.text)?.[1] ?? PROBE_PROTOCOL_VERSION;
  try {
    const note = await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    if (note.res.status === 401 || note.res.status === 403) return challengeOf(note.res);
    const list = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
    if (list.res.status === 401 || list.res.status === 403) return challengeOf(list.res);
    return undefined;
  } finally {
    if (session) {
      await env.network
        .fetch(mcpUrl, { method: 'DELETE', headers })
        .then((res) => res.body?.cancel())
        .catch(() => undefined);
    }
  }
}

/** Where and for what the MCP sign-in goes. */
export interface McpAuthorization {
  as: oauth.AuthorizationServer;
  /** The resource indicator sent on authorize and token requests (RFC 8707). */
  resource: string;
  /** Scopes to ask for when the person named none: the challenge's, else `scopes_supported`, else none. */
  scopes: string[];
  /** How it was found, for the person at the terminal. */
  how: string;
  /** The 2025-03-26 fallback's default endpoints were assumed (no metadata at all). */
  assumedEndpoints: boolean;
}

interface ResourceMetadata {
  resource: string;
  authorization_servers?: string[];
  scopes_supported?: string[];
}

/**
 * Does `resource` (from the metadata) cover the MCP endpoint? The same origin, and the endpoint's
 * path is the resource's or beneath it, so a document for `https://h` covers `https://h/mcp`; one
 * for another host or a sibling path does not.
 * @see https://www.rfc-editor.org/rfc/rfc9728#section-3.3
 */
export function resourceCovers(resource: string, mcpUrl: string): boolean {
  let r: URL;
  try {
    r = new URL(resource);
  } catch {
    return false;
  }
  const m = new URL(mcpUrl);
  if (r.origin !== m.origin || r.hash || r.search) return false;
  const base = r.pathname.replace(/\/+$/, '');
  const path = m.pathname.replace(/\/+$/, '');
  return path === base || path.startsWith(`${base}/`);
}

/**
 * The MCP server's protected-resource metadata: from the challenge's `resource_metadata`, else the
 * well-known address with the endpoint's path (`/.well-known/oauth-protected-resource/mcp`), then
 * the root one. Undefined when none answers (a 2025-03-26 server).
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#protected-resource-metadata-discovery-requirements
 */
export async function discoverProtectedResource(
  mcpUrl: string,
  challenge: BearerChallenge | undefined,
  env: OAuthEnv,
): Promise<{ metadata: ResourceMetadata; url: string } | undefined> {
  const { checkIssuerUrl } = await import('./oauth.js');
  const endpoint = new URL(mcpUrl);
  const candidates: string[] = [];
  if (challenge?.resourceMetadata) {
    let named: URL;
    try {
      named = new URL(challenge.resourceMetadata);
    } catch {
      throw new UnexpectedReplyError(
        `the MCP server's challenge names resource_metadata ${JSON.stringify(challenge.resourceMetadata.slice(0, 80))}, which is not a URL`,
      );
    }
    checkIssuerUrl(named);
    candidates.push(named.href);
  } else {
    const path = endpoint.pathname.replace(/\/+$/, '');
    if (path) candidates.push(new URL(`/.well-known/oauth-protected-resource${path}`, endpoint.origin).href);
    candidates.push(new URL('/.well-known/oauth-protected-resource', endpoint.origin).href);
  }
  for (const url of candidates) {
    const res = await env.network.fetch(url, { headers: { accept: 'application/json', 'user-agent': env.userAgent } });
    if (res.status >= 500) {
      await res.body?.cancel();
      throw new ServiceUnavailableError(`the MCP server's metadata at ${url} answered ${res.status}`, res.status);
    }
    if (res.status !== 200) {
      await res.body?.cancel();
      continue;
    }
    let json: unknown;
    try {
      json = await res.json();
    } catch {
      throw new UnexpectedReplyError(`the MCP server's protected-resource metadata at ${url} is not JSON`);
    }
    const metadata = json as Partial<ResourceMetadata> | null;
    if (!metadata || typeof metadata !== 'object' || typeof metadata.resource !== 'string') {
      throw new UnexpectedReplyError(`the MCP server's protected-resource metadata at ${url} has no "resource"`);
    }
    const list = (v: unknown): string[] | undefined =>
      Array.isArray(v) && v.every((s) => typeof s === 'string') ? (v as string[]) : undefined;
    // A document for another resource would have rsi ask for (and hand out) a token meant for it.
    if (!resourceCovers(metadata.resource, mcpUrl)) {
      throw new UnexpectedReplyError(
        `the MCP server's protected-resource metadata is for ${JSON.stringify(metadata.resource.slice(0, 100))}, not ${mcpUrl}; refusing to sign in`,
        { hint: 'RFC 9728 §3.3: metadata for another resource must not be used; check --base-url, or report it to the service' },
      );
    }
    return {
      url,
      metadata: {
        resource: metadata.resource,
        ...(list(metadata.authorization_servers) ? { authorization_servers: list(metadata.authorization_servers) } : {}),
        ...(list(metadata.scopes_supported) ? { scopes_supported: list(metadata.scopes_supported) } : {}),
      },
    };
  }
  return undefined;
}

/**
 * The whole discovery: challenge (when not given), protected-resource metadata, the authorization
 * server it names and its metadata. Without protected-resource metadata, the 2025-03-26 rules:
 * the MCP server's origin is the authorization server, with its RFC 8414 metadata, or failing that
 * the default endpoints `/authorize`, `/token` and `/register` there.
 */
export async function discoverMcpAuthorization(mcpUrl: string, env: OAuthEnv, challenge?: BearerChallenge): Promise<McpAuthorization> {
  const { discoverIssuerMetadata } = await import('./oauth.js');
  challenge ??= await probeMcpServer(mcpUrl, env);
  const prm = await discoverProtectedResource(mcpUrl, challenge, env);
  const origin = new URL(mcpUrl).origin;
  const scopes = challenge?.scope ?? prm?.metadata.scopes_supported ?? [];
  if (prm) {
    const named = prm.metadata.authorization_servers?.[0];
    if (!named) throw new UnexpectedReplyError(`the MCP server's protected-resource metadata at ${prm.url} names no authorization server`);
    let issuer: URL;
    try {
      issuer = new URL(named);
    } catch {
      throw new UnexpectedReplyError(
        `the MCP server's protected-resource metadata names the authorization server ${JSON.stringify(named.slice(0, 80))}, which is not a URL`,
      );
    }
    const as = await discoverIssuerMetadata(issuer, env);
    if (!as) {
      throw new UnexpectedReplyError(
        `the authorization server ${issuer.href} that the MCP server names publishes no metadata (RFC 8414 or OpenID Connect)`,
        {
          hint: 'report it to the service: the MCP authorization spec requires that metadata',
        },
      );
    }
    return {
      as,
      resource: prm.metadata.resource,
      scopes,
      how: `the MCP server's metadata at ${prm.url} names ${as.issuer}`,
      assumedEndpoints: false,
    };
  }
  const as = await discoverIssuerMetadata(new URL(origin), env, { sameOrigin: true });
  if (as) {
    return {
      as,
      resource: mcpUrl,
      scopes,
      how: `no protected-resource metadata; the MCP server's origin ${origin} is the authorization server (2025-03-26)`,
      assumedEndpoints: false,
    };
  }
  return {
    as: {
      issuer: origin,
      authorization_endpoint: `${origin}/authorize`,
      token_endpoint: `${origin}/token`,
      registration_endpoint: `${origin}/register`,
    },
    resource: mcpUrl,
    scopes,
    how: `no metadata at all; the default endpoints at ${origin} (2025-03-26)`,
    assumedEndpoints: true,
  };
}

/** Revokes (best effort) and deletes the stored MCP tokens; `rsi logout` calls it beside the API's. */
export async function signOutMcp(
  creds: Credentials,
  store: CredentialStore,
  oauth: OAuthEnv,
): Promise<{ removed: boolean; revokeError?: Error }> {
  const key = credentialKeyFor(creds.key(), 'mcp');
  const tokens = await store.load(key);
  if (!tokens) return { removed: false };
  let revokeError: Error | undefined;
  // The MCP sign-in's own authorization server; sign-ins from before it was kept used the API's.
  const authServer = creds.profile?.mcp?.authServer ?? creds.profile?.authServer;
  // A copy's token is the original's too: revoking it would sign the original out.
  if (authServer?.revocation_endpoint && !tokens.copiedFrom) {
    const { revokeToken } = await import('./oauth.js');
    try {
      // Revoking the refresh token ends the whole MCP session at the service (RFC 7009 §2.1).
      await revokeToken(
        authServer,
        tokens.clientId,
        tokens.refreshToken ?? tokens.accessToken,
        oauth,
        tokens.clientAuth ? { method: tokens.clientAuth, secret: tokens.clientSecret } : undefined,
      );
    } catch (error) {
      revokeError = error as Error;
    }
  }
  await store.delete(key);
  return { removed: true, ...(revokeError ? { revokeError } : {}) };
}

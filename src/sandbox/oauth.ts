/**
 * The sandbox's authorization server: RFC 8414 and RFC 9728 metadata, RFC 7591 registration,
 * authorization code + PKCE (S256 only) with RFC 8707 resource indicators and RFC 9207 `iss`,
 * refresh-token rotation with reuse detection, and RFC 7009 revocation.
 */
import { randomUUID } from 'node:crypto';
import { HttpError, crossSite, randomToken, s256, type Req, type Res } from './http.js';
import type { SandboxContext } from './context.js';
import { consentPage, errorPage } from './pages.js';

export const SCOPES = ['service:read', 'projects:write', 'analyses:run'] as const;
export const USER = { id: 'user-dana', display: 'Dana Reyes <dana@example.org>' };

const CODE_TTL_MS = 60_000;
const REFRESH_TTL_MS = 30 * 24 * 3600 * 1000;
const PENDING_TTL_MS = 10 * 60_000;
/** Registrations allowed per address per window (documented in docs/sandbox.md). */
export const REGISTRATION_LIMIT = 30;
export const REGISTRATION_WINDOW_MS = 60_000;

interface Client {
  id: string;
  name: string;
  redirectUris: string[];
  grantTypes: string[];
}

interface AuthRequest {
  clientId: string;
  redirectUri: string;
  challenge: string;
  resource: string;
  scopes: string[];
  state: string | null;
  expiresAt: number;
}

interface Code extends Omit<AuthRequest, 'state'> {
  used: boolean;
  family?: string;
}

interface AccessToken {
  family: string;
  clientId: string;
  resource: string;
  scopes: string[];
  expiresAt: number;
  revoked: boolean;
}

interface RefreshToken {
  family: string;
  clientId: string;
  resource: string;
  scopes: string[];
  expiresAt: number;
  used: boolean;
}

export interface Caller {
  user: string;
  scopes: readonly string[];
}

export class OAuthServer {
  private readonly clients = new Map<string, Client>();
  private readonly pending = new Map<string, AuthRequest>();
  private readonly codes = new Map<string, Code>();
  private readonly access = new Map<string, AccessToken>();
  private readonly refresh = new Map<string, RefreshToken>();
  private readonly revokedFamilies = new Set<string>();
  private readonly registrations = new Map<string, number[]>();

  constructor(private readonly ctx: SandboxContext) {}

  handle(req: Req): Promise<Res> | Res {
    const { method, path } = req;
    const route = `${method} ${path}`;
    switch (route) {
      case 'GET /.well-known/oauth-authorization-server':
        return { status: 200, json: this.metadata() };
      case 'GET /.well-known/oauth-protected-resource/api/v1':
        return { status: 200, json: this.resourceMetadata(this.ctx.apiResource) };
      case 'GET /.well-known/oauth-protected-resource/mcp':
        return { status: 200, json: this.resourceMetadata(this.ctx.mcpResource) };
      case 'POST /oauth/register':
        return this.register(req);
      case 'GET /oauth/authorize':
        return this.authorize(req);
      case 'POST /oauth/authorize/decision':
        return this.decide(req);
      case 'POST /oauth/token':
        return this.token(req);
      case 'POST /oauth/revoke':
        return this.revoke(req);
      default:
        return { status: 404, json: { error: 'not_found', error_description: `No route for ${method} ${path}` } };
    }
  }

  metadata(): Record<string, unknown> {
    const b = this.ctx.base;
    return {
      issuer: b,
      authorization_endpoint: `${b}/oauth/authorize`,
      token_endpoint: `${b}/oauth/token`,
      registration_endpoint: `${b}/oauth/register`,
      revocation_endpoint: `${b}/oauth/revoke`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      revocation_endpoint_auth_methods_supported: ['none'],
      scopes_supported: [...SCOPES],
      authorization_response_iss_parameter_supported: true,
    };
  }

  private resourceMetadata(resource: string): Record<string, unknown> {
    return {
      resource,
      authorization_servers: [this.ctx.base],
      scopes_supported: [...SCOPES],
      bearer_methods_supported: ['header'],
      resource_name: resource.endsWith('/mcp')
        ? 'Research Intelligence Service MCP (sandbox)'
        : 'Research Intelligence Service API (sandbox)',
    };
  }

  // --- registration (RFC 7591) -------------------------------------------------------------------

  private register(req: Req): Res {
    const now = this.ctx.clock.real();
    const window = (this.registrations.get(req.remote) ?? []).filter((t) => now - t < REGISTRATION_WINDOW_MS);
    if (this.ctx.faults.has('register-429') || window.length >= REGISTRATION_LIMIT) {
      const retryAfter = this.ctx.faults.has('register-429') ? 1 : Math.ceil((REGISTRATION_WINDOW_MS - (now - window[0]!)) / 1000);
      return {
        status: 429,
        headers: { 'retry-after': String(Math.max(1, retryAfter)) },
        json: { error: 'slow_down', error_description: 'Too many client registrations from this address; try again later.' },
      };
    }
    // The spec: registration is JSON; a body that is not (by its media type) is invalid_client_metadata.
    const mediaType = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (mediaType !== 'application/json') {
      return oauthError(400, 'invalid_client_metadata', 'The registration body must be application/json.');
    }
    let meta: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(req.body.toString('utf8'));
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
      meta = parsed as Record<string, unknown>;
    } catch {
      return oauthError(400, 'invalid_client_metadata', 'The registration body must be a JSON object.');
    }
    const uris = meta.redirect_uris;
    if (!Array.isArray(uris) || uris.length === 0 || !uris.every((u) => typeof u === 'string')) {
      return oauthError(400, 'invalid_client_metadata', 'redirect_uris must be a non-empty array of strings.');
    }
    const bad = (uris as string[]).find((u) => !acceptableRedirect(u));
    if (bad !== undefined) {
      return oauthError(
        400,
        'invalid_client_metadata',
        `Redirect URI not acceptable: ${bad} (use https, or http on localhost, 127.0.0.1 or [::1]).`,
      );
    }
    if (meta.token_endpoint_auth_method !== undefined && meta.token_endpoint_auth_method !== 'none') {
      return oauthError(400, 'invalid_client_metadata', 'Clients are public: token_endpoint_auth_method must be "none".');
    }
    const grantTypes = meta.grant_types ?? ['authorization_code', 'refresh_token'];
    if (!Array.isArray(grantTypes) || grantTypes.some((g) => g !== 'authorization_code' && g !== 'refresh_token')) {
      return oauthError(400, 'invalid_client_metadata', 'grant_types may contain only authorization_code and refresh_token.');
    }
    window.push(now);
    this.registrations.set(req.remote, window);
    const client: Client = {
      id: randomUUID(),
      name: typeof meta.client_name === 'string' && meta.client_name.trim() ? meta.client_name.trim().slice(0, 100) : 'Unnamed client',
      redirectUris: uris as string[],
      grantTypes: grantTypes as string[],
    };
    this.clients.set(client.id, client);
    this.ctx.stats.registrations++;
    return {
      status: 201,
      json: {
        client_id: client.id,
        client_id_issued_at: Math.floor(now / 1000),
        client_name: client.name,
        redirect_uris: client.redirectUris,
        grant_types: client.grantTypes,
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      },
    };
  }

  // --- authorization -----------------------------------------------------------------------------

  private authorize(req: Req): Res {
    const q = req.url.searchParams;
    const clientId = q.get('client_id') ?? '';
    const client = this.clients.get(clientId);
    // Errors before the redirect URI is trusted are shown, never redirected (RFC 6749 §4.1.2.1).
    if (!client)
      return { status: 400, html: errorPage('Unknown application', 'This sign-in link names an application that is not registered.') };
    const redirectUri = q.get('redirect_uri') ?? '';
    if (!client.redirectUris.includes(redirectUri)) {
      return { status: 400, html: errorPage('Invalid redirect', 'The redirect_uri is not one of the URIs this application registered.') };
    }
    const state = q.get('state');
    const fail = (error: string, description: string): Res => this.redirect(redirectUri, { error, error_description: description, state });
    if (q.get('response_type') !== 'code') return fail('unsupported_response_type', 'response_type must be code');
    const challenge = q.get('code_challenge');
    if (!challenge || !/^[A-Za-z0-9_-]{43}$/.test(challenge))
      return fail('invalid_request', 'code_challenge is required (S256, base64url of 32 bytes)');
    if (q.get('code_challenge_method') !== 'S256') return fail('invalid_request', 'code_challenge_method must be S256');
    const resource = q.get('resource') ?? '';
    if (resource !== this.ctx.apiResource && resource !== this.ctx.mcpResource) {
      return fail('invalid_target', `resource must be ${this.ctx.apiResource} or ${this.ctx.mcpResource}`);
    }
    const scopeParam = q.get('scope');
    const scopes = scopeParam === null || scopeParam.trim() === '' ? [...SCOPES] : [...new Set(scopeParam.trim().split(/\s+/))];
    const unknown = scopes.find((s) => !(SCOPES as readonly string[]).includes(s));
    if (unknown) return fail('invalid_scope', `unknown scope ${unknown}`);

    const request: AuthRequest = {
      clientId,
      redirectUri,
      challenge,
      resource,
      scopes,
      state,
      expiresAt: this.ctx.clock.real() + PENDING_TTL_MS,
    };
    if (this.ctx.autoApprove) return this.approve(request);
    const id = randomToken();
    this.pending.set(id, request);
    return {
      status: 200,
      html: consentPage({ requestId: id, clientName: client.name, scopes, resource, user: USER.display, redirectUri }),
    };
  }

  private decide(req: Req): Res {
    // Defence in depth beside the unguessable request id: a page on another site cannot answer.
    if (crossSite(req.headers, this.ctx.base)) return { status: 403, html: errorPage('Refused', 'Cross-site form posts are refused.') };
    const form = new URLSearchParams(req.body.toString('utf8'));
    const id = form.get('request') ?? '';
    const request = this.pending.get(id);
    this.pending.delete(id);
    if (!request || request.expiresAt < this.ctx.clock.real()) {
      return {
        status: 400,
        html: errorPage('Request expired', 'This sign-in request has expired or was already answered. Start again from your application.'),
      };
    }
    if (form.get('decision') !== 'approve') {
      return this.redirect(request.redirectUri, {
        error: 'access_denied',
        error_description: 'The user denied the request',
        state: request.state,
      });
    }
    return this.approve(request);
  }

  private approve(request: AuthRequest): Res {
    const code = randomToken();
    const { state, ...rest } = request;
    this.codes.set(code, { ...rest, expiresAt: this.ctx.clock.real() + CODE_TTL_MS, used: false });
    return this.redirect(request.redirectUri, { code, state });
  }

  private redirect(redirectUri: string, params: Record<string, string | null>): Res {
    const target = new URL(redirectUri);
    for (const [k, v] of Object.entries(params)) if (v !== null) target.searchParams.set(k, v);
    target.searchParams.set('iss', this.ctx.base);
    return { status: 302, headers: { location: target.toString() } };
  }

  // --- token ------------------------------------------------------------------------------------

  private token(req: Req): Res {
    const type = req.headers['content-type'] ?? '';
    if (!type.startsWith('application/x-www-form-urlencoded')) {
      return oauthError(400, 'invalid_request', 'The token endpoint takes application/x-www-form-urlencoded bodies.');
    }
    const form = new URLSearchParams(req.body.toString('utf8'));
    const grant = form.get('grant_type');
    if (grant === 'authorization_code') return this.exchangeCode(form);
    if (grant === 'refresh_token') return this.refreshGrant(form);
    return oauthError(400, 'unsupported_grant_type', 'grant_type must be authorization_code or refresh_token.');
  }

  private exchangeCode(form: URLSearchParams): Res {
    const codeValue = form.get('code') ?? '';
    const code = this.codes.get(codeValue);
    if (!code) return oauthError(400, 'invalid_grant', 'The authorization code is missing or unknown.');
    if (code.used) {
      // A replayed code: revoke what it produced (RFC 6749 §4.1.2).
      if (code.family) this.revokeFamily(code.family);
      return oauthError(400, 'invalid_grant', 'The authorization code was already used.');
    }
    if (code.expiresAt < this.ctx.clock.real()) return oauthError(400, 'invalid_grant', 'The authorization code has expired.');
    if (form.get('client_id') !== code.clientId) return oauthError(400, 'invalid_grant', 'The code was issued to another client.');
    if (form.get('redirect_uri') !== code.redirectUri)
      return oauthError(400, 'invalid_grant', 'redirect_uri does not match the authorization request.');
    const verifier = form.get('code_verifier') ?? '';
    if (!/^[A-Za-z0-9._~-]{43,128}$/.test(verifier) || s256(verifier) !== code.challenge) {
      return oauthError(400, 'invalid_grant', 'PKCE verification failed.');
    }
    const resource = form.get('resource');
    if (resource !== this.ctx.apiResource && resource !== this.ctx.mcpResource) {
      return oauthError(400, 'invalid_target', `resource must be ${this.ctx.apiResource} or ${this.ctx.mcpResource}.`);
    }
    if (resource !== code.resource) return oauthError(400, 'invalid_target', 'resource does not match the authorization request.');
    code.used = true;
    const family = randomUUID();
    code.family = family;
    this.ctx.stats.tokens.issuedByCode++;
    return this.issue(family, code.clientId, code.resource, code.scopes);
  }

  private refreshGrant(form: URLSearchParams): Res {
    const value = form.get('refresh_token') ?? '';
    const token = this.refresh.get(value);
    if (!token || this.revokedFamilies.has(token.family))
      return oauthError(400, 'invalid_grant', 'The refresh token is missing, unknown or revoked.');
    if (token.used) {
      // Reuse of a rotated refresh token: someone holds a stolen copy. Kill the whole family.
      this.revokeFamily(token.family);
      return oauthError(400, 'invalid_grant', 'The refresh token was already used; the session was revoked.');
    }
    if (token.expiresAt < this.ctx.clock.real()) return oauthError(400, 'invalid_grant', 'The refresh token has expired.');
    const clientId = form.get('client_id');
    if (!clientId) return oauthError(400, 'invalid_request', 'client_id is required.');
    if (clientId !== token.clientId) return oauthError(400, 'invalid_grant', 'The refresh token was issued to another client.');
    const resource = form.get('resource');
    if (resource !== null && resource !== token.resource) {
      return oauthError(400, 'invalid_target', `resource must be ${token.resource}.`);
    }
    let scopes = token.scopes;
    const scopeParam = form.get('scope');
    if (scopeParam) {
      const asked = scopeParam.trim().split(/\s+/);
      if (asked.some((s) => !token.scopes.includes(s)))
        return oauthError(400, 'invalid_scope', 'A refresh cannot widen the granted scopes.');
      scopes = asked;
    }
    token.used = true;
    this.ctx.stats.tokens.refreshed++;
    return this.issue(token.family, token.clientId, token.resource, scopes);
  }

  private issue(family: string, clientId: string, resource: string, scopes: string[]): Res {
    const now = this.ctx.clock.real();
    const accessToken = randomToken();
    const refreshToken = randomToken();
    this.access.set(accessToken, { family, clientId, resource, scopes, expiresAt: now + this.ctx.tokenTtlSeconds * 1000, revoked: false });
    this.refresh.set(refreshToken, { family, clientId, resource, scopes, expiresAt: now + REFRESH_TTL_MS, used: false });
    return {
      status: 200,
      headers: { 'cache-control': 'no-store', pragma: 'no-cache' },
      json: {
        access_token: accessToken,
        token_type: 'Bearer',
        expires_in: this.ctx.tokenTtlSeconds,
        refresh_token: refreshToken,
        scope: scopes.join(' '),
      },
    };
  }

  // --- revocation (RFC 7009) ---------------------------------------------------------------------

  private revoke(req: Req): Res {
    const form = new URLSearchParams(req.body.toString('utf8'));
    const value = form.get('token');
    if (!value) return oauthError(400, 'invalid_request', 'token is required.');
    const refresh = this.refresh.get(value);
    const clientId = form.get('client_id');
    if (refresh && (!clientId || clientId === refresh.clientId)) {
      this.revokeFamily(refresh.family);
    } else {
      const access = this.access.get(value);
      if (access && (!clientId || clientId === access.clientId) && !access.revoked) {
        access.revoked = true;
        this.ctx.stats.tokens.revoked++;
      }
    }
    // RFC 7009 §2.2: 200 whether or not the token was valid.
    return { status: 200, headers: { 'cache-control': 'no-store' }, text: '' };
  }

  private revokeFamily(family: string): void {
    if (this.revokedFamilies.has(family)) return;
    this.revokedFamilies.add(family);
    this.ctx.stats.tokens.revoked++;
    for (const t of this.access.values()) if (t.family === family) t.revoked = true;
  }

  /** Checks a bearer token for the API resource. Throws a 401 HttpError when it is not usable. */
  authenticate(header: string | undefined): Caller {
    const match = /^Bearer\s+(\S+)$/i.exec(header ?? '');
    const token = match ? this.access.get(match[1]!) : undefined;
    if (
      !token ||
      token.revoked ||
      this.revokedFamilies.has(token.family) ||
      token.expiresAt <= this.ctx.clock.real() ||
      token.resource !== this.ctx.apiResource
    ) {
      throw new HttpError(401, { error: 'unauthorized' });
    }
    return { user: USER.id, scopes: token.scopes };
  }

  get wwwAuthenticate(): string {
    return `Bearer resource_metadata="${this.ctx.base}/.well-known/oauth-protected-resource/api/v1"`;
  }
}

function acceptableRedirect(uri: string): boolean {
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    return false;
  }
  if (u.hash) return false;
  if (u.protocol === 'https:') return true;
  return u.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(u.hostname);
}

function oauthError(status: number, error: string, description: string): Res {
  return { status, headers: { 'cache-control': 'no-store' }, json: { error, error_description: description } };
}

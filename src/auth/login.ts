/**
 * The sign-in: discovery, dynamic client registration (cached per profile and issuer), a loopback
 * receiver, PKCE S256 with state and the API resource indicator, validation of the redirect before
 * any exchange, then the code exchange. Stores nothing until it has tokens.
 * @see https://www.rfc-editor.org/rfc/rfc8252 (OAuth for native apps)
 */
import type * as oauth from 'oauth4webapi';
import { UnexpectedReplyError, UsageError } from '../errors.js';
import type { ClientRegistration, Profile } from '../storage/config.js';
import { authServerInfo, discoverAuthorizationServer, type ClientAuthMethod, type ClientCredentials } from './oauth.js';
import { PortInUseError, startLoopbackReceiver, type LoopbackReceiver } from './loopback.js';
import { credentialKeyFor, resourceUrl } from './resources.js';
import { StaleRegistrationError, authorize } from './authorize.js';
import { ensureRegistration } from './registration.js';

export const DEFAULT_SCOPES = ['service:read', 'projects:write', 'analyses:run'] as const;

import type { LoginOptions, LoginResult, Target } from './login-types.js';

/** The most step-up sign-ins one `rsi login --resource mcp` makes after the first (no endless loop). */
export const MAX_STEP_UPS = 2;

export async function login(opts: LoginOptions): Promise<LoginResult> {
  if (opts.resource === 'mcp') return loginMcp(opts);
  if (opts.clientId !== undefined) throw new UsageError('--client-id is for the MCP sign-in: add --resource mcp');
  const as = await discoverAuthorizationServer(opts.baseUrl, opts.oauth);
  requireS256(as);
  const key = { baseUrl: opts.baseUrl, profile: opts.profile };
  return signIn(opts, as, {
    resource: resourceUrl(opts.baseUrl, 'api'),
    scopes: opts.scopes,
    key,
    registration: (p, issuer) => (p?.client && p.client.issuer === issuer && p.baseUrl === opts.baseUrl ? p.client : undefined),
    remember: (p, registration) => ({
      ...(p ?? {}),
      baseUrl: opts.baseUrl,
      ...(p?.baseUrl === opts.baseUrl ? {} : { authServer: undefined, credentialStore: undefined, mcp: undefined }),
      client: registration,
    }),
    forget: (p) => ({ ...p, client: undefined }),
    signedIn: (p) => ({
      ...(p ?? {}),
      baseUrl: opts.baseUrl,
      authServer: authServerInfo(as),
      client: p?.client,
      credentialStore: opts.store.kind === 'file' ? 'file' : 'keychain',
    }),
    probeRegistration: true,
  });
}

function requireS256(as: oauth.AuthorizationServer): void {
  if (!as.code_challenge_methods_supported?.includes('S256')) {
    throw new UnexpectedReplyError(`${as.issuer} does not advertise PKCE S256; refusing to sign in without it`);
  }
  if (!as.authorization_endpoint || !as.token_endpoint)
    throw new UnexpectedReplyError(`${as.issuer} metadata lacks the authorization or token endpoint`);
}

/**
 * The MCP sign-in (MCP authorization spec 2025-11-25): discovery from the MCP server's challenge
 * and its own metadata (auth/mcp.ts), the scopes it asks for unless the person named some, then
 * the same PKCE sign-in as the API's with `resource` set to what the metadata says. The new token
 * is tried at once (`initialize` and `tools/list`): a 403 `insufficient_scope` naming scopes not
 * yet granted is a step-up, a sign-in for the union, at most MAX_STEP_UPS times; one naming scopes
 * already granted, or already asked for and refused, is not retried, since asking again cannot
 * change the answer.
 */
async function loginMcp(opts: LoginOptions): Promise<LoginResult> {
  const { discoverMcpAuthorization, probeMcpServer } = await import('./mcp.js');
  const mcpUrl = resourceUrl(opts.baseUrl, 'mcp');
  const found = await discoverMcpAuthorization(mcpUrl, opts.oauth);
  const { as } = found;
  opts.events.info(`Signing in for the MCP server: ${found.how}.`);
  // PKCE is required by the MCP spec: metadata that does not offer S256 is refused; with no metadata
  // at all (the 2025-03-26 fallback) nothing can be checked, and S256 is used all the same.
  if (!found.assumedEndpoints) requireS256(as);
  if (opts.clientId !== undefined && opts.clientSecret) {
    const { checkSecretPin } = await import('./secret-pin.js');
    const p = await opts.config.profile(opts.profile);
    const stored = p?.baseUrl === opts.baseUrl ? p.mcp?.client : undefined;
    const first = checkSecretPin({ clientId: opts.clientId, given: opts.issuer, stored }, as.issuer);
    if (first) opts.events.info(first);
  }
  const preset = opts.clientId !== undefined ? presetClient(opts, as) : await rememberedPreset(opts, as);
  if (!preset && !as.registration_endpoint) {
    throw new UsageError(`${as.issuer} offers no dynamic client registration`, {
      hint: 'pass the client id the service gave you: `rsi login --resource mcp --client-id <id>` (and its secret in RSI_CLIENT_SECRET, if it has one)',
    });
  }
  const key = credentialKeyFor({ baseUrl: opts.baseUrl, profile: opts.profile }, 'mcp');
  const target = (scopes: readonly string[]): Target => ({
    resource: found.resource,
    scopes,
    key,
    // Its own registration first; the API's when the MCP server uses the same authorization server.
    registration: (p, issuer) => {
      if (p?.baseUrl !== opts.baseUrl) return undefined;
      if (p.mcp?.client?.issuer === issuer) return p.mcp.client;
      return p.client?.issuer === issuer && !p.client.tokenEndpointAuthMethod ? p.client : undefined;
    },
    remember: (p, registration) => {
      const same = p?.baseUrl === opts.baseUrl;
      const base: Profile = same ? p! : { baseUrl: opts.baseUrl };
      return { ...base, mcp: { resource: found.resource, authServer: authServerInfo(as), client: registration } };
    },
    // The API's registration, when it was the one borrowed, is gone at the server for the API too.
    forget: (p, stale) => ({
      ...p,
      client: p.client?.clientId === stale ? undefined : p.client,
      ...(p.mcp ? { mcp: { ...p.mcp, client: undefined } } : {}),
    }),
    signedIn: (p, _as, used) => {
      const same = p?.baseUrl === opts.baseUrl;
      const base: Profile = same ? p! : { baseUrl: opts.baseUrl };
      // A pre-registered client is remembered, so a later `rsi login --resource mcp` (a hint's
      // step-up) uses it again without --client-id; its secret stays with the tokens.
      const client: ClientRegistration | undefined = preset
        ? {
            clientId: used.clientId,
            redirectUri: used.redirectUri,
            issuer: as.issuer,
            registeredAt: new Date(opts.clock.now()).toISOString(),
            preRegistered: true,
            ...(preset.credentials.method !== 'none' ? { tokenEndpointAuthMethod: preset.credentials.method } : {}),
          }
        : same && p?.mcp?.client?.issuer === as.issuer
          ? p.mcp.client
          : undefined;
      return {
        ...base,
        credentialStore: opts.store.kind === 'file' ? 'file' : 'keychain',
        mcp: { resource: found.resource, authServer: authServerInfo(as), client },
      };
    },
    // An arbitrary authorization server may answer the probe's incomplete request as a real one.
    probeRegistration: false,
    preset,
  });
  let scopes: readonly string[] = opts.scopes.length ? opts.scopes : found.scopes;
  for (let stepUp = 0; ; stepUp++) {
    const result = await signIn(opts, as, target(scopes));
    const stored = await opts.store.load(key);
    // Trying the token is for step-up only: a server that fails the try does not undo the sign-in.
    const check = stored ? await probeMcpServer(mcpUrl, opts.oauth, stored.accessToken).catch(() => undefined) : undefined;
    if (check?.status !== 403 || check.error !== 'insufficient_scope' || !check.scope?.length) return result;
    const granted = result.scope.split(/\s+/).filter(Boolean);
    const missing = check.scope.filter((s) => !granted.includes(s));
    if (!missing.length) return { ...result, stillRefused: check.scope };
    // Asked for and not granted: the authorization server said no; asking again would loop.
    if (stepUp >= MAX_STEP_UPS || missing.every((s) => scopes.includes(s))) return { ...result, stillRefused: missing };
    scopes = [...new Set([...granted, ...scopes, ...check.scope])];
    opts.events.info(`The MCP server also asks for ${missing.join(' ')}; signing in again for ${scopes.join(' ')} (step-up).`);
  }
}

/** The pre-registered client an earlier `--client-id` sign-in at this issuer left, with its secret. */
async function rememberedPreset(
  opts: LoginOptions,
  as: oauth.AuthorizationServer,
): Promise<{ clientId: string; credentials: ClientCredentials } | undefined> {
  const p = await opts.config.profile(opts.profile);
  const known = p?.baseUrl === opts.baseUrl ? p.mcp?.client : undefined;
  if (!known?.preRegistered || known.issuer !== as.issuer) return undefined;
  const method = known.tokenEndpointAuthMethod ?? 'none';
  const key = credentialKeyFor({ baseUrl: opts.baseUrl, profile: opts.profile }, 'mcp');
  const secret = method !== 'none' ? (await opts.store.load(key).catch(() => undefined))?.clientSecret : undefined;
  if (method !== 'none' && !secret) return undefined;
  return { clientId: known.clientId, credentials: { method, secret } };
}

/**
 * `--client-id`: a client the authorization server already knows. An https URL is a Client ID
 * Metadata Document (the MCP spec's preferred way for a client and a server that never met) when
 * the server says it supports them; it is public, as such documents are for. A plain id takes
 * the secret in RSI_CLIENT_SECRET if it has one, sent the way the server supports (Basic first,
 * RFC 6749 §2.3.1).
 */
function presetClient(opts: LoginOptions, as: oauth.AuthorizationServer): { clientId: string; credentials: ClientCredentials } {
  const clientId = opts.clientId!;
  const isUrl = /^https:\/\//i.test(clientId);
  if (isUrl && !opts.clientSecret) {
    if (as.client_id_metadata_document_supported !== true)
      opts.events.info(`${as.issuer} does not say it supports Client ID Metadata Documents; using ${clientId} as a plain client id.`);
    return { clientId, credentials: { method: 'none' } };
  }
  if (!opts.clientSecret) return { clientId, credentials: { method: 'none' } };
  const supported = (as.token_endpoint_auth_methods_supported as string[] | undefined) ?? ['client_secret_basic'];
  const method: ClientAuthMethod = supported.includes('client_secret_basic')
    ? 'client_secret_basic'
    : supported.includes('client_secret_post')
      ? 'client_secret_post'
      : 'client_secret_basic';
  return { clientId, credentials: { method, secret: opts.clientSecret } };
}

/** One sign-in through the browser for `target`, re-registering once if the server forgot us. */
async function signIn(opts: LoginOptions, as: oauth.AuthorizationServer, target: Target): Promise<LoginResult> {
  for (let attempt = 0; ; attempt++) {
    const receiver = await bindReceiver(opts, target, as.issuer);
    try {
      const client = target.preset
        ? {
            client: { client_id: target.preset.clientId, token_endpoint_auth_method: target.preset.credentials.method },
            credentials: target.preset.credentials,
          }
        : await ensureRegistration(opts, target, as, receiver);
      try {
        return await authorize(opts, target, as, client.client, client.credentials, receiver);
      } catch (error) {
        // The server forgot our registration: drop it and go round once more.
        if (error instanceof StaleRegistrationError && attempt === 0 && !target.preset) {
          await opts.config.updateProfile(opts.profile, (p) => (p ? target.forget(p, client.client.client_id) : p));
          opts.events.info('The stored client registration is no longer accepted; registering again.');
          continue;
        }
        throw error;
      }
    } finally {
      await receiver.close();
    }
  }
}

/** Binds the registered port when it is free (and no --port says otherwise), else the asked or any port. */
async function bindReceiver(opts: LoginOptions, target: Target, issuer: string): Promise<LoopbackReceiver> {
  const cached = target.preset ? undefined : target.registration(await opts.config.profile(opts.profile), issuer);
  const registeredPort = cached ? Number(new URL(cached.redirectUri).port) : undefined;
  const wanted = opts.port ?? registeredPort;
  if (wanted !== undefined) {
    try {
      return await startLoopbackReceiver(wanted, ignored(opts));
    } catch (error) {
      if (!(error instanceof PortInUseError)) throw error;
      if (opts.port !== undefined)
        throw new UsageError(`port ${opts.port} is in use on 127.0.0.1`, { hint: 'choose another --port, or leave it out' });
    }
  }
  return startLoopbackReceiver(0, ignored(opts));
}

/** Says on stderr that the listener answered a request that was not the sign-in's (and waits on). */
function ignored(opts: LoginOptions): (why: string) => void {
  return (why) => opts.events.info(`Ignored a request to the sign-in listener: ${why}. Still waiting…`);
}

import { Command } from 'commander';
import type { Context, TokenSource } from '../../context.js';

export function build(ctx: Context, runF: typeof run = run): Command {
  return new Command('status')
    .description('show where you are signed in, with which scopes, until when, and where the token comes from; lists every profile')
    .action(async () => runF({}, ctx));
}

export interface AuthStatus {
  profile: string;
  baseUrl: string | null;
  signedIn: boolean;
  /** Where the token in use comes from. */
  source: TokenSource | null;
  scopes: string[];
  expiresAt: string | null;
  /** A stored login hidden by RSI_TOKEN. */
  storedLoginHidden: boolean;
  clientId: string | null;
}

/** The sign-in for the service's MCP server (`rsi login --resource mcp`), stored beside the API's. */
export interface McpAuthStatus {
  /** `<base>/mcp`. */
  resource: string | null;
  signedIn: boolean;
  source: 'RSI_MCP_TOKEN' | 'keychain' | 'file' | null;
  scopes: string[];
  expiresAt: string | null;
}

/** What is stored (or set) for the MCP resource of the profile in use; never refreshes or fails. */
export async function mcpStatus(ctx: Context): Promise<McpAuthStatus> {
  const [creds, { credentialKeyFor, resourceUrl }] = await Promise.all([ctx.credentials(), import('../../auth/resources.js')]);
  const baseUrl = creds.baseUrl;
  const status: McpAuthStatus = {
    resource: baseUrl ? resourceUrl(baseUrl, 'mcp') : null,
    signedIn: false,
    source: null,
    scopes: [],
    expiresAt: null,
  };
  if (ctx.env.RSI_MCP_TOKEN?.trim()) return { ...status, signedIn: true, source: 'RSI_MCP_TOKEN' };
  const profile = creds.profile;
  if (!baseUrl || !profile || profile.baseUrl !== baseUrl) return status;
  try {
    const store = creds.store();
    const stored = await store.load(credentialKeyFor(creds.key(), 'mcp'));
    if (!stored) return status;
    return {
      ...status,
      signedIn: true,
      source: store.kind === 'file' ? 'file' : 'keychain',
      scopes: stored.scope.split(/\s+/).filter(Boolean),
      expiresAt: new Date(stored.expiresAt).toISOString(),
    };
  } catch {
    // A store that cannot be read shows the MCP sign-in as absent: the API's status still prints.
    return status;
  }
}

/** The token in use for this profile, refreshed first when `refresh` (for `auth token`). */
export async function tokenForProfile(ctx: Context, refresh: boolean): Promise<{ token: string; status: AuthStatus }> {
  const [creds, { notSignedIn }, { StoredTokenProvider }] = await Promise.all([
    ctx.credentials(),
    import('../../auth/credentials.js'),
    import('../../auth/tokens.js'),
  ]);
  const { profile, baseUrl } = creds;
  const status: AuthStatus = {
    profile: creds.profileName,
    baseUrl: baseUrl ?? null,
    signedIn: false,
    source: null,
    scopes: [],
    expiresAt: null,
    storedLoginHidden: false,
    clientId: null,
  };
  const store = profile && baseUrl === profile.baseUrl ? creds.store() : undefined;
  const stored = store ? await store.load(creds.key()) : undefined;
  if (creds.envToken) {
    return { token: creds.envToken, status: { ...status, signedIn: true, source: 'RSI_TOKEN', storedLoginHidden: stored !== undefined } };
  }
  if (!store || !stored || !profile?.authServer) throw notSignedIn(creds);
  let tokens = stored;
  if (refresh) {
    const provider = new StoredTokenProvider({
      store,
      key: creds.key(),
      authServer: profile.authServer,
      configDir: creds.configDir,
      clock: ctx.clock,
      oauth: creds.oauth,
      warn: (m) => void ctx.io.stderr.write(`${m}\n`),
    });
    tokens = await provider.tokens(ctx.signal);
  }
  return {
    token: tokens.accessToken,
    status: {
      ...status,
      signedIn: true,
      source: store.kind === 'file' ? 'file' : 'keychain',
      scopes: tokens.scope.split(/\s+/).filter(Boolean),
      expiresAt: new Date(tokens.expiresAt).toISOString(),
      clientId: tokens.clientId,
    },
  };
}

export async function run(_opts: Record<string, never>, ctx: Context): Promise<void> {
  const { status } = await tokenForProfile(ctx, false);
  const profiles = await everyProfile(ctx, status);
  const mcp = await mcpStatus(ctx);
  const globals = ctx.globals();
  if (globals.format === 'json') {
    const { printJson } = await import('../../io/output.js');
    // The profile in use stays at the top level (scripts read .scopes); `profiles` lists them all;
    // `mcp` is the same profile's sign-in for the MCP server.
    return printJson(ctx.io, { ...status, mcp, profiles });
  }
  const now = ctx.clock.now();
  const until = (at: string | null): string => {
    const expires = at ? Date.parse(at) : undefined;
    return expires === undefined
      ? ''
      : expires > now
        ? ` (in ${Math.round((expires - now) / 60000)} min; refreshed automatically)`
        : ' (expired; the next command refreshes it)';
  };
  const left = until(status.expiresAt);
  const { profileFlag } = await import('../../auth/credentials.js');
  const mcpLines = !mcp.signedIn
    ? [['MCP', `not signed in (\`rsi${profileFlag(status.profile)} login --resource mcp\` signs in)`]]
    : mcp.source === 'RSI_MCP_TOKEN'
      ? [['MCP', 'signed in: RSI_MCP_TOKEN (environment; never stored or refreshed)']]
      : [
          ['MCP', `signed in: ${mcp.source === 'file' ? 'file (0600, --insecure-storage)' : 'OS keychain'}`],
          ['MCP scopes', mcp.scopes.join(' ')],
          ['MCP expires', `${mcp.expiresAt}${until(mcp.expiresAt)}`],
        ];
  const lines = [
    ['profile', status.profile],
    ['base URL', status.baseUrl ?? '(none)'],
    [
      'token from',
      status.source === 'RSI_TOKEN'
        ? 'RSI_TOKEN (environment; never stored or refreshed)'
        : status.source === 'file'
          ? 'file (0600, --insecure-storage)'
          : 'OS keychain',
    ],
    ...(status.source === 'RSI_TOKEN'
      ? []
      : [
          ['scopes', status.scopes.join(' ')],
          ['expires', `${status.expiresAt}${left}`],
        ]),
    ...mcpLines,
  ];
  const out = await import('../../io/output.js');
  await out.printPairsText(ctx.io, lines as Array<[string, string]>);
  if (profiles.length > 1) {
    const nameWidth = Math.max(...profiles.map((p) => p.profile.length));
    let text = '\nprofiles:\n';
    for (const p of profiles) {
      const mark = p.profile === status.profile ? '*' : ' ';
      const what = p.signedIn ? `${p.scopes.join(' ') || '(no scopes)'}${p.expiresAt ? `  expires ${p.expiresAt}` : ''}` : 'not signed in';
      text += `${mark} ${p.profile.padEnd(nameWidth)}  ${p.baseUrl ?? '(no base URL)'}  ${what}\n`;
    }
    await out.printText(ctx.io, text);
  }
  if (status.storedLoginHidden) ctx.io.stderr.write('warning: RSI_TOKEN is set, so the login stored for this profile is not being used\n');
}

/**
 * Every profile in the config, the one in use first as `tokenForProfile` saw it. The others are
 * resolved through the same credentials resolver, one profile at a time; a store that cannot be
 * read shows that profile as not signed in rather than failing the whole listing.
 */
export async function everyProfile(ctx: Context, current: AuthStatus): Promise<AuthStatus[]> {
  const creds = await ctx.credentials();
  const { resolveCredentials } = await import('../../auth/credentials.js');
  const names = Object.keys((await creds.config.read()).profiles).sort();
  const out: AuthStatus[] = [current];
  for (const name of names) {
    if (name === current.profile) continue;
    const status: AuthStatus = {
      profile: name,
      baseUrl: null,
      signedIn: false,
      source: null,
      scopes: [],
      expiresAt: null,
      storedLoginHidden: false,
      clientId: null,
    };
    try {
      const other = await resolveCredentials({
        globals: { ...ctx.globals(), profile: name, baseUrl: undefined },
        env: { ...ctx.env, RSI_TOKEN: undefined },
        io: ctx.io,
        clock: ctx.clock,
        signal: ctx.signal,
        version: ctx.version,
      });
      status.baseUrl = other.baseUrl ?? null;
      const stored = other.source ? await other.store().load(other.key()) : undefined;
      if (stored) {
        Object.assign(status, {
          signedIn: true,
          source: other.source,
          scopes: stored.scope.split(/\s+/).filter(Boolean),
          expiresAt: new Date(stored.expiresAt).toISOString(),
          clientId: stored.clientId,
        });
      }
    } catch {
      // Shown as not signed in: this listing must not fail because of another profile.
    }
    out.push(status);
  }
  return out;
}

import { Command } from 'commander';
import type { Context } from '../context.js';
import { NotSignedInError } from '../../errors.js';

export function build(ctx: Context, runF: typeof run = run): Command {
  return new Command('status')
    .description('show where you are signed in, with which scopes, until when, and where the token comes from')
    .action(async () => runF({}, ctx));
}

export interface AuthStatus {
  profile: string;
  baseUrl: string | null;
  signedIn: boolean;
  /** Where the token in use comes from. */
  source: 'RSI_TOKEN' | 'keychain' | 'file' | null;
  scopes: string[];
  expiresAt: string | null;
  /** A stored login hidden by RSI_TOKEN. */
  storedLoginHidden: boolean;
  clientId: string | null;
}

/** The token in use for this profile, refreshed first when `refresh` (for `auth token`). */
export async function tokenForProfile(ctx: Context, refresh: boolean): Promise<{ token: string; status: AuthStatus }> {
  const [{ authContext, credentialStore, resolveBaseUrl }, { StoredTokenProvider }] = await Promise.all([import('../../auth/session.js'), import('../../auth/tokens.js')]);
  const globals = ctx.globals();
  const auth = authContext({ globals, env: ctx.env, io: ctx.io, clock: ctx.clock, signal: ctx.signal, version: ctx.version });
  const envToken = ctx.env.RSI_TOKEN?.trim();
  const profile = await auth.config.profile(globals.profile);
  const baseUrl = resolveBaseUrl(globals, profile) ?? null;
  const status: AuthStatus = { profile: globals.profile, baseUrl, signedIn: false, source: null, scopes: [], expiresAt: null, storedLoginHidden: false, clientId: null };
  const store = profile && baseUrl === profile.baseUrl ? credentialStore(ctx.env, auth.configDir, profile) : undefined;
  const stored = store && baseUrl ? await store.load({ baseUrl, profile: globals.profile }) : undefined;
  if (envToken) {
    return { token: envToken, status: { ...status, signedIn: true, source: 'RSI_TOKEN', storedLoginHidden: stored !== undefined } };
  }
  if (!baseUrl || !store || !stored || !profile?.authServer) {
    throw new NotSignedInError(`not signed in${baseUrl ? ` to ${baseUrl}` : ''} (profile ${globals.profile})`, {
      hint: baseUrl ? `run \`rsi login --base-url ${baseUrl}\`` : 'run `rsi login --base-url <url>`',
    });
  }
  let tokens = stored;
  if (refresh) {
    const provider = new StoredTokenProvider({
      store,
      key: { baseUrl, profile: globals.profile },
      authServer: profile.authServer,
      configDir: auth.configDir,
      clock: ctx.clock,
      oauth: auth.oauth,
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
  const globals = ctx.globals();
  if (globals.format === 'json') {
    const { printJson } = await import('../../io/output.js');
    return printJson(ctx.io, status);
  }
  const now = ctx.clock.now();
  const expires = status.expiresAt ? Date.parse(status.expiresAt) : undefined;
  const left = expires === undefined ? '' : expires > now ? ` (in ${Math.round((expires - now) / 60000)} min; refreshed automatically)` : ' (expired; the next command refreshes it)';
  const lines = [
    ['profile', status.profile],
    ['base URL', status.baseUrl ?? '(none)'],
    ['token from', status.source === 'RSI_TOKEN' ? 'RSI_TOKEN (environment; never stored or refreshed)' : status.source === 'file' ? 'file (0600, --insecure-storage)' : 'OS keychain'],
    ...(status.source === 'RSI_TOKEN' ? [] : [['scopes', status.scopes.join(' ')], ['expires', `${status.expiresAt}${left}`]]),
  ];
  const width = Math.max(...lines.map(([k]) => k!.length));
  for (const [k, v] of lines) ctx.io.stdout.write(`${k!.padEnd(width)}  ${v}\n`);
  if (status.storedLoginHidden) ctx.io.stderr.write('warning: RSI_TOKEN is set, so the login stored for this profile is not being used\n');
}

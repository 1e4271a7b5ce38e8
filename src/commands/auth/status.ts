import { Command } from 'commander';
import type { Context, TokenSource } from '../../context.js';

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
  source: TokenSource | null;
  scopes: string[];
  expiresAt: string | null;
  /** A stored login hidden by RSI_TOKEN. */
  storedLoginHidden: boolean;
  clientId: string | null;
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
  const globals = ctx.globals();
  if (globals.format === 'json') {
    const { printJson } = await import('../../io/output.js');
    return printJson(ctx.io, status);
  }
  const now = ctx.clock.now();
  const expires = status.expiresAt ? Date.parse(status.expiresAt) : undefined;
  const left =
    expires === undefined
      ? ''
      : expires > now
        ? ` (in ${Math.round((expires - now) / 60000)} min; refreshed automatically)`
        : ' (expired; the next command refreshes it)';
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
  ];
  await (await import('../../io/output.js')).printPairsText(ctx.io, lines as Array<[string, string]>);
  if (status.storedLoginHidden) ctx.io.stderr.write('warning: RSI_TOKEN is set, so the login stored for this profile is not being used\n');
}

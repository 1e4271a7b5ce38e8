import type { Command } from 'commander';
import type { Context } from '../../../context.js';
import type { TokenSource } from '../../../auth/credentials.js';
import { ForbiddenError, HandOverSpentError, NotSignedInError, SignInCopiedError } from '../../../errors.js';
import { printPairsText, printText } from '../../../io/output.js';
import { hangLine } from '../../../io/lines.js';
import { printReply } from '../../../io/replies.js';
import { type CommandDeclaration, commandFor } from '../../declaration.js';
import { on, type OptionSpecs, type OptionsOf, parseOptions, withOptions } from '../../shared/options.js';
import { suggest } from '../../../io/text.js';

/** The options, as data: flags, help and parsers (src/commands/shared/options.ts). */
const OPTIONS = {
  // Only what is stored: no request to the service.
  offline: { flags: '--offline', description: 'only what is stored: do not check the sign-ins with the service', parse: on() },
} satisfies OptionSpecs;

export type AuthStatusOptions = OptionsOf<typeof OPTIONS>;

export const command: CommandDeclaration = {
  path: 'auth status',
  description: 'show where you are signed in, with which scopes, until when, and where the token comes from; lists every profile',
  examples: ['rsi auth status', "rsi auth status --json | jq -r '.profiles[].profile'"],
};

export function build(ctx: Context, runF: typeof run = run): Command {
  return withOptions(commandFor(command), OPTIONS)
    .addHelpText(
      'after',
      `
Each sign-in is checked with one request to the service (an expired token is refreshed first):
a refused refresh or a token the service rejects (RSI_TOKEN and RSI_MCP_TOKEN too) shows as not
signed in. Exit 3 when the profile in use cannot work; --offline never exits 3 for that.`,
    )
    .action(async (flags: Record<string, unknown>) => runF(parseOptions(OPTIONS, flags), ctx));
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
  /** Whether the service was asked (false with --offline, or when nothing is stored). */
  checked: boolean;
  /** Why the sign-in does not work (or could not be checked); null when it works or was not checked. */
  problem: string | null;
}

/** The sign-in for the service's MCP server (`rsi login --resource mcp`), stored beside the API's. */
export interface McpAuthStatus {
  /** `<base>/mcp`. */
  resource: string | null;
  signedIn: boolean;
  source: 'RSI_MCP_TOKEN' | 'keychain' | 'file' | null;
  scopes: string[];
  expiresAt: string | null;
  checked: boolean;
  problem: string | null;
}

/** What is stored (or set) for the MCP resource of the profile in use; never refreshes or fails. */
export async function mcpStatus(ctx: Context): Promise<McpAuthStatus> {
  const [creds, { credentialKeyFor, resourceUrl }] = await Promise.all([ctx.credentials(), import('../../../auth/resources.js')]);
  const baseUrl = creds.baseUrl;
  const status: McpAuthStatus = {
    resource: baseUrl ? resourceUrl(baseUrl, 'mcp') : null,
    signedIn: false,
    source: null,
    scopes: [],
    expiresAt: null,
    checked: false,
    problem: null,
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

/** A profile's status before anything is known of its sign-in. */
function notSignedInStatus(profile: string, baseUrl: string | null): AuthStatus {
  return {
    profile,
    baseUrl,
    signedIn: false,
    source: null,
    scopes: [],
    expiresAt: null,
    storedLoginHidden: false,
    clientId: null,
    checked: false,
    problem: null,
  };
}

/** The token in use for this profile, refreshed first when `refresh` (for `auth token`). */
export async function tokenForProfile(ctx: Context, refresh: boolean): Promise<{ token: string; status: AuthStatus }> {
  const [creds, { notSignedIn }] = await Promise.all([ctx.credentials(), import('../../../auth/credentials.js')]);
  const { profile, baseUrl } = creds;
  const status = notSignedInStatus(creds.profileName, baseUrl ?? null);
  const store = profile && baseUrl === profile.baseUrl ? creds.store() : undefined;
  const stored = store ? await store.load(creds.key()) : undefined;
  if (creds.envToken) {
    return { token: creds.envToken, status: { ...status, signedIn: true, source: 'RSI_TOKEN', storedLoginHidden: stored !== undefined } };
  }
  if (!store || !stored || !profile?.authServer) throw notSignedIn(creds);
  let tokens = stored;
  if (refresh) tokens = (await (await creds.tokenProvider('api')).tokens(ctx.signal)) ?? stored;
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

export async function run(opts: AuthStatusOptions, ctx: Context): Promise<void> {
  // Checked first, so the expiry shown is that of the tokens a refresh may just have rotated.
  const { hint: checkHint, ...check } = opts.offline ? { hint: undefined } : await checkWithService(ctx, () => ctx.client());
  const { status } = await tokenForProfile(ctx, false);
  if (!opts.offline) Object.assign(status, check);
  const profiles = await everyProfile(ctx, status, !opts.offline);
  const mcp = await mcpStatus(ctx);
  if (!opts.offline && mcp.signedIn) Object.assign(mcp, await checkMcp(ctx));
  try {
    await printStatus(ctx, status, mcp, profiles, opts.offline);
  } finally {
    if (status.storedLoginHidden)
      ctx.io.stderr.write('warning: RSI_TOKEN is set, so the login stored for this profile is not being used\n');
  }
  // After the report (stdout holds the whole document with --json): the profile in use cannot work.
  if (!status.signedIn && status.problem !== null) {
    const { profileWords } = await import('../../../auth/credentials.js');
    throw new NotSignedInError(`not signed in (profile ${status.profile}): ${status.problem}`, {
      hint:
        checkHint ??
        (status.source === 'RSI_TOKEN'
          ? 'RSI_TOKEN was rejected: set a valid token, or unset it to use the stored sign-in'
          : `run ${suggest(['rsi', ...profileWords(status.profile), 'login', ...(status.baseUrl ? ['--base-url', status.baseUrl] : [])])}`),
    });
  }
}

type Check = Pick<AuthStatus, 'signedIn' | 'checked' | 'problem'>;

/**
 * One cheap request (`GET /projects`) with the profile's token, refreshed first when it has
 * expired (the HTTP layer also refreshes once on a 401). 403 still proves the token is accepted
 * (a missing scope, reported by the scopes line); a refused refresh or a 401 is "not signed in";
 * a service that cannot be reached leaves the sign-in unverified, not failed.
 */
async function checkWithService(
  ctx: Context,
  client: () => Promise<import('../../../client/client.js').ApiClient>,
): Promise<Check & { hint?: string | undefined }> {
  try {
    await (await client()).listProjects(ctx.signal);
    return { signedIn: true, checked: true, problem: null };
  } catch (error) {
    if (error instanceof ForbiddenError) return { signedIn: true, checked: true, problem: null };
    // A copy, or a hand-over line used twice, carries its own way out (not `rsi login`).
    if (error instanceof SignInCopiedError || error instanceof HandOverSpentError)
      return { signedIn: false, checked: true, problem: rejection(error), hint: error.hint };
    if (error instanceof NotSignedInError) return { signedIn: false, checked: true, problem: rejection(error) };
    if (ctx.signal.aborted) throw error;
    return { signedIn: true, checked: false, problem: `could not check: ${(error as Error).message}` };
  }
}

/** The service's words for a rejected token are kept short: "refresh refused", "token rejected". */
function rejection(error: Error): string {
  return /refresh/i.test(error.message)
    ? `the refresh was refused (${error.message})`
    : `the service rejected the token (${error.message})`;
}

/** The MCP sign-in checked the same way: an `initialize` POST to `<base>/mcp`, where a 401 means rejected. */
async function checkMcp(ctx: Context): Promise<Pick<McpAuthStatus, 'signedIn' | 'checked' | 'problem'>> {
  const [creds, network] = await Promise.all([ctx.credentials(), ctx.network()]);
  try {
    const mcp = await creds.tokenProvider('mcp');
    const send = async (token: string) =>
      network.send({
        method: 'POST',
        url: new URL(mcp.url),
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'user-agent': creds.userAgent,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'rsi', version: ctx.version } },
        }),
        signal: ctx.signal,
        maxBytes: 1024 * 1024,
      });
    const token = await mcp.getAccessToken(ctx.signal);
    let reply = await send(token);
    if (reply.status === 401 && mcp.source !== 'RSI_MCP_TOKEN') {
      const fresh = await mcp.refreshAfterUnauthorized(token, ctx.signal);
      if (fresh) reply = await send(fresh);
    }
    if (reply.status === 401) return { signedIn: false, checked: true, problem: `the MCP server rejected the token (HTTP 401)` };
    return { signedIn: true, checked: true, problem: null };
  } catch (error) {
    if (error instanceof NotSignedInError) return { signedIn: false, checked: true, problem: rejection(error) };
    if (ctx.signal.aborted) throw error;
    return { signedIn: true, checked: false, problem: `could not check: ${(error as Error).message}` };
  }
}

async function printStatus(ctx: Context, status: AuthStatus, mcp: McpAuthStatus, profiles: AuthStatus[], offline: boolean): Promise<void> {
  const { defaultProject } = await import('../../shared/pick.js');
  const project = defaultProject(ctx);
  // The profile in use stays at the top level (scripts read .scopes); `profiles` lists them all;
  // `mcp` is the same profile's sign-in for the MCP server; `project` its default project.
  await printReply(ctx.output(), { ...status, project: project?.name ?? null, mcp, profiles }, () =>
    printStatusPairs(ctx, status, mcp, profiles, offline, project),
  );
}

/** The status for a person: aligned `key  value` lines, then every profile when there are several. */
async function printStatusPairs(
  ctx: Context,
  status: AuthStatus,
  mcp: McpAuthStatus,
  profiles: AuthStatus[],
  offline: boolean,
  project: ReturnType<typeof import('../../shared/pick.js').defaultProject>,
): Promise<void> {
  const now = ctx.clock.now();
  const until = (at: string | null): string => {
    const expires = at ? Date.parse(at) : undefined;
    return expires === undefined
      ? ''
      : expires > now
        ? ` (in ${Math.round((expires - now) / 60000)} min; refreshed automatically)`
        : offline
          ? ' (expired; the next command refreshes it, unless the refresh is refused)'
          : ' (expired)';
  };
  const checkLine = (s: { checked: boolean; problem: string | null; signedIn: boolean }): string =>
    offline
      ? 'not checked (--offline)'
      : s.checked
        ? s.signedIn
          ? 'the service accepts it'
          : `NOT SIGNED IN: ${s.problem}`
        : (s.problem ?? '');
  const left = until(status.expiresAt);
  const { profileWords } = await import('../../../auth/credentials.js');
  const mcpLines = !mcp.signedIn
    ? [
        ['MCP', `not signed in (${suggest(['rsi', ...profileWords(status.profile), 'login', '--resource', 'mcp'])} signs in)`],
        ...(mcp.problem ? [['MCP check', checkLine(mcp)]] : []),
      ]
    : mcp.source === 'RSI_MCP_TOKEN'
      ? [
          ['MCP', 'signed in: RSI_MCP_TOKEN (environment; never stored or refreshed)'],
          ['MCP check', checkLine(mcp)],
        ]
      : [
          ['MCP', `signed in: ${mcp.source === 'file' ? 'file (0600, --insecure-storage)' : 'OS keychain'}`],
          ['MCP scopes', mcp.scopes.join(' ')],
          ['MCP expires', `${mcp.expiresAt}${until(mcp.expiresAt)}`],
          ['MCP check', checkLine(mcp)],
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
    ['check', checkLine(status)],
    [
      'project',
      project
        ? `${project.name} (${project.source === 'RSI_PROJECT' ? 'RSI_PROJECT' : 'rsi config set project'})`
        : '(no default: rsi config set project NAME)',
    ],
    ...mcpLines,
  ];
  await printPairsText(ctx.io, lines as Array<[string, string]>);
  if (profiles.length > 1) {
    const nameWidth = Math.max(...profiles.map((p) => p.profile.length));
    let text = '\nprofiles:\n';
    for (const p of profiles) {
      const mark = p.profile === status.profile ? '*' : ' ';
      const what = p.signedIn
        ? `${p.scopes.join(' ') || '(no scopes)'}${p.expiresAt ? `  expires ${p.expiresAt}` : ''}${p.problem ? `  (${p.problem})` : ''}`
        : `not signed in${p.problem ? `: ${p.problem}` : ''}`;
      const line = `${mark} ${p.profile.padEnd(nameWidth)}  ${p.baseUrl ?? '(no base URL)'}  ${what}`;
      // At a terminal a long line continues under the base URL, whatever the mark (` ` or `*`).
      text += `${ctx.io.stdoutIsTTY ? hangLine(line, Math.max(20, ctx.io.columns), 2 + nameWidth + 2) : line}\n`;
    }
    await printText(ctx.io, text);
  }
}

/**
 * Every profile in the config, the one in use first as `tokenForProfile` saw it. The others are
 * resolved through the same credentials resolver, one profile at a time; a store that cannot be
 * read shows that profile as not signed in rather than failing the whole listing.
 */
export async function everyProfile(ctx: Context, current: AuthStatus, check = false): Promise<AuthStatus[]> {
  const [creds, network] = await Promise.all([ctx.credentials(), ctx.network()]);
  const { resolveCredentials } = await import('../../../auth/credentials.js');
  const names = Object.keys((await creds.config.read()).profiles).sort();
  const out: AuthStatus[] = [current];
  for (const name of names) {
    if (name === current.profile) continue;
    const status = notSignedInStatus(name, null);
    try {
      const other = await resolveCredentials({
        globals: { ...ctx.globals(), profile: name, baseUrl: undefined },
        env: { ...ctx.env, RSI_TOKEN: undefined },
        io: ctx.io,
        clock: ctx.clock,
        signal: ctx.signal,
        version: ctx.version,
        // The Context's one network: every profile's check goes through it.
        network,
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
        if (check) {
          // This profile's own session (its own tokens) on the one network path; its HTTP layer is
          // closed before the next profile, the network stays the Context's.
          const [{ openSession }, { ApiClient }] = await Promise.all([
            import('../../../auth/session.js'),
            import('../../../client/client.js'),
          ]);
          const session = await openSession(other, { globals: ctx.globals(), io: ctx.io, clock: ctx.clock, network });
          try {
            Object.assign(status, await checkWithService(ctx, async () => new ApiClient(session.http)));
            const fresh = await other.store().load(other.key());
            if (fresh)
              Object.assign(status, {
                expiresAt: new Date(fresh.expiresAt).toISOString(),
                scopes: fresh.scope.split(/\s+/).filter(Boolean),
              });
          } finally {
            await session.http.close().catch(() => undefined);
          }
        }
      }
    } catch {
      // Shown as not signed in: this listing must not fail because of another profile.
    }
    out.push(status);
  }
  return out;
}

import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { ForbiddenError, KeychainUnavailableError, UsageError } from '../../errors.js';
import { int, list, matching, negatable, on, oneOf, type OptionSpecs, parseOptions, withOptions } from '../shared/options.js';
import { type CommandDeclaration, commandFor } from '../declaration.js';
import { suggest } from '../../io/text.js';

export interface LoginCommandOptions {
  baseUrl: string | undefined;
  scopes: string[];
  /** --add-scope: asked for together with the scopes this profile already has. */
  addScopes: string[];
  noBrowser: boolean;
  port: number | undefined;
  insecureStorage: boolean;
  timeoutSeconds: number;
  /** Which resource to sign in for: the API (default) or the service's MCP server. */
  resource?: 'api' | 'mcp';
  /** --client-id: a pre-registered client (or a Client ID Metadata Document URL) for the MCP sign-in. */
  clientId?: string | undefined;
  /** --with-token: sign in from a refresh token read on stdin (CI, cron); no browser. */
  withToken?: boolean;
  /** --issuer: the authorization server that client was registered with (its secret goes nowhere else). */
  issuer?: string | undefined;
}

/**
 * Scopes as OAuth writes them (space-separated) or as a list (`a,b`), repeatable; each a scope
 * token (RFC 6749, 3.3), whichever flag carried it.
 */
const scopes = list({
  split: /[\s,]+/,
  item: (_flag, s) => {
    if (s === '') return undefined;
    if (!/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(s)) throw new UsageError(`--scope "${s}" is not a valid scope name`);
    return s;
  },
});

/** The options, as data: flags, help, parsers and rules (src/commands/shared/options.ts). */
const OPTIONS = {
  scope: {
    flags: '--scope <scope>',
    description: 'a scope to request, repeatable (default: service:read projects:write analyses:run)',
    parse: scopes,
  },
  addScope: {
    flags: '--add-scope <scope>',
    description: 'add a scope to those this profile already has (repeatable, or a,b); the others are kept',
    parse: scopes,
  },
  browser: {
    flags: '--no-browser',
    description: 'do not open a browser: print the URL, and accept the redirected URL pasted on stdin (SSH)',
    parse: negatable(),
  },
  port: {
    flags: '--port <n>',
    description: 'loopback port for the redirect (fixed, for ssh -L); default: any free port',
    parse: int(1, 65535),
  },
  insecureStorage: {
    flags: '--insecure-storage',
    description: 'store tokens in a 0600 file in the config folder instead of the keychain',
    parse: on(),
  },
  withToken: {
    flags: '--with-token',
    description: 'read a refresh token on stdin (the line `rsi auth token --refresh` printed) and sign in with it: CI, cron',
    parse: on(),
  },
  resource: {
    flags: '--resource <resource>',
    description: "what the token is for: api (default) or mcp (the service's MCP server; `rsi mcp`, `rsi scoreboard`)",
    parse: oneOf(['api', 'mcp'] as const),
  },
  clientId: {
    flags: '--client-id <id>',
    description:
      'with --resource mcp: a client the authorization server already knows (a Client ID Metadata Document URL, or an id; its secret, if any, in RSI_CLIENT_SECRET)',
    parse: matching(/^[\x21-\x7e]+$/, () => '--client-id must be visible ASCII without spaces', { trim: true }),
  },
  issuer: {
    flags: '--issuer <url>',
    description: 'with --client-id: the authorization server it was registered with; its secret is sent to no other',
    parse: matching(
      /^https:\/\/[^\s]+$|^http:\/\/(127\.0\.0\.1|localhost|\[::1\])[:/]/,
      (issuer) => `--issuer must be an https:// URL (http:// only on loopback): ${issuer}`,
      { trim: true },
    ),
    rules: [{ needs: 'clientId', message: '--issuer goes with --client-id' }],
  },
} satisfies OptionSpecs;

export const command: CommandDeclaration = {
  path: 'login',
  description: 'sign in through the browser (OAuth 2.0 with PKCE) and store the tokens in the OS keychain',
  // --timeout bounds the sign-in's wait here, which ends exit 3 with the ways in (not the Context's exit 9).
  ownTimeout: true,
  examples: [
    'rsi login --base-url https://research.example.com',
    'rsi login --no-browser --port 8765     # over SSH, with ssh -L 8765:127.0.0.1:8765',
    'rsi login --profile work --add-scope analyses:run   # keeps the scopes you have',
    'rsi login --resource mcp               # the MCP server: scopes and authorization server from its own metadata',
  ],
  secretArguments: 'a hand-over line or refresh token goes on stdin, never on the command line: `rsi login --with-token < handover.txt`',
};

/** How long a sign-in waits for the browser when `--timeout` does not say. */
const DEFAULT_LOGIN_TIMEOUT_S = 300;

export function build(ctx: Context, runF: typeof run = run): Command {
  return withOptions(commandFor(command), OPTIONS)
    .addHelpText(
      'after',
      '\nThe base URL comes from --base-url (global option) or RSI_BASE_URL, and is saved in the profile.\n' +
        '--timeout (global option) bounds the sign-in: 1 s to 1 h, default 5 min for the browser; then exit 3.',
    )
    .action(async (flags: Record<string, unknown>) => {
      const { scope, addScope, browser, port, insecureStorage, withToken, resource, clientId, issuer } = parseOptions(OPTIONS, flags);
      // The global --timeout bounds the whole sign-in; without it the browser gets five minutes.
      const given = ctx.globals().commandTimeoutMs;
      if (given !== undefined && (given < 1000 || given > 3_600_000)) throw new UsageError('--timeout for login must be from 1 s to 1 h');
      const timeoutSeconds = given === undefined ? DEFAULT_LOGIN_TIMEOUT_S : Math.ceil(given / 1000);
      if (withToken && resource === 'mcp')
        throw new UsageError('--with-token signs in to the API; the MCP sign-in needs `rsi login --resource mcp`');
      if (clientId !== undefined && resource !== 'mcp' && !withToken)
        throw new UsageError('--client-id is for the MCP sign-in (add --resource mcp) or for a bare token with --with-token');
      await runF(
        {
          baseUrl: ctx.globals().baseUrl,
          scopes: scope,
          addScopes: addScope,
          noBrowser: !browser,
          port,
          insecureStorage,
          timeoutSeconds,
          ...(resource ? { resource } : {}),
          ...(clientId ? { clientId } : {}),
          ...(withToken ? { withToken } : {}),
          ...(issuer ? { issuer } : {}),
        },
        ctx,
      );
    });
}

export async function run(opts: LoginCommandOptions, ctx: Context): Promise<void> {
  const [creds, { normaliseBaseUrl }, { login, DEFAULT_SCOPES }, { checkServiceUrl }] = await Promise.all([
    ctx.credentials(),
    import('../../auth/base-url.js'),
    import('../../auth/login.js'),
    import('../../io/browser.js'),
  ]);
  const globals = ctx.globals();
  const raw = opts.baseUrl ?? creds.profile?.baseUrl;
  if (!raw) throw new UsageError('no service to sign in to', { hint: 'pass --base-url <url> (or set RSI_BASE_URL)' });
  const baseUrl = normaliseBaseUrl(raw);
  const store = creds.store({ insecure: opts.insecureStorage });
  // Fail before the browser dance, not after it, when the tokens could not be kept.
  try {
    await store.probe({ baseUrl, profile: globals.profile });
  } catch (error) {
    if (error instanceof KeychainUnavailableError && store.kind === 'keychain') {
      throw new KeychainUnavailableError(`no usable OS keychain: ${error.message.replace(/^cannot (read|open) the keychain: /, '')}`, {
        hint: 'start or unlock your keyring, or run `rsi login --insecure-storage` to keep tokens in a 0600 file (RSI_CREDENTIAL_STORE=file does the same)',
      });
    }
    throw error;
  }
  const err = ctx.io.stderr;
  if (opts.withToken) return (await import('../auth/with-token.js')).loginWithToken(ctx, { ...opts, baseUrl }, store, creds);
  // Each resource has its own environment token: only that one hides this login.
  const envName = opts.resource === 'mcp' ? 'RSI_MCP_TOKEN' : 'RSI_TOKEN';
  if (opts.resource === 'mcp' ? ctx.env.RSI_MCP_TOKEN?.trim() : creds.envToken)
    err.write(`warning: ${envName} is set and will still take precedence over this login until you unset it\n`);
  // --add-scope keeps what this profile was granted (gh auth refresh -s): re-consent for the union.
  const kept = opts.addScopes.length ? await grantedScopes(creds, baseUrl, opts.resource) : [];
  // The MCP sign-in asks for what the MCP server's challenge or metadata names when nobody said
  // (the MCP spec's scope selection); the API's defaults to the three scopes the contract names.
  const defaults = opts.resource === 'mcp' ? [] : [...DEFAULT_SCOPES];
  const base = opts.scopes.length || kept.length ? [...opts.scopes, ...kept] : defaults;
  const scopes = [...new Set([...base, ...opts.addScopes])];
  // Pasting the redirected URL: from the start with --no-browser, else from the moment the browser
  // turns out not to open; the loopback listener keeps waiting meanwhile, and whichever comes first wins.
  const paste = await stdinLines(ctx);
  if (opts.noBrowser) paste.activate();
  let finished = false;
  const cannotOpen = (reason: string, url: string): void => {
    if (finished) return;
    err.write(`Could not open a browser: ${reason}.\nOpen this URL in a browser on any machine to sign in:\n\n  ${url}\n\n`);
    err.write(
      'Then paste here the address the browser ends on (starting with http://127.0.0.1) and press Enter. rsi also keeps waiting for the browser to come back by itself.\n',
    );
    paste.activate();
  };
  let result: Awaited<ReturnType<typeof login>>;
  try {
    result = await login({
      baseUrl,
      profile: globals.profile,
      scopes,
      port: opts.port,
      timeoutMs: opts.timeoutSeconds * 1000,
      store,
      config: creds.config,
      oauth: { userAgent: creds.userAgent, network: await ctx.network() },
      clock: ctx.clock,
      signal: ctx.signal,
      pasted: pastedOrFail(paste.lines, () => finished),
      resource: opts.resource,
      clientId: opts.clientId,
      issuer: opts.issuer,
      // A secret never goes on the command line (shell history, `ps`): only the environment.
      clientSecret: opts.clientId ? ctx.env.RSI_CLIENT_SECRET?.trim() || undefined : undefined,
      events: {
        info: (line) => void err.write(`${line}\n`),
        authorizationUrl: async (url, issuer) => {
          if (opts.noBrowser) {
            err.write(`Open this URL in a browser to sign in:\n\n  ${url}\n\n`);
            err.write(
              'Then come back here. If the browser cannot reach this machine, paste the address it was redirected to (starting with http://127.0.0.1) and press Enter.\n',
            );
            return;
          }
          // The sign-in page is on the discovered authorization server: opened only if it is on the
          // issuer's origin (the browser URL policy, src/io/browser.ts); printed either way.
          const verdict = checkServiceUrl(url, issuer);
          if (!verdict.ok) {
            err.write(`warning: not opening the sign-in page the service sent (${verdict.why}); open it yourself only if you trust it\n`);
            return cannotOpen("rsi opens only a sign-in page on the issuer's own origin", url);
          }
          const launch = await (await ctx.browser()).launch(verdict.href);
          if (!launch.opened) return cannotOpen(launch.reason, url);
          err.write(
            `Opening your browser to sign in. If it does not open, visit:\n\n  ${url}\n\nWaiting for the sign-in… (Ctrl-C to cancel)\n`,
          );
          // An opener that starts and then fails (xdg-open finding no browser) is said at once.
          void launch.failed.then((reason) => cannotOpen(reason, url));
        },
      },
    });
  } finally {
    finished = true;
    // An unfinished read of stdin would keep the process alive after the login ended.
    paste.close();
  }
  const granted = result.scope.split(/\s+/).filter(Boolean);
  err.write(
    `✓ Signed in to ${baseUrl}${opts.resource === 'mcp' ? ' for its MCP server' : ''} (profile ${globals.profile}; tokens in the ${store.kind === 'file' ? 'file ' + (store as { file?: string }).file : 'OS keychain'})\n`,
  );
  err.write(`Scopes: ${granted.join(' ') || '(none)'}\n`);
  const missing = result.requested.filter((s) => !granted.includes(s));
  if (missing.length)
    err.write(
      `warning: the service did not grant ${missing.join(', ')}; commands that need ${missing.length > 1 ? 'them' : 'it'} will fail with exit 4\n`,
    );
  if (result.stillRefused?.length)
    err.write(
      `warning: the MCP server still refuses this sign-in for lack of ${result.stillRefused.join(' ')}; signing in again did not help, so rsi stopped (ask the service's administrators)\n`,
    );
}

/**
 * The pasted lines, and when stdin ends before any sign-in came back (it was closed: cron, CI), a
 * failure at once: with no browser and nobody to paste, waiting out --timeout helps nobody.
 */
async function* pastedOrFail(lines: AsyncIterable<string>, finished: () => boolean): AsyncGenerator<string> {
  yield* lines;
  if (finished()) return;
  const { NotSignedInError } = await import('../../errors.js');
  throw new NotSignedInError('no browser could be opened here and stdin is closed, so nobody can finish this sign-in; nothing was stored', {
    hint: 'unattended (CI, cron): pipe a refresh token to `rsi login --with-token` (from `rsi auth token --refresh` on a machine that signed in), or set RSI_TOKEN; over SSH: `rsi login --no-browser` at a terminal',
  });
}

/** Longer than any sign-in return address: a line past this is dropped as it arrives, never kept. */
export const MAX_PASTED_LINE = 64 * 1024;

/**
 * Lines pasted on stdin, read only once `activate` is called (a sign-in whose browser works never
 * touches stdin); until then `lines` simply waits. A line is kept only up to MAX_PASTED_LINE
 * characters: a 300 MB paste is dropped chunk by chunk (with one line saying so), so memory stays
 * that of one chunk whatever arrives.
 */
export async function stdinLines(ctx: Pick<Context, 'io'>): Promise<{ lines: AsyncIterable<string>; activate(): void; close(): void }> {
  const stdin = ctx.io.stdin;
  let closed = false;
  let ended = false;
  let listening = false;
  const queue: string[] = [];
  let wake: (() => void) | undefined;
  let current = '';
  let overlong = false;
  const decoder = new TextDecoder();
  const onData = (chunk: string | Uint8Array): void => {
    const text = typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    let start = 0;
    for (;;) {
      const nl = text.indexOf('\n', start);
      const piece = text.slice(start, nl < 0 ? undefined : nl);
      if (!overlong && current.length + piece.length > MAX_PASTED_LINE) {
        overlong = true;
        current = '';
      } else if (!overlong) current += piece;
      if (nl < 0) break;
      if (overlong)
        ctx.io.stderr.write(`That line is longer than any sign-in address (over ${MAX_PASTED_LINE / 1024} KiB); it was ignored.\n`);
      else queue.push(current.replace(/\r$/, ''));
      current = '';
      overlong = false;
      start = nl + 1;
    }
    wake?.();
  };
  const onEnd = (): void => {
    if (current && !overlong) queue.push(current);
    current = '';
    ended = true;
    wake?.();
  };
  let activate!: () => void;
  const active = new Promise<void>((resolve) => {
    activate = resolve;
  });
  async function* lines(): AsyncGenerator<string> {
    await active;
    if (closed) return;
    listening = true;
    stdin.on('data', onData);
    stdin.on('end', onEnd);
    stdin.resume();
    for (;;) {
      if (queue.length) yield queue.shift()!;
      else if (ended || closed) return;
      else await new Promise<void>((resolve) => (wake = resolve));
    }
  }
  return {
    lines: lines(),
    activate,
    close: () => {
      closed = true;
      activate();
      wake?.();
      if (listening) {
        stdin.off('data', onData);
        stdin.off('end', onEnd);
        stdin.pause();
      }
    },
  };
}

/** The scopes stored for this profile at `baseUrl` (for the API, or the MCP server); none when there is no stored login. */
async function grantedScopes(
  creds: Awaited<ReturnType<Context['credentials']>>,
  baseUrl: string,
  resource: 'api' | 'mcp' = 'api',
): Promise<string[]> {
  if (creds.profile?.baseUrl !== baseUrl) return [];
  try {
    const { credentialKeyFor } = await import('../../auth/resources.js');
    const stored = await creds.store().load(credentialKeyFor({ baseUrl, profile: creds.profileName }, resource));
    return stored?.scope.split(/\s+/).filter(Boolean) ?? [];
  } catch {
    return [];
  }
}

/**
 * The hint for a 403 naming a missing scope: the same profile, the same resource (the API's
 * sign-in, or the MCP server's with `--resource mcp`), and the union of the scopes granted and the
 * missing ones, so following it never drops the others. When the sign-in already holds every scope
 * named, signing in again cannot help, and the hint says so instead of sending the person round.
 */
export async function scopeHint(ctx: Context, missing: string, resource: 'api' | 'mcp' = 'api'): Promise<string> {
  const [creds, { profileWords }] = await Promise.all([ctx.credentials(), import('../../auth/credentials.js')]);
  // Built from words: the scopes come from the service's 403 and may hold any text.
  const login = (...rest: string[]) =>
    suggest(['rsi', 'login', ...profileWords(creds.profileName), ...(resource === 'mcp' ? ['--resource', 'mcp'] : []), ...rest]);
  const wanted = missing.split(/\s+/).filter(Boolean);
  const envName = resource === 'mcp' ? 'RSI_MCP_TOKEN' : 'RSI_TOKEN';
  const envToken = resource === 'mcp' ? ctx.env.RSI_MCP_TOKEN?.trim() : creds.envToken;
  if (envToken) {
    return `the token in ${envName} was not granted ${wanted.join(' ')}: use one that was, or unset ${envName} and run ${login('--add-scope', wanted.join(','))}`;
  }
  const granted = creds.baseUrl ? await grantedScopes(creds, creds.baseUrl, resource) : [];
  const lacking = wanted.filter((s) => !granted.includes(s));
  if (granted.length && !lacking.length) {
    return `your${resource === 'mcp' ? ' MCP' : ''} sign-in already holds ${wanted.join(' ')} and is still refused: signing in again will not help; ask the service's administrators`;
  }
  const union = [...new Set([...granted, ...wanted])];
  return `run ${login('--scope', union.join(','))} (the same as ${login('--add-scope', lacking.join(','))}: the scopes you have are kept)`;
}

/**
 * A 403 names the missing scope, but only here are the profile and the scopes already granted
 * known: the hint asks for their union under the same profile and for the same resource, so
 * following it never trades a three-scope login for a one-scope one, nor re-signs the API when
 * the MCP server is the one refusing.
 */
export async function explainError(error: unknown, ctx: Context): Promise<unknown> {
  if (!(error instanceof ForbiddenError) || !error.scope) return error;
  const hint = await scopeHint(ctx, error.scope, error.resource).catch(() => undefined);
  return hint ? new ForbiddenError(error.message, error.scope, { hint, cause: error }, error.resource) : error;
}

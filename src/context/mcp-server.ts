/**
 * `rsi mcp serve`'s composition, which the Context owns (`ctx.mcpServer()`): what the server
 * (src/mcp/server.ts) is handed — an API client and the service's MCP session, each built on first
 * use from credentials read afresh (a `rsi login` or `rsi logout` while serving counts) and rebuilt
 * after a failure; the sign-ins as they are now; the URL policy; the log on stderr — and how to
 * close what was opened. The command only starts the server on stdio.
 */
import type { AuthGlobals, Credentials } from '../auth/credentials.js';
import type { Env } from '../io/io.js';
import type { ApiClient } from '../client/client.js';
import type { Network } from '../http/network.js';
import type { Clock, Io } from '../io/io.js';
import type { McpConnection } from '../mcp/client.js';
import type { ServeDeps, SignIns } from '../mcp/deps.js';

/** The parts of the Context the composition uses (the Context itself, with its MCP session-opening). */
export interface ServeHost {
  io: Io;
  env: Env;
  clock: Clock;
  signal: AbortSignal;
  version: string;
  globals(): AuthGlobals;
  network(): Promise<Network>;
  /** The Context's MCP session-opening (`openMcp`), with these credentials. */
  openMcp(fresh: Credentials): Promise<McpConnection>;
}

/** What `createServer` takes, and the closing of the client and the session it opened. */
export interface McpServerParts {
  deps: ServeDeps;
  close(): Promise<void>;
}

/** What the command decides: writes, the chat opt-in, and how a suggested command carries this run's flags. */
export interface ServeOptions {
  allowWrite: boolean;
  confirmInChat?: boolean;
  carry?: ServeDeps['carry'];
}

export async function composeMcpServer(ctx: ServeHost, options: ServeOptions): Promise<McpServerParts> {
  const { checkServiceUrl } = await import('../io/browser.js');
  const clients = clientFactory(ctx);
  const remote = remoteFactory(ctx);
  return {
    deps: {
      version: ctx.version,
      allowWrite: options.allowWrite,
      confirmInChat: options.confirmInChat === true,
      carry: options.carry,
      client: clients.get,
      signIns: () => readSignIns(ctx),
      remote,
      signal: ctx.signal,
      checkUrl: (raw, origin) => {
        const checked = checkServiceUrl(raw, origin);
        return checked.ok ? checked.href : undefined;
      },
      log: (line) => void ctx.io.stderr.write(`${line}\n`),
      scrub: ctx.io.secrets ? (text) => ctx.io.secrets!.scrub(text) : undefined,
    },
    // Their keep-alive pools would hold the process open after the assistant went away.
    close: async () => {
      await Promise.all([clients.close(), remote.close()]);
    },
  };
}

/**
 * Credentials read afresh, so a `rsi login` or `rsi logout` made while serving counts (the Context
 * caches its first answer), on the Context's one network path.
 */
async function freshCredentials(ctx: ServeHost): Promise<Credentials> {
  const { resolveCredentials } = await import('../auth/credentials.js');
  return resolveCredentials({
    globals: ctx.globals(),
    env: ctx.env,
    io: ctx.io,
    clock: ctx.clock,
    signal: ctx.signal,
    version: ctx.version,
    network: await ctx.network(),
  });
}

/**
 * The sign-ins now, for the tool list: the stored API sign-in's scopes (write tools need theirs;
 * unknown for RSI_TOKEN or an unreadable store, and then the service decides), and whether there
 * is an MCP sign-in (RSI_MCP_TOKEN, or `rsi login --resource mcp`) with its scopes.
 */
async function readSignIns(ctx: ServeHost): Promise<SignIns> {
  const [creds, { credentialKeyFor }] = await Promise.all([freshCredentials(ctx), import('../auth/resources.js')]);
  const stored = creds.baseUrl !== undefined && creds.profile?.baseUrl === creds.baseUrl;
  const scopesOf = async (resource: 'api' | 'mcp'): Promise<string[] | null | undefined> => {
    if (!stored) return null;
    try {
      const tokens = await creds.store().load(credentialKeyFor(creds.key(), resource));
      return tokens ? tokens.scope.split(/\s+/).filter(Boolean) : null;
    } catch {
      return undefined;
    }
  };
  // RSI_TOKEN: signed in, scopes unknown (the service decides); an unreadable store likewise; none stored: no sign-in.
  const api = creds.source === 'RSI_TOKEN' ? {} : await scopesOf('api');
  const mcp = ctx.env.RSI_MCP_TOKEN?.trim() ? { scopes: undefined } : await scopesOf('mcp');
  return {
    baseUrl: creds.baseUrl,
    api: api === null ? undefined : api === undefined ? {} : Array.isArray(api) ? { scopes: api } : api,
    // An unreadable store (undefined) shows no MCP sign-in, as `rsi auth status` does.
    mcp: mcp === null || mcp === undefined ? undefined : Array.isArray(mcp) ? { scopes: mcp } : mcp,
  };
}

/**
 * The service's own MCP server, with the MCP sign-in as it is when a session is opened
 * (`rsi login --resource mcp` or RSI_MCP_TOKEN): one session opened on first use, kept, and
 * opened again after a failure.
 */
function remoteFactory(ctx: ServeHost): { connection(): Promise<McpConnection>; reset(): void; close(): Promise<void> } {
  // The Context's session-opening, with credentials read now rather than at start.
  const open = async (): Promise<McpConnection> => ctx.openMcp(await freshCredentials(ctx));
  let live: Promise<McpConnection> | undefined;
  const drop = (): void => {
    const gone = live;
    live = undefined;
    void gone?.then((c) => c.close()).catch(() => undefined);
  };
  return {
    connection: () => {
      live ??= open();
      const attempt = live;
      attempt.catch(() => {
        if (live === attempt) live = undefined;
      });
      return attempt;
    },
    reset: drop,
    close: async () => {
      const c = await live?.catch(() => undefined);
      await c?.close();
    },
  };
}

/**
 * The API client for the server's tools. A long-running server must pick up a sign-in made after
 * it started, so a failed attempt is not cached (the Context caches its first answer); a working
 * client is kept, and its token provider refreshes as the commands' does.
 */
function clientFactory(ctx: ServeHost): { get: () => Promise<ApiClient>; close: () => Promise<void> } {
  let live: Promise<ApiClient> | undefined;
  const get = async (): Promise<ApiClient> => {
    if (live) return live;
    const attempt = (async () => {
      const [creds, network, { openSession }, { ApiClient }] = await Promise.all([
        freshCredentials(ctx),
        ctx.network(),
        import('../auth/session.js'),
        import('../client/client.js'),
      ]);
      const session = await openSession(creds, { globals: ctx.globals(), io: ctx.io, clock: ctx.clock, network });
      return new ApiClient(session.http);
    })();
    live = attempt;
    attempt.catch(() => {
      if (live === attempt) live = undefined;
    });
    return attempt;
  };
  const close = async (): Promise<void> => {
    const client = await live?.catch(() => undefined);
    await client?.http.close();
  };
  return { get, close };
}

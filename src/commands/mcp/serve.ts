import { Command } from 'commander';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { Credentials } from '../../auth/credentials.js';
import type { ApiClient } from '../../client/client.js';
import type { McpConnection } from '../../mcp/client.js';
import type { SignIns } from '../../mcp/server.js';
import { printVerbatim } from '../../io/output.js';
import { shellCommand } from '../../io/text.js';
import { enumFlag } from '../shared/flags.js';

export const CONFIG_CLIENTS = ['claude-desktop', 'claude-code', 'cursor', 'vscode'] as const;
export type ConfigClient = (typeof CONFIG_CLIENTS)[number];

export interface ServeOptions {
  allowWrite: boolean;
  printConfig: ConfigClient | undefined;
}

export function build(ctx: Context, runF: typeof run = run): Command {
  return new Command('serve')
    .description("run an MCP server on stdio that gives an AI assistant rsi's read commands as tools (for the assistant to start)")
    .option(
      '--allow-write',
      'also offer the write tools your sign-in has scopes for; a write the service asks about runs only after a person says yes',
    )
    .option('--print-config <client>', `print a configuration snippet for ${CONFIG_CLIENTS.join(', ')} and exit`)
    .addHelpText(
      'after',
      '\nThe server uses your `rsi login` (or RSI_TOKEN) and never opens a browser: sign in first in a terminal.\nstdout carries only JSON-RPC; messages go to stderr.\n\nExamples:\n  rsi mcp serve --print-config claude-desktop\n  rsi mcp serve --allow-write --print-config vscode > .vscode/mcp.json',
    )
    .action(async (flags: { allowWrite?: boolean; printConfig?: string }) => {
      await runF(
        { allowWrite: flags.allowWrite === true, printConfig: enumFlag('--print-config', flags.printConfig, CONFIG_CLIENTS) },
        ctx,
      );
    });
}

export async function run(opts: ServeOptions, ctx: Context): Promise<void> {
  if (opts.printConfig) {
    await printConfig(opts, ctx);
    return;
  }
  const globals = ctx.globals();
  if (globals.json || ctx.io.stdoutIsTTY) {
    if (globals.json) throw new UsageError('--json does not apply to `rsi mcp serve` (stdout carries JSON-RPC)');
    ctx.io.stderr.write(
      'rsi mcp serve speaks MCP (JSON-RPC) on stdin/stdout: an assistant starts it, not a person.\n' +
        'To set one up: `rsi mcp serve --print-config claude-desktop` (or claude-code, cursor, vscode). Waiting for a client on stdin… (Ctrl-C to stop)\n',
    );
  }
  const [{ createServer, serveStdio }, { checkServiceUrl }] = await Promise.all([
    import('../../mcp/server.js'),
    import('../../io/browser.js'),
  ]);
  const clients = clientFactory(ctx);
  const remote = remoteFactory(ctx);
  const server = await createServer({
    version: ctx.version,
    allowWrite: opts.allowWrite,
    client: clients.get,
    signIns: () => readSignIns(ctx),
    remote,
    signal: ctx.signal,
    checkUrl: (raw, origin) => {
      const checked = checkServiceUrl(raw, origin);
      return checked.ok ? checked.href : undefined;
    },
    log: (line) => void ctx.io.stderr.write(`${line}\n`),
  });
  try {
    await serveStdio(server, ctx.io, ctx.signal);
  } finally {
    // Its keep-alive pool would hold the process open after the assistant went away.
    await Promise.all([clients.close(), remote.close()]);
  }
}

/**
 * Credentials read afresh, so a `rsi login` or `rsi logout` made while serving counts (the Context
 * caches its first answer), on the Context's one network path.
 */
async function freshCredentials(ctx: Context): Promise<Credentials> {
  const { resolveCredentials } = await import('../../auth/credentials.js');
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
async function readSignIns(ctx: Context): Promise<SignIns> {
  const [creds, { credentialKeyFor }] = await Promise.all([freshCredentials(ctx), import('../../auth/resources.js')]);
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
  const api = creds.source === 'RSI_TOKEN' ? undefined : ((await scopesOf('api')) ?? undefined);
  const mcp = ctx.env.RSI_MCP_TOKEN?.trim() ? { scopes: undefined } : await scopesOf('mcp');
  return {
    baseUrl: creds.baseUrl,
    api,
    // An unreadable store (undefined) shows no MCP sign-in, as `rsi auth status` does.
    mcp: mcp === null || mcp === undefined ? undefined : Array.isArray(mcp) ? { scopes: mcp } : mcp,
  };
}

/**
 * The service's own MCP server, with the MCP sign-in as it is when a session is opened
 * (`rsi login --resource mcp` or RSI_MCP_TOKEN): one session opened on first use, kept, and
 * opened again after a failure.
 */
function remoteFactory(ctx: Context): { connection(): Promise<McpConnection>; reset(): void; close(): Promise<void> } {
  // The Context's session-opening, with credentials read now rather than at start.
  const open = async (): Promise<McpConnection> => {
    const [creds, { openMcp }] = await Promise.all([freshCredentials(ctx), import('../../context.js')]);
    return openMcp(ctx, creds);
  };
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
function clientFactory(ctx: Context): { get: () => Promise<ApiClient>; close: () => Promise<void> } {
  let live: Promise<ApiClient> | undefined;
  const get = async (): Promise<ApiClient> => {
    if (live) return live;
    const attempt = (async () => {
      const [creds, network, { openSession }, { ApiClient }] = await Promise.all([
        freshCredentials(ctx),
        ctx.network(),
        import('../../auth/session.js'),
        import('../../client/client.js'),
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

async function printConfig(opts: ServeOptions, ctx: Context): Promise<void> {
  const globals = ctx.globals();
  // The server runs as the assistant's child, without this shell: pin what was chosen here.
  const args = ['mcp', 'serve', ...(opts.allowWrite ? ['--allow-write'] : [])];
  if (globals.profile !== 'default') args.unshift('--profile', globals.profile);
  if (globals.baseUrl) args.unshift('--base-url', globals.baseUrl);
  const server = { command: 'rsi', args };
  const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;
  const where: Record<ConfigClient, string> = {
    'claude-desktop': 'Add this to claude_desktop_config.json (Settings → Developer → Edit Config), then restart Claude Desktop.',
    'claude-code': 'Run this in your shell (add --scope user to have it in every project).',
    cursor: 'Put this in .cursor/mcp.json in your project (or ~/.cursor/mcp.json for all projects).',
    vscode: 'Put this in .vscode/mcp.json in your workspace.',
  };
  let text: string;
  switch (opts.printConfig!) {
    case 'claude-code':
      text = `${shellCommand(['claude', 'mcp', 'add', 'rsi', '--', 'rsi', ...args])}\n`;
      break;
    case 'vscode':
      text = json({ servers: { rsi: { type: 'stdio', ...server } } });
      break;
    default:
      text = json({ mcpServers: { rsi: server } });
  }
  await printVerbatim(ctx.io, text);
  ctx.io.stderr.write(
    `${where[opts.printConfig!]}\nSign in first with \`rsi login\` in a terminal; if the assistant cannot find \`rsi\`, use its absolute path (\`which rsi\`).\n`,
  );
}

/** What `serve` does; see serve.ts for its flags. */
import type { Context } from '../../context.js';
import type { ConfigClient, ServeOptions } from './serve.js';
import { UsageError } from '../../errors.js';
import type { ApiClient } from '../../client/client.js';

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
  const [{ createServer, serveStdio }, { resolveProject, resolveKeyword }] = await Promise.all([
    import('../../mcp/server.js'),
    import('../shared/resolve.js'),
  ]);
  const clients = clientFactory(ctx);
  const server = await createServer({
    version: ctx.version,
    allowWrite: opts.allowWrite,
    client: clients.get,
    resolveProject,
    resolveKeyword,
    log: (line) => void ctx.io.stderr.write(`${line}\n`),
  });
  try {
    await serveStdio(server, ctx.io, ctx.signal);
  } finally {
    // Its keep-alive pool would hold the process open after the assistant went away.
    await clients.close();
  }
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
      const [{ resolveCredentials }, { openSession }, { ApiClient }] = await Promise.all([
        import('../../auth/credentials.js'),
        import('../../auth/session.js'),
        import('../../client/client.js'),
      ]);
      const globals = ctx.globals();
      const creds = await resolveCredentials({
        globals,
        env: ctx.env,
        io: ctx.io,
        clock: ctx.clock,
        signal: ctx.signal,
        version: ctx.version,
      });
      const session = await openSession(creds, { globals, io: ctx.io, clock: ctx.clock });
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
      text = `claude mcp add rsi -- rsi ${args.map(shellWord).join(' ')}\n`;
      break;
    case 'vscode':
      text = json({ servers: { rsi: { type: 'stdio', ...server } } });
      break;
    default:
      text = json({ mcpServers: { rsi: server } });
  }
  await (await import('../../io/output.js')).printVerbatim(ctx.io, text);
  ctx.io.stderr.write(
    `${where[opts.printConfig!]}\nSign in first with \`rsi login\` in a terminal; if the assistant cannot find \`rsi\`, use its absolute path (\`which rsi\`).\n`,
  );
}

function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

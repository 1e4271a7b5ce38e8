/** Opens a session with the service's MCP server for `rsi mcp …`, `rsi scoreboard` and `--from-brief`. */
import type { Context } from '../../context.js';
import type { McpConnection, Tool } from '../../mcp/client.js';
import { profileFlag } from '../../auth/credentials.js';

export async function openMcp(ctx: Context): Promise<McpConnection> {
  const [creds, { openMcpAuth }, { connectMcp }] = await Promise.all([
    ctx.credentials(),
    import('../../auth/mcp.js'),
    import('../../mcp/client.js'),
  ]);
  const mcp = await openMcpAuth(creds, { env: ctx.env, io: ctx.io, clock: ctx.clock });
  return connectMcp({
    url: mcp.url,
    auth: mcp.auth,
    network: creds.oauth.network,
    userAgent: creds.userAgent,
    version: ctx.version,
    signal: ctx.signal,
    notSignedInHint:
      mcp.source === 'RSI_MCP_TOKEN'
        ? 'RSI_MCP_TOKEN was refused: set a valid MCP token, or unset it and run `rsi login --resource mcp`'
        : `run \`rsi${profileFlag(creds.profileName)} login --resource mcp\``,
  });
}

/** How a command opens its MCP session: `openMcp`, or a fake connection in unit tests. */
export interface McpDeps {
  open?: (ctx: Context) => Promise<McpConnection>;
}

/** Runs `fn` with an open session and always closes it (also on error and Ctrl-C). */
export async function withMcp<T>(ctx: Context, fn: (mcp: McpConnection) => Promise<T>, open = openMcp): Promise<T> {
  const mcp = await open(ctx);
  try {
    return await fn(mcp);
  } finally {
    await mcp.close();
  }
}

/** Finds a tool by name in `tools/list`; the spec names none, so a server may lack it. */
export async function requireTool(mcp: McpConnection, names: readonly string[], feature: string): Promise<Tool> {
  const { UnexpectedReplyError } = await import('../../errors.js');
  const tools = await mcp.listTools();
  const tool = tools.find((t) => names.includes(t.name));
  if (!tool) {
    throw new UnexpectedReplyError(`the service's MCP server offers no ${feature} tool (looked for ${names.join(', ')})`, {
      hint: `its tools: ${tools.map((t) => t.name).join(', ') || 'none'} (\`rsi mcp tools\`); \`rsi mcp call\` can call any of them`,
    });
  }
  return tool;
}

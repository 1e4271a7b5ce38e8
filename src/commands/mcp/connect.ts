/** The session with the service's MCP server (`ctx.mcp()`) as `rsi mcp …`, `rsi scoreboard` and `--from-brief` use it. */
import type { Context } from '../../context.js';
import type { McpConnection, Tool } from '../../mcp/client.js';
import { UnexpectedReplyError } from '../../errors.js';

/** Runs `fn` with an open session and always closes it (also on error and Ctrl-C). */
export async function withMcp<T>(ctx: Context, fn: (mcp: McpConnection) => Promise<T>): Promise<T> {
  const mcp = await ctx.mcp();
  try {
    return await fn(mcp);
  } finally {
    await mcp.close();
  }
}

/** Finds a tool by name in `tools/list`; the spec names none, so a server may lack it. */
export async function requireTool(mcp: McpConnection, names: readonly string[], feature: string): Promise<Tool> {
  const tools = await mcp.listTools();
  const tool = tools.find((t) => names.includes(t.name));
  if (!tool) {
    throw new UnexpectedReplyError(`the service's MCP server offers no ${feature} tool (looked for ${names.join(', ')})`, {
      hint: `its tools: ${tools.map((t) => t.name).join(', ') || 'none'} (\`rsi mcp tools\`); \`rsi mcp call\` can call any of them`,
    });
  }
  return tool;
}

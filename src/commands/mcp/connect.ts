/** The session with the service's MCP server (`ctx.mcp()`) as `rsi mcp …`, `rsi scoreboard` and `--from-brief` use it. */
import type { Context } from '../../context.js';
import type { McpConnection } from '../../mcp/client.js';

/** Finding a tool by name is a use case both front-ends share (src/ops/mcp-tools.ts). */

/** Runs `fn` with an open session and always closes it (also on error and Ctrl-C). */
export async function withMcp<T>(ctx: Context, fn: (mcp: McpConnection) => Promise<T>): Promise<T> {
  const mcp = await ctx.mcp();
  try {
    return await fn(mcp);
  } finally {
    await mcp.close();
  }
}

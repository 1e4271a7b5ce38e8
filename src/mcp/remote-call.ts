/**
 * Calling one of the service's own MCP tools (`<base>/mcp`) for `rsi mcp serve`: the tool is found
 * by name in the session's `tools/list` (listed once per session), and a session that failed is
 * dropped so the next call opens a new one. Each call carries its own signal, so cancelling the
 * assistant's request cancels the upstream one (and a cancelled call is no broken session).
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { UnexpectedReplyError } from '../errors.js';
import type { McpConnection } from './client.js';
import type { ServeDeps } from './deps.js';

export function remoteCaller(remote: ServeDeps['remote']) {
  return async (names: readonly string[], feature: string, args: Record<string, unknown>, signal: AbortSignal): Promise<unknown> => {
    if (!remote) throw new UnexpectedReplyError(`rsi cannot reach the service's MCP server here (no ${feature} tool)`);
    const { toolFailure } = await import('./client.js');
    let conn: McpConnection;
    let tools: Tool[];
    try {
      conn = await remote.connection();
      // One tools/list per session: its tools do not change under a stateless server's session.
      let listed = toolLists.get(conn);
      if (!listed) {
        listed = conn.listTools(signal);
        toolLists.set(conn, listed);
        listed.catch(() => toolLists.delete(conn));
      }
      tools = await listed;
    } catch (error) {
      if (signal.aborted) throw error;
      remote.reset();
      throw error;
    }
    const found = tools.find((t) => names.includes(t.name));
    if (!found) {
      throw new UnexpectedReplyError(`the service's MCP server offers no ${feature} tool (looked for ${names.join(', ')})`);
    }
    let result: CallToolResult;
    try {
      result = await conn.callTool(found.name, args, signal);
    } catch (error) {
      // A cancelled call is no broken session.
      if (signal.aborted) throw error;
      remote.reset();
      throw error;
    }
    if (result.isError) throw toolFailure(found.name, result);
    if (result.structuredContent === undefined) {
      throw new UnexpectedReplyError(`the MCP tool ${found.name} answered without structured content`);
    }
    return result.structuredContent;
  };
}

/** The tools of each open session of the service's MCP server, listed once. */
const toolLists = new WeakMap<McpConnection, Promise<Tool[]>>();

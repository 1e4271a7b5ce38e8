/**
 * The service's own MCP server (`<base>/mcp`) as the use cases of src/ops see it (McpTools), for
 * `rsi mcp serve`: the tools are listed once per session, and a session that failed is dropped so
 * the next call opens a new one. Each call carries its own signal, so cancelling the assistant's
 * request cancels the upstream one, and a cancelled call is no broken session. A tool's own
 * `isError` answer is no broken session either: ops turns it into a typed error.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { McpTools } from '../ops/mcp-tools.js';
import type { McpConnection } from './client.js';
import type { ServeDeps } from './deps.js';

export function remoteTools(remote: NonNullable<ServeDeps['remote']>): McpTools<Tool> {
  /** Runs `step` on the open session; a failure that is not a cancellation drops the session. */
  const onSession = async <T>(signal: AbortSignal | undefined, step: (conn: McpConnection) => Promise<T>): Promise<T> => {
    try {
      return await step(await remote.connection());
    } catch (error) {
      if (!signal?.aborted) remote.reset();
      throw error;
    }
  };
  return {
    listTools: (signal) =>
      onSession(signal, (conn) => {
        // One tools/list per session: its tools do not change under a stateless server's session.
        let listed = toolLists.get(conn);
        if (!listed) {
          listed = conn.listTools(signal);
          toolLists.set(conn, listed);
          listed.catch(() => toolLists.delete(conn));
        }
        return listed;
      }),
    callTool: (name, args, signal) => onSession(signal, (conn) => conn.callTool(name, args, signal)),
  };
}

/** The tools of each open session of the service's MCP server, listed once. */
const toolLists = new WeakMap<McpConnection, Promise<Tool[]>>();

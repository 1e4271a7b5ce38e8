/**
 * A project's ranked scoreboard, an MCP-only feature: `rsi scoreboard` and the MCP tool
 * `project_scoreboard`. The project is resolved first (resolve.ts' resolveProjectLazily: a UUID
 * needs no API sign-in), then the service's scoreboard tool is found by name and called.
 */
import { SCOREBOARD_TOOLS, ScoreboardReply, parseReply } from './features.js';
import { callTool, type McpTools, requireTool } from './mcp-tools.js';

export interface Scoreboard {
  /** The tool that answered. */
  tool: string;
  /** Its structured content as sent (what `--json` prints). */
  raw: unknown;
  board: ScoreboardReply;
}

export async function readScoreboard(
  mcp: McpTools,
  input: { projectId: string; limit?: number | undefined },
  signal?: AbortSignal,
): Promise<Scoreboard> {
  const tool = await requireTool(mcp, SCOREBOARD_TOOLS, 'scoreboard', signal);
  const raw = await callTool(
    mcp,
    tool.name,
    { project_id: input.projectId, ...(input.limit !== undefined ? { limit: input.limit } : {}) },
    signal,
  );
  return { tool: tool.name, raw, board: parseReply(tool.name, ScoreboardReply, raw) };
}

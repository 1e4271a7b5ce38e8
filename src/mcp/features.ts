/**
 * The MCP-only features and their replies live with the use cases (src/ops/features.ts); this
 * name stays while the tools of `rsi mcp serve` move to src/ops (delete it once nothing imports it).
 */
export { BRIEF_TOOLS, BriefReply, parseReply, SCOREBOARD_TOOLS, ScopeMatch, ScoreboardReply } from '../ops/features.js';

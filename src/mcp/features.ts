/** The MCP-only features and their replies live with the use cases (src/ops/features.ts). */
export { BRIEF_TOOLS, BriefReply, parseReply, SCOREBOARD_TOOLS, ScopeMatch, ScoreboardReply } from '../ops/features.js';

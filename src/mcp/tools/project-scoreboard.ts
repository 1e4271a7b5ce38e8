import * as z from 'zod';
import { parseReply, SCOREBOARD_TOOLS, ScoreboardReply } from '../features.js';
import { output, project, UUID } from '../shapes.js';
import { defineTool, READ } from './tool.js';

export const projectScoreboard = defineTool({
  name: 'project_scoreboard',
  title: 'Project scoreboard',
  description: "A project's scored opportunities ranked by composite score, with the component scores (from the service's own MCP server).",
  inputSchema: {
    project,
    limit: z.number().int().min(1).optional().describe('how many ranks to return (the service sets the default and the most)'),
  },
  outputSchema: output(ScoreboardReply),
  annotations: READ,
  narrowWith: ['limit'],
  remote: true,
  listedWhen: (now) => now.mcp !== undefined,
  run: async (a, x, kit) => {
    // A UUID needs no API sign-in; a name is looked up through the API as everywhere else.
    const id = UUID.test(a.project) ? a.project : (await kit.deps.resolveProject(await kit.api(), a.project, x.signal)).id;
    const reply = await kit.remote(SCOREBOARD_TOOLS, 'scoreboard', { project_id: id, ...(a.limit ? { limit: a.limit } : {}) }, x.signal);
    return parseReply('project_scoreboard', ScoreboardReply, reply);
  },
});

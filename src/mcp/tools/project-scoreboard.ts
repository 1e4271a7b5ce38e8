import * as z from 'zod';
import { ScoreboardReply } from '../../ops/features.js';
import { resolveProjectLazily } from '../../ops/resolve.js';
import { readScoreboard } from '../../ops/scoreboard.js';
import { Reply } from '../ask.js';
import { output, project } from '../shapes.js';
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
    const p = await resolveProjectLazily(kit.api, a.project, x.signal);
    const { board } = await readScoreboard(kit.mcp(), { projectId: p.id, limit: a.limit }, x.signal);
    // The project's page, as the other project tools link it (on the service the sign-ins name).
    return new Reply(board, undefined, undefined, kit.projectPage(kit.origin(), p.id));
  },
});

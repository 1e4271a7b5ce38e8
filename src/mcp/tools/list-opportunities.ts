import * as S from '../../client/schemas.js';
import { Reply } from '../ask.js';
import { output, project } from '../shapes.js';
import { defineTool, READ } from './tool.js';
import { resolveProject } from '../../ops/resolve.js';

export const listOpportunities = defineTool({
  name: 'list_opportunities',
  title: 'Project opportunities',
  description: "A project's scored opportunities and analysis counts.",
  inputSchema: { project },
  outputSchema: output(S.OpportunityPayload()),
  annotations: READ,
  narrowWith: [],
  run: async (a, x, kit) => {
    const c = await kit.api();
    const p = await resolveProject(c, a.project, x.signal);
    return new Reply(await c.getOpportunities(p.id, x.signal), undefined, undefined, kit.projectPage(c.baseUrl, p.id));
  },
});

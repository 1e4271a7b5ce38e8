import * as S from '../../client/schemas.js';
import { Reply } from '../ask.js';
import { output, project } from '../shapes.js';
import { defineTool, READ } from './tool.js';
import { resolveProject } from '../../ops/resolve.js';

export const projectStatus = defineTool({
  name: 'project_status',
  title: 'Project status',
  description: "A project's discovery and scoring status: summary, next step (wait, run_analyses, list_signals) and analyses.",
  inputSchema: { project },
  outputSchema: output(S.ProjectStatus()),
  annotations: READ,
  narrowWith: [],
  run: async (a, x, kit) => {
    const c = await kit.api();
    const p = await resolveProject(c, a.project, x.signal);
    return new Reply(await c.getProjectStatus(p.id, x.signal), undefined, undefined, kit.projectPage(c.baseUrl, p.id));
  },
});

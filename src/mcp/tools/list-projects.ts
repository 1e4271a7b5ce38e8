import * as S from '../../client/schemas.js';
import { output } from '../shapes.js';
import { defineTool, READ } from './tool.js';

export const listProjects = defineTool({
  name: 'list_projects',
  title: 'Projects',
  description: 'The projects the user belongs to, with their role (owner, editor, viewer).',
  inputSchema: {},
  outputSchema: output(S.ProjectList()),
  annotations: READ,
  narrowWith: [],
  run: async (_a, x, kit) => (await kit.api()).listProjects(x.signal),
});

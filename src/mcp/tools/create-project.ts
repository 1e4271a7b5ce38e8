import * as z from 'zod';
import * as S from '../../client/schemas.js';
import { GOALS, OPERANDS } from '../../client/enums.js';
import { Reply } from '../ask.js';
import { output } from '../shapes.js';
import { UUID_RE as UUID } from '../../client/ids.js';
import { defineTool, may, WRITE } from './tool.js';

export const createProject = defineTool({
  name: 'create_project',
  title: 'Create a project',
  description: 'Creates a project (the user becomes owner) and returns its id and the setup_url where scoring setup is finished.',
  inputSchema: {
    name: z.string().min(1).max(200),
    brief: z.string().optional(),
    watchlist_items: z
      .array(z.looseObject({ entity_id: z.string().min(1), entity_type: z.string().min(1), entity_name: z.string().optional() }))
      .optional(),
    operand: z.enum(OPERANDS).optional(),
    goals: z.array(z.enum(GOALS)).optional(),
  },
  outputSchema: output(S.CreatedProject()),
  annotations: WRITE,
  narrowWith: [],
  writes: true,
  listedWhen: (now) => may(now.api, 'projects:write'),
  run: async (a, x, kit) => {
    const c = await kit.api();
    const created = await c.createProject(a, x.signal);
    return new Reply(created, undefined, undefined, [
      ...kit.page(created.setup_url, c.baseUrl, { name: 'setup', title: 'Finish scoring setup (web application)' }),
      ...(UUID.test(created.id) ? kit.projectPage(c.baseUrl, created.id) : []),
    ]);
  },
});

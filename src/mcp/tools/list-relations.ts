import * as z from 'zod';
import * as S from '../../client/schemas.js';
import { ACTIVITIES, RELATIONS } from '../../client/enums.js';
import { UsageError } from '../../errors.js';
import { keyword, limited, output } from '../shapes.js';
import { defineTool, READ } from './tool.js';
import { resolveKeyword } from '../../ops/resolve.js';
import { LIMITS, rangeText } from '../../client/limits.js';

export const listRelations = defineTool({
  name: 'list_relations',
  title: 'Keyword relations',
  description: "One page of a keyword's relations (indications, assets, pipeline targets, sponsors); meta.total is the full count.",
  inputSchema: {
    keyword,
    relation: z.enum(RELATIONS),
    activity: z.enum(ACTIVITIES).optional().describe('required when relation is sponsors'),
    limit: limited(LIMITS.relationsLimit).optional().describe(rangeText(LIMITS.relationsLimit, '-')),
    offset: limited(LIMITS.relationsOffset).optional(),
  },
  outputSchema: output(S.RelationPage()),
  annotations: READ,
  narrowWith: ['limit'],
  run: async (a, x, kit) => {
    if (a.relation === 'sponsors' && !a.activity) throw new UsageError('activity is required when relation is sponsors');
    const c = await kit.api();
    const kw = await resolveKeyword(c, a.keyword, x.signal);
    return c.listRelations(kw.id, { relation: a.relation, activity: a.activity, limit: a.limit, offset: a.offset }, x.signal);
  },
});

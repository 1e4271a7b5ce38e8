import * as z from 'zod';
import * as S from '../../client/schemas.js';
import { output } from '../shapes.js';
import { defineTool, READ } from './tool.js';

export const searchKeywords = defineTool({
  name: 'search_keywords',
  title: 'Search keywords',
  description: 'Search scientific or commercial entities (targets, diseases, modalities, assets, sponsors) by name or synonym.',
  inputSchema: {
    query: z.string().describe('search text; an empty one returns nothing'),
    page: z.number().int().min(1).optional().describe('page, from 1'),
    limit: z.number().int().min(1).max(20).optional().describe('hits per page, 1-20 (default 10)'),
  },
  outputSchema: output(S.KeywordSearchPage()),
  annotations: READ,
  narrowWith: ['limit'],
  run: async (a, x, kit) =>
    (await kit.api()).searchKeywords({ q: a.query, ...(a.page ? { page: a.page } : {}), ...(a.limit ? { limit: a.limit } : {}) }, x.signal),
});

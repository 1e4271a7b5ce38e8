import * as z from 'zod';
import * as S from '../../client/schemas.js';
import { limited, output } from '../shapes.js';
import { defineTool, READ } from './tool.js';
import { LIMITS, rangeText } from '../../client/limits.js';

export const searchKeywords = defineTool({
  name: 'search_keywords',
  title: 'Search keywords',
  description: 'Search scientific or commercial entities (targets, diseases, modalities, assets, sponsors) by name or synonym.',
  inputSchema: {
    query: z.string().describe('search text; an empty one returns nothing'),
    page: limited(LIMITS.searchPage).optional().describe('page, from 1'),
    limit: limited(LIMITS.searchLimit)
      .optional()
      .describe(`hits per page, ${rangeText(LIMITS.searchLimit, '-')}`),
  },
  outputSchema: output(S.KeywordSearchPage()),
  annotations: READ,
  narrowWith: ['limit'],
  run: async (a, x, kit) =>
    (await kit.api()).searchKeywords({ q: a.query, ...(a.page ? { page: a.page } : {}), ...(a.limit ? { limit: a.limit } : {}) }, x.signal),
});

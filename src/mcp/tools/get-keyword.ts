import * as z from 'zod';
import * as S from '../../client/schemas.js';
import { keyword, output } from '../shapes.js';
import { defineTool, READ } from './tool.js';
import { resolveKeyword } from '../../ops/resolve.js';

export const getKeyword = defineTool({
  name: 'get_keyword',
  title: 'Keyword card',
  description: "A keyword's card: description, synonyms, activity counts (papers, patents, trials, assets) and six scores.",
  inputSchema: {
    keyword,
    // The spec does not list the section names: they pass through to the service, which judges them.
    include: z
      .array(z.string().min(1))
      .optional()
      .describe('extra sections to include, e.g. indications, assets, pipeline_targets, sponsors (the service decides which exist)'),
  },
  outputSchema: output(S.KeywordCard()),
  annotations: READ,
  narrowWith: ['include'],
  run: async (a, x, kit) => {
    const c = await kit.api();
    const kw = await resolveKeyword(c, a.keyword, x.signal);
    return c.getKeyword(kw.id, a.include?.length ? { include: a.include } : {}, x.signal);
  },
});

import * as z from 'zod';
import * as S from '../../client/schemas.js';
import { ANALYSIS_MODES } from '../../client/enums.js';
import { Reply } from '../ask.js';
import { limited, output, project } from '../shapes.js';
import { defineTool, READ } from './tool.js';
import { resolveProject } from '../../ops/resolve.js';
import { LIMITS, rangeText } from '../../client/limits.js';

export const listSignals = defineTool({
  name: 'list_signals',
  title: 'Project signals',
  description: "A project's discovery candidates, ranked by the analysis mode.",
  inputSchema: {
    project,
    // The spec leaves signal types open ("allowed values: not shown"): passed through.
    type: z.string().min(1).optional().describe('a signal type, e.g. target, disease, modality, mechanism'),
    analysis_mode: z.enum(ANALYSIS_MODES).optional(),
    limit: limited(LIMITS.signalsLimit).optional().describe(rangeText(LIMITS.signalsLimit, '-')),
  },
  outputSchema: output(S.SignalList()),
  annotations: READ,
  narrowWith: ['limit', 'type'],
  run: async (a, x, kit) => {
    const c = await kit.api();
    const p = await resolveProject(c, a.project, x.signal);
    const signals = await c.listSignals(p.id, { type: a.type, analysis_mode: a.analysis_mode, limit: a.limit }, x.signal);
    return new Reply(signals, undefined, undefined, kit.projectPage(c.baseUrl, p.id));
  },
});

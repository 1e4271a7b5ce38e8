import * as z from 'zod';
import type { ApiClient } from '../../client/client.js';
import * as S from '../../client/schemas.js';
import { ANALYSIS_MODES, TOP_TYPES } from '../../client/enums.js';
import { ConflictError, UsageError } from '../../errors.js';
import { analysesFingerprint, analysesQuestion, type Extra, offerPage } from '../ask.js';
import { Failure } from '../failure.js';
import { Confirmation, output, project } from '../shapes.js';
import { defineTool, type Kit, may, WRITE } from './tool.js';
import { confirmedBody, sendAnalyses } from '../../ops/analyses.js';
import { resolveProject } from '../../ops/resolve.js';

export const runAnalyses = defineTool({
  name: 'run_analyses',
  title: 'Run scoring analyses',
  description:
    'Starts scoring analyses for chosen signals or the top N of a type. When the service asks for confirmation, rsi asks the ' +
    'user itself if your client supports elicitation; otherwise nothing runs, the reply carries the question ' +
    '(needs_confirmation, assumption) and a repeat of exactly the same call with confirmed: true, after the user agreed, runs it.',
  inputSchema: {
    project,
    selections: z.array(z.object({ keyword_id: z.string().min(1), signal_keyword_id: z.string().min(1) })).optional(),
    top: z
      .object({
        type: z.enum(TOP_TYPES),
        limit: z.number().int().min(1).max(100),
        analysis_mode: z.enum(ANALYSIS_MODES).optional(),
        readiness: z.string().optional(),
        therapeutic_area: z.string().optional(),
      })
      .optional(),
    include_analysed: z.boolean().optional(),
    confirmed: z
      .boolean()
      .optional()
      .describe('true only when repeating, unchanged, a call whose question the user agreed to; a first call is always asked'),
  },
  outputSchema: output({ shape: { ...S.AnalysesResult().shape, rsi_confirmation: Confirmation.optional() } }),
  annotations: WRITE,
  narrowWith: ['top.limit', 'selections'],
  writes: true,
  listedWhen: (now) => may(now.api, 'analyses:run'),
  run: async (a, x, kit) => {
    if (!a.selections === !a.top) throw new UsageError('give either selections or top');
    const c = await kit.api();
    const p = await resolveProject(c, a.project, x.signal);
    // The request the question is about: everything but the claim of confirmation.
    const body: S.RunAnalysesBody = {
      ...(a.selections ? { selections: a.selections } : {}),
      ...(a.top ? { top: a.top } : {}),
      ...(a.include_analysed ? { include_analysed: true } : {}),
    };
    return kit
      .gate('run_analyses', { project: p.id, ...body }, a.confirmed, x, {
        first: async () => {
          const reply = await sendAnalyses(c, p, body, x.signal);
          return {
            asks: reply.needs_confirmation === true,
            value: reply,
            question: analysesQuestion(p.name, reply),
            fingerprint: analysesFingerprint(reply),
          };
        },
        confirmed: () => sendAnalyses(c, p, confirmedBody(body), x.signal),
      })
      .catch((error: unknown) => setupMissing(error, c, x, kit));
  },
});

/**
 * A 409 "finish scoring setup": the setup page as a resource link, and, where the client offers
 * URL-mode elicitation, the page offered to the person to open. The error stays an error: nothing
 * ran, and rsi cannot know when setup is finished.
 */
async function setupMissing(error: unknown, c: ApiClient, x: Extra, kit: Kit): Promise<never> {
  if (!(error instanceof ConflictError) || !error.setupUrl) throw error;
  const links = kit.page(error.setupUrl, c.baseUrl, { name: 'setup', title: 'Finish scoring setup (web application)' });
  if (links.length === 0) throw error;
  const answer = await offerPage(
    kit.server,
    "Scoring cannot start until the project's scoring setup is finished in the web application. Open the setup page to finish it, then ask the assistant to run the analyses again.",
    links[0]!.uri,
    x,
  );
  const note =
    answer === 'accept'
      ? 'The user was offered the setup page and accepted to open it. Call run_analyses again once they say setup is finished.'
      : answer === undefined
        ? 'Give the user the setup page (the resource link) to finish scoring setup, then call run_analyses again.'
        : `The user was offered the setup page and ${answer === 'decline' ? 'declined' : 'cancelled'}; do not retry until setup is finished.`;
  throw new Failure(error, note, links);
}

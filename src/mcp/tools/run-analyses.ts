import * as z from 'zod';
import type { ApiClient } from '../../client/client.js';
import * as S from '../../client/schemas.js';
import { ANALYSIS_MODES, TOP_TYPES } from '../../client/enums.js';
import { ConflictError, UsageError } from '../../errors.js';
import { analysesFingerprint, analysesQuestion, type Extra, offerPage } from '../ask.js';
import { Failure } from '../failure.js';
import { Confirmation, output, project } from '../shapes.js';
import { defineTool, holds, type Kit, WRITE } from './tool.js';
import { analysesWrite } from '../../ops/analyses.js';
import { resolveProject } from '../../ops/resolve.js';

export const runAnalyses = defineTool({
  name: 'run_analyses',
  title: 'Run scoring analyses',
  description:
    'Starts scoring analyses for chosen signals or the top N of a type. A person confirms: when the service asks for ' +
    'confirmation, rsi asks the user itself through form elicitation. A client without it gets a tool error with the rsi command ' +
    'the user can run, unless the server was started with --confirm-in-chat: then nothing runs, the reply carries the question, ' +
    'and a repeat of exactly the same call with confirmed: true, after the user agreed in the chat, runs it.',
  inputSchema: {
    project,
    selections: z.array(z.strictObject({ keyword_id: z.string().min(1), signal_keyword_id: z.string().min(1) })).optional(),
    top: z
      .strictObject({
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
      .describe(
        'only with a server started with --confirm-in-chat: true when repeating, unchanged, a call whose question the user agreed to; a first call is always asked',
      ),
  },
  outputSchema: output({ shape: { ...S.AnalysesResult().shape, rsi_confirmation: Confirmation.optional() } }),
  annotations: WRITE,
  narrowWith: ['top.limit', 'selections'],
  writes: true,
  listedWhen: (now) => holds(now.api, 'analyses:run'),
  run: async (a, x, kit) => {
    if (!a.selections === !a.top) throw new UsageError('give either selections or top');
    // Before anything is sent: can a person confirm here at all?
    kit.personCanConfirm('run_analyses', runCommand(a));
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
        write: analysesWrite(c, p, body),
        view: {
          question: (q) => analysesQuestion(p.name, q),
          fingerprint: analysesFingerprint,
          asked: (q) => q,
          done: (r) => ({ value: r }),
        },
        command: runCommand(a),
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

/** The same request as `rsi analyses run`, for a person to run at a terminal (words; gate.ts quotes them). */
function runCommand(a: {
  project: string;
  selections?: Array<{ keyword_id: string; signal_keyword_id: string }> | undefined;
  top?:
    | {
        type: string;
        limit: number;
        analysis_mode?: string | undefined;
        readiness?: string | undefined;
        therapeutic_area?: string | undefined;
      }
    | undefined;
  include_analysed?: boolean | undefined;
}): string[] {
  const words = ['rsi', 'analyses', 'run'];
  for (const s of a.selections ?? []) words.push('--select', `${s.keyword_id}:${s.signal_keyword_id}`);
  if (a.top) {
    words.push('--top', String(a.top.limit), '--type', a.top.type);
    if (a.top.analysis_mode) words.push('--analysis-mode', a.top.analysis_mode);
    if (a.top.readiness) words.push('--readiness', a.top.readiness);
    if (a.top.therapeutic_area) words.push('--therapeutic-area', a.top.therapeutic_area);
  }
  if (a.include_analysed) words.push('--include-analysed');
  // A name that starts with a dash is no option: after `--`.
  return [...words, ...(a.project.startsWith('-') ? ['--'] : []), a.project];
}

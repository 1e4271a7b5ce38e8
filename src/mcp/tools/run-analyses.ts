import * as z from 'zod';
import type { ApiClient } from '../../client/client.js';
import * as S from '../../client/schemas.js';
import { ANALYSIS_MODES, TOP_TYPES } from '../../client/enums.js';
import { ConflictError, UsageError } from '../../errors.js';
import { analysesFingerprint, analysesQuestion, type Extra, offerPage, said, willSend } from '../ask.js';
import { canonical } from '../confirm.js';
import { Failure } from '../failure.js';
import { Confirmation, limited, output, project } from '../shapes.js';
import { defineTool, holds, type Kit, WRITE } from './tool.js';
import { analysesWrite, confirmedBody, listProjectSignals } from '../../ops/analyses.js';
import { type ResolvedProject, resolveProject } from '../../ops/resolve.js';
import { LIMITS } from '../../client/limits.js';

export const runAnalyses = defineTool({
  name: 'run_analyses',
  title: 'Run scoring analyses',
  description:
    'Starts scoring analyses for chosen signals or the top N of a type. A person confirms every run before anything is sent, ' +
    'shown exactly what will be sent, and again when the service asks which signals it means: rsi asks the user itself through ' +
    'elicitation (a form, or its own page for a client with URL mode only). A client without it gets a tool error with the rsi command the user can run, unless the server was ' +
    'started with --confirm-in-chat: then nothing runs, the reply carries the question, and a repeat of exactly the same call ' +
    'with confirmed: true, after the user agreed in the chat, answers it (the next question, if any, comes back the same way).',
  inputSchema: {
    project,
    selections: z.array(z.strictObject({ keyword_id: z.string().min(1), signal_keyword_id: z.string().min(1) })).optional(),
    top: z
      .strictObject({
        type: z.enum(TOP_TYPES),
        limit: limited(LIMITS.topLimit),
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
    // The request the question is about: everything but the claim of confirmation.
    const body: S.RunAnalysesBody = {
      ...(a.selections ? { selections: a.selections } : {}),
      ...(a.top ? { top: a.top } : {}),
      ...(a.include_analysed ? { include_analysed: true } : {}),
    };
    // The chat's book knows the request by the project's id (a name and the id it means are the same
    // request); the plan resolves the name again, and its key tells when it came to mean another.
    const p = await resolveProject(c, a.project, x.signal);
    return kit
      .gate('run_analyses', { project: p.id, ...body }, a.confirmed, x, {
        write: {
          plan: async (signal) => ({ asks: true, question: await runPlan(c, a.project, body, signal) }),
          send: (plan, signal) => analysesWrite(c, plan.project, body).first(signal),
          confirmed: (plan, question, signal) => analysesWrite(c, plan.project, body).confirmed(question, signal),
          planKey: (plan) => canonical({ project: plan.project.id, body, names: plan.names }),
          questionKey: analysesFingerprint,
        },
        view: {
          request: runQuestion,
          question: (q, plan) =>
            `${analysesQuestion(plan.project.name, q)} ${willSend('the same request, confirmed', confirmedBody(body))}`,
          asked: (step) => (step.stage === 'service' ? step.question : { project: step.plan.project.id, ...body }),
          done: (r) => ({ value: r }),
        },
        command: runCommand(a),
      })
      .catch((error: unknown) => setupMissing(error, c, x, kit));
  },
});

/** What a run would send, read (never written): the project the name means now, and the selected signals' names. */
interface RunPlan {
  project: ResolvedProject;
  body: S.RunAnalysesBody;
  /** Each selection's signal name (empty when the project lists no such signal). */
  names: string[];
}

async function runPlan(c: ApiClient, project: string, body: S.RunAnalysesBody, signal: AbortSignal | undefined): Promise<RunPlan> {
  const p = await resolveProject(c, project, signal);
  if (!body.selections?.length) return { project: p, body, names: [] };
  const signals = await listProjectSignals(c, p.id, signal);
  const names = body.selections.map(
    (s) => signals.find((g) => g.keyword_id === s.keyword_id && g.signal_keyword_id === s.signal_keyword_id)?.name ?? '',
  );
  return { project: p, body, names };
}

/** The question about the request itself, before anything is sent: what it asks for, and the body, exactly. */
function runQuestion(plan: RunPlan): string {
  const { project: p, body } = plan;
  const where = `in the project "${said(p.name, 120)}"${p.name === p.id ? '' : ` (${p.id})`}`;
  let what: string;
  if (body.top) {
    const t = body.top;
    const extras = [
      ...(t.analysis_mode ? [`ranked by ${t.analysis_mode}`] : []),
      ...(t.readiness !== undefined ? [`readiness "${said(t.readiness, 80)}"`] : []),
      ...(t.therapeutic_area !== undefined ? [`therapeutic area "${said(t.therapeutic_area, 80)}"`] : []),
    ];
    what = `for the top ${t.limit} ${t.type} signal${t.limit === 1 ? '' : 's'}${extras.length ? ` (${extras.join(', ')})` : ''}`;
  } else {
    const shown = (body.selections ?? []).map((s, i) => {
      const name = plan.names[i];
      return name
        ? `${said(name, 80)} (${s.keyword_id}:${s.signal_keyword_id})`
        : `${s.keyword_id}:${s.signal_keyword_id} (not among the project's signals)`;
    });
    what = `for ${shown.length} selected signal${shown.length === 1 ? '' : 's'}: ${shown.join(', ')}`;
  }
  const analysed = body.include_analysed ? ', including signals already analysed' : '';
  const then = body.top ? ' If the service then asks which signals that means, you are asked again.' : '';
  return `Start scoring analyses ${where} ${what}${analysed}? ${willSend(`POST /projects/${p.id}/analyses with`, body)}.${then}`;
}

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

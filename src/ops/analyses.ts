/**
 * Running scoring analyses, for both front-ends: turning signal names into ids, the one POST (sent
 * once; a lost reply read back, src/ops/writes.ts), the plan a confirmation question states, and the confirm-then-resend rule. Whether and
 * how a person is asked is the front-end's (the `confirm` port): a terminal prompt or --yes for
 * `rsi analyses run`, an elicitation or a repeated call for the MCP tool.
 */
import type { ApiClient } from '../client/client.js';
import { isUuid } from '../client/ids.js';
import type { AnalysesResult, RunAnalysesBody, Selection, Signal } from '../client/schemas.js';
import { conflictError } from '../client/client.js';
import { AmbiguousNameError, ConflictError, UnexpectedReplyError } from '../errors.js';
import { shellCommand, suggest } from '../io/text.js';
import { type ConfirmableWrite, confirmThenSend } from './confirm.js';
import { analysesReadBack, type ReadBack, sendOnce, type WritePorts } from './writes.js';
import type { Resolved } from './resolve.js';

/** The part of the API client running analyses uses. */
export type AnalysesApi = Pick<ApiClient, 'runAnalyses' | 'listSignals'>;

/** The project's signals (up to the API's most, 500), to turn names into ids and to offer them. */
export async function listProjectSignals(
  client: Pick<ApiClient, 'listSignals'>,
  projectId: string,
  signal?: AbortSignal,
): Promise<Signal[]> {
  return (await client.listSignals(projectId, { limit: 500 }, signal)).signals;
}

/**
 * `--select NAME` and `--select KEYWORD_ID:NAME`: a name (or id) matched against the project's
 * signals, case-insensitive. Ids that match as given, and names that match nothing while the other
 * side is an id, are sent as given: the service is the judge of ids. A selection's empty
 * `keyword_id` means "any".
 */
export async function resolveSelectNames(
  selections: Selection[],
  client: Pick<ApiClient, 'listSignals'>,
  project: Resolved,
  signal?: AbortSignal,
): Promise<Selection[]> {
  const needs = selections.filter((s) => s.keyword_id === '' || !isUuid(s.signal_keyword_id));
  if (needs.length === 0) return selections;
  const signals = await listProjectSignals(client, project.id, signal);
  return selections.map((s) => {
    if (s.keyword_id !== '' && isUuid(s.signal_keyword_id)) return s;
    const wanted = s.signal_keyword_id.toLowerCase();
    const matches = signals.filter(
      (g) =>
        (s.keyword_id === '' || g.keyword_id === s.keyword_id) &&
        (g.signal_keyword_id.toLowerCase() === wanted || (g.name ?? '').toLowerCase() === wanted),
    );
    if (matches.length === 1) return { keyword_id: matches[0]!.keyword_id, signal_keyword_id: matches[0]!.signal_keyword_id };
    if (s.keyword_id !== '' && matches.length === 0) return s;
    const shown = (matches.length ? matches : signals.slice(0, 8)).map((g) => `${g.keyword_id}:${g.signal_keyword_id}  ${g.name ?? ''}`);
    throw new AmbiguousNameError(
      matches.length
        ? `--select ${s.signal_keyword_id} matches ${matches.length} signals of "${project.name}"`
        : `--select ${s.signal_keyword_id}: no signal of "${project.name}" has that name`,
      shown,
      {
        hint: matches.length
          ? `say which: ${matches.map((g) => shellCommand(['--select', `${g.keyword_id}:${g.signal_keyword_id}`])).join(' or ')}`
          : `list them with ${suggest(['rsi', 'signals', project.name])}`,
      },
    );
  });
}

/**
 * One POST, sent once: a lost reply is read back against the project's status (src/ops/writes.ts),
 * so the error says whether it ran. A conflict names the project as the person named it.
 */
export async function sendAnalyses(
  client: Pick<ApiClient, 'runAnalyses'>,
  project: Resolved,
  body: RunAnalysesBody,
  back: ReadBack<AnalysesResult>,
  ports: WritePorts = {},
): Promise<AnalysesResult> {
  try {
    return await sendOnce((signal, onSent) => client.runAnalyses(project.id, body, signal, onSent), back, ports);
  } catch (error) {
    // The client knows the project by id; the person named it: the same facts, with its name.
    if (error instanceof ConflictError && error.facts?.project && project.name !== project.id && error.facts.project.name === undefined) {
      throw conflictError({ ...error.facts, project: { ...error.facts.project, name: project.name } });
    }
    throw error;
  }
}

/** The same request, now confirmed (the body and, for a top-N request, its `top` too). */
export function confirmedBody(body: RunAnalysesBody): RunAnalysesBody {
  return { ...body, confirmed: true, ...(body.top ? { top: { ...body.top, confirmed: true } } : {}) };
}

/**
 * How many analyses the service will run if confirmed, and where its own numbers disagree. The
 * service acts on `limit` (capped by `available` when both are given); the signals it lists may be
 * a preview of fewer or a different count. The question states the number acted on, never the
 * length of the preview, and names every number that differs from it (issue 20: "Run 1
 * analysis?" was asked while the service would use limit 100).
 */
export function confirmPlan(result: AnalysesResult): { count: number | undefined; differs: string[] } {
  const listed = result.signals?.length ?? 0;
  const { limit, available } = result;
  const count =
    limit !== undefined && available !== undefined ? Math.min(limit, available) : (limit ?? available ?? (listed > 0 ? listed : undefined));
  const differs: string[] = [];
  if (count !== undefined) {
    // More available than the limit is the normal case, not a disagreement; fewer is.
    if (limit !== undefined && limit !== count) differs.push(`limit ${limit}, but only ${available} available`);
    if (listed > 0 && listed !== count) differs.push(`${listed} listed below`);
  }
  return { count, differs };
}

export type RunOutcome =
  /** Sent (confirmed when the service asked); `result` is the reply that started the runs. */
  | { outcome: 'started'; result: AnalysesResult; confirmed: boolean }
  /** The service asked, the person said no: nothing ran; `result` is the question's reply. */
  | { outcome: 'declined'; result: AnalysesResult };

/**
 * Running analyses as the confirmation pair of ./confirm.ts: the first POST without `confirmed`
 * (a `needs_confirmation` reply is the question, and nothing ran), then the same body confirmed.
 * A second question after `confirmed: true` is the service's fault: nothing ran. Before the first
 * POST the project's status is read, so that a lost reply can be read back (src/ops/writes.ts).
 */
export function analysesWrite(
  client: Pick<ApiClient, 'runAnalyses' | 'getProjectStatus'>,
  project: Resolved,
  body: RunAnalysesBody,
  ports: WritePorts = {},
): ConfirmableWrite<AnalysesResult, AnalysesResult> {
  const readBack = analysesReadBack(client, project);
  const send = async (sent: RunAnalysesBody, signal: AbortSignal | undefined) => {
    const given = { ...ports, signal: signal ?? ports.signal };
    given.step?.(`the status of "${project.name}" (read before the request, to read back a lost reply)`);
    await readBack.baseline(given.signal);
    return sendAnalyses(client, project, sent, readBack.back(sent), given);
  };
  return {
    async first(signal) {
      const reply = await send(body, signal);
      return reply.needs_confirmation ? { asks: true, question: reply } : { asks: false, result: reply };
    },
    async confirmed(_question, signal) {
      const result = await send(confirmedBody(body), signal);
      if (result.needs_confirmation) {
        throw new UnexpectedReplyError('the service asked for confirmation again after confirmed: true; nothing was run');
      }
      return result;
    },
  };
}

/**
 * Sends the request; when the service asks for confirmation, asks through `confirm` (which may
 * throw when nobody can answer) and, on a yes, sends it again confirmed (analysesWrite's checks).
 */
export async function runAnalyses(
  client: Pick<ApiClient, 'runAnalyses' | 'getProjectStatus'>,
  project: Resolved,
  body: RunAnalysesBody,
  ports: WritePorts & { confirm(question: AnalysesResult): Promise<boolean> },
): Promise<RunOutcome> {
  const outcome = await confirmThenSend(analysesWrite(client, project, body, ports), ports.confirm, ports.signal);
  return outcome.outcome === 'declined'
    ? { outcome: 'declined', result: outcome.question }
    : { outcome: 'started', result: outcome.result, confirmed: outcome.confirmed };
}

/**
 * The signals' names by signal keyword id, for a table of what was started or skipped: people read
 * names, and the ids stay beside them. Best effort: without the list the map is empty (an abort
 * still ends it).
 */
export async function signalNames(
  client: Pick<ApiClient, 'listSignals'>,
  projectId: string,
  result: AnalysesResult,
  signal: AbortSignal,
): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  if ((result.runs?.length ?? 0) + (result.skipped?.length ?? 0) === 0) return names;
  try {
    for (const s of await listProjectSignals(client, projectId, signal)) if (s.name) names.set(s.signal_keyword_id, s.name);
  } catch (error) {
    if (signal.aborted) throw error;
  }
  return names;
}

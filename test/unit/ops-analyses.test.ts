// Running analyses with confirmation (src/ops/analyses.ts): the one POST and its error rewording,
// the confirm-then-resend rule, and the best-effort signal names. The asking is a fake port.
import { describe, expect, it } from 'vitest';
import { type ApiClient, conflictError } from '../../src/client/client.js';
import type { AnalysesResult, RunAnalysesBody } from '../../src/client/schemas.js';
import { ConflictError, ServiceUnavailableError, UnexpectedReplyError } from '../../src/errors.js';
import { confirmedBody, runAnalyses, sendAnalyses, signalNames } from '../../src/ops/analyses.js';
import { analysesReadBack } from '../../src/ops/writes.js';
import { fakeClient } from '../support/commands.js';

const P = '11111111-1111-4111-8111-111111111111';
const project = { id: P, name: 'Oncology watch' };
const never = new AbortController().signal;
const started: AnalysesResult = { runs: [{ id: 'r1', keyword_id: 'k1', kind: 'score' }], skipped: [] } as AnalysesResult;
const question: AnalysesResult = { needs_confirmation: true, assumption: 'top 2 targets', limit: 2, available: 5 } as AnalysesResult;

function replying(...replies: AnalysesResult[]) {
  const bodies: RunAnalysesBody[] = [];
  const { client } = fakeClient({
    runAnalyses: async (_id: string, body: RunAnalysesBody) => {
      bodies.push(body);
      return replies.shift()!;
    },
    // Read once before the first POST, to read a lost reply back (src/ops/writes.ts).
    getProjectStatus: async () => ({ signals_ready: true, scoring: 'not_started', summary: '', next: 'run_analyses', analyses: [] }),
  });
  return { client: client as ApiClient, bodies };
}

describe('ops/analyses: runAnalyses', () => {
  const top: RunAnalysesBody = { top: { type: 'target', limit: 2 } };

  it('sends once and never asks when the service does not', async () => {
    const { client, bodies } = replying(started);
    const asked: AnalysesResult[] = [];
    const outcome = await runAnalyses(client, project, top, { signal: never, confirm: async (q) => (asked.push(q), true) });
    expect(outcome).toEqual({ outcome: 'started', result: started, confirmed: false });
    expect(asked).toEqual([]);
    expect(bodies).toEqual([top]);
  });

  it('asks, and on a yes sends the same request confirmed (the top too)', async () => {
    const { client, bodies } = replying(question, started);
    const outcome = await runAnalyses(client, project, top, { signal: never, confirm: async (q) => q === question });
    expect(outcome).toEqual({ outcome: 'started', result: started, confirmed: true });
    expect(bodies).toEqual([top, { top: { type: 'target', limit: 2, confirmed: true }, confirmed: true }]);
  });

  it('sends nothing more on a no, and lets an asking that cannot ask throw', async () => {
    const { client, bodies } = replying(question);
    expect(await runAnalyses(client, project, top, { signal: never, confirm: async () => false })).toEqual({
      outcome: 'declined',
      result: question,
    });
    expect(bodies).toHaveLength(1);
    const nobody = new Error('nobody to ask');
    const again = replying(question);
    await expect(runAnalyses(again.client, project, top, { confirm: async () => Promise.reject(nobody) })).rejects.toBe(nobody);
  });

  it('refuses a second question after confirmed: true', async () => {
    const { client } = replying(question, question);
    await expect(runAnalyses(client, project, top, { confirm: async () => true })).rejects.toBeInstanceOf(UnexpectedReplyError);
  });

  it('confirmedBody leaves a selections request without a top', () => {
    const body = { selections: [{ keyword_id: 'k', signal_keyword_id: 's' }] };
    expect(confirmedBody(body)).toEqual({ ...body, confirmed: true });
  });
});

describe('ops/analyses: sendAnalyses', () => {
  const back = analysesReadBack(fakeClient({}).client as ApiClient, project).back({});

  it('keeps a 504 as the client said it: the spec says no run was recorded, so nothing is read back', async () => {
    const gateway = new ServiceUnavailableError('nothing was recorded', 504);
    const { client, calls } = fakeClient({
      runAnalyses: async (_p: string, _b: unknown, _s: unknown, onSent: () => void) => {
        onSent();
        throw gateway;
      },
    });
    await expect(sendAnalyses(client as ApiClient, project, {}, back, { signal: never })).rejects.toBe(gateway);
    expect(calls.map((c) => c.method)).toEqual(['runAnalyses']);
  });

  it("names the project as the person did in a 409 hint, from the conflict's facts (no text rewritten)", async () => {
    const conflict = conflictError({ text: 'selection not in the scan', what: 'POST /x', reason: 'selection', project: { id: P } });
    expect(conflict.hint).toContain(`rsi signals ${P}`);
    const { client } = fakeClient({ runAnalyses: async () => Promise.reject(conflict) });
    const err = await sendAnalyses(client as ApiClient, project, {}, back, { signal: never }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConflictError);
    expect((err as ConflictError).hint).toBe(
      'the selection must match a finished scan: check the finished scan\'s signals with `rsi signals "Oncology watch"`',
    );
    expect((err as ConflictError).facts?.project).toEqual({ id: P, name: 'Oncology watch' });
  });
});

describe('ops/analyses: signalNames', () => {
  it('maps signal keyword ids to names, and is empty when the list fails', async () => {
    const { client } = fakeClient({
      listSignals: async () => ({ signals: [{ keyword_id: 'k1', signal_keyword_id: 's1', name: 'KRAS' }] }),
    });
    expect(await signalNames(client as ApiClient, P, started, never)).toEqual(new Map([['s1', 'KRAS']]));
    const { client: broken } = fakeClient({ listSignals: async () => Promise.reject(new ServiceUnavailableError('down')) });
    expect(await signalNames(broken as ApiClient, P, started, never)).toEqual(new Map());
  });

  it('does not list signals for a reply that started and skipped nothing', async () => {
    const { client, calls } = fakeClient({});
    expect(await signalNames(client as ApiClient, P, { runs: [], skipped: [] } as AnalysesResult, never)).toEqual(new Map());
    expect(calls).toEqual([]);
  });
});

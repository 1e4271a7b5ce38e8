import { describe, expect, it } from 'vitest';
import { Command } from 'commander';
import { build, run, type AnalysesRunOptions } from '../../src/commands/analyses/run/run.js';
import { parseSelectionsJson } from '../../src/commands/analyses/run/selections.js';
import { ApiClient } from '../../src/client/client.js';
import type { AnalysesResult as AnalysesReply, RunAnalysesBody } from '../../src/client/schemas.js';
import { fakeCtx, fakeIo } from '../support/fakes.js';
import { ScriptedPrompter } from '../support/prompter.js';
import { fakeClient } from '../support/commands.js';
import { DeclinedError } from '../../src/errors.js';
import {
  AnalysisFailedError,
  ConfirmationRequiredError,
  ConflictError,
  ServiceUnavailableError,
  UnexpectedReplyError,
  UsageError,
  WriteOutcomeError,
} from '../../src/errors.js';
import type { ProjectStatus } from '../../src/client/schemas.js';

const PROJECT = { id: '11111111-1111-4111-8111-111111111111', name: 'KRAS inhibitors' };
const CONFIRM: AnalysesReply = {
  needs_confirmation: true,
  assumption: 'Top 3 target signals by rank',
  available: 12,
  limit: 3,
  signals: [
    { name: 'KRAS', type: 'target', signal_keyword_id: 's1' },
    { name: 'SOS1', type: 'target' },
    { name: 'SHP2', type: 'target' },
  ],
  runs: [],
  skipped: [],
};
const STARTED: AnalysesReply = {
  needs_confirmation: false,
  runs: [
    { id: 'r1', keyword_id: 'k1', kind: 'target' },
    { id: 'r2', keyword_id: 'k2', kind: 'target' },
  ],
  skipped: [{ keyword_id: 'k3', signal_keyword_id: 's3', reason: 'already analysed' }],
};

/** A client that answers runAnalyses from a script and records the bodies sent. */
function fakePort(replies: Array<AnalysesReply | Error>, statuses: ProjectStatus[] = []) {
  const bodies: RunAnalysesBody[] = [];
  let s = 0;
  let baselined = false;
  const { client } = fakeClient({
    listProjects: async () => ({ projects: [{ ...PROJECT, role: 'owner' }] }),
    // No signals to match: `--select k:s` is sent as given, tables show ids alone.
    listSignals: async () => ({ signals: [] }),
    setupUrl: () => undefined,
    runAnalyses: async (id: string, body: RunAnalysesBody) => {
      expect(id).toBe(PROJECT.id);
      bodies.push(structuredClone(body));
      const r = replies.shift();
      if (r === undefined) throw new Error('unexpected POST');
      if (r instanceof Error) throw r;
      return r;
    },
    // The first read is the one before the POST (the read-back's baseline, src/ops/writes.ts);
    // the watch's polls come after it.
    getProjectStatus: async () => {
      if (!baselined) {
        baselined = true;
        return { signals_ready: true, scoring: 'not_started', summary: '', next: 'run_analyses', analyses: [] };
      }
      return statuses[Math.min(s++, statuses.length - 1)]!;
    },
  });
  return { client, bodies };
}

/** The error the real client makes of an HTTP status from POST /projects/{id}/analyses. */
function realError(status: number, error: string): Error {
  const http = { apiBase: 'http://127.0.0.1:1/api/v1', request: async () => undefined as never, close: async () => undefined };
  const res = { status, headers: {}, text: JSON.stringify({ error }), json: { error }, isJson: true };
  return new ApiClient(http).errorFor(res, `POST /projects/${PROJECT.id}/analyses`, { projectId: PROJECT.id });
}

const TOP: Partial<AnalysesRunOptions> = { top: { type: 'target', limit: 3 } };
function options(extra: Partial<AnalysesRunOptions> = {}): AnalysesRunOptions {
  return {
    project: 'KRAS inhibitors',
    select: [],
    selectionsFrom: undefined,
    top: undefined,
    includeAnalysed: false,
    yes: false,
    wait: undefined,
    ...extra,
  };
}

describe('analyses run: flags', () => {
  async function parse(args: string[], project = 'KRAS inhibitors') {
    let captured: AnalysesRunOptions | undefined;
    const cmd = build(fakeCtx(fakeIo(false), 'tsv'), async (o) => void (captured = o));
    cmd.exitOverride().configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
    await new Command('x').addCommand(cmd).parseAsync(['run', project, ...args], { from: 'user' });
    return captured!;
  }

  it('collects repeated --select and the top fields', async () => {
    expect((await parse(['--select', 'k1:s1', '--select', 'k2:s2'])).select).toEqual([
      { keyword_id: 'k1', signal_keyword_id: 's1' },
      { keyword_id: 'k2', signal_keyword_id: 's2' },
    ]);
    const o = await parse([
      '--top',
      '5',
      '--type',
      'disease',
      '--analysis-mode',
      'novel_signal_scout',
      '--readiness',
      'high',
      '--therapeutic-area',
      'oncology',
      '--include-analysed',
      '--yes',
      '--wait',
      '--interval',
      '0.5',
    ]);
    expect(o.top).toEqual({
      type: 'disease',
      limit: 5,
      analysis_mode: 'novel_signal_scout',
      readiness: 'high',
      therapeutic_area: 'oncology',
    });
    // The wait's bound is the command's --timeout, an hour when none was given (src/context/deadline.ts).
    expect(o).toMatchObject({ includeAnalysed: true, yes: true, wait: { intervalMs: 500, timeoutMs: 3_600_000 } });
  });

  it.each([
    [[], /say what to analyse/],
    [['--top', '5'], /--top needs --type/],
    [['--type', 'target'], /--type needs --top/],
    [['--top', '0', '--type', 'target'], /--top must be a whole number from 1 to 100/],
    [['--top', '101', '--type', 'target'], /from 1 to 100/],
    [['--top', '2.5', '--type', 'target'], /from 1 to 100/],
    [['--top', '5', '--type', 'gene'], /--type must be one of target, disease, modality, mechanism/],
    [['--top', '5', '--type', 'target', '--analysis-mode', 'fast'], /--analysis-mode must be one of/],
    [['--top', '5', '--type', 'target', '--select', 'a:b'], /cannot be combined/],
    [['--selections', '-', '--top', '5', '--type', 'target'], /cannot be combined/],
    [['--select', 'a:b', '--readiness', 'x'], /--readiness only applies with --top/],
    [['--select', ':b'], /--select must be KEYWORD_ID:SIGNAL_KEYWORD_ID/],
    [['--select', 'a:b:c'], /--select must be/],
    [['--select', 'a:b', '--interval', '5'], /--interval only applies with --wait/],
    [['--select', 'a:b', '--wait', '--interval', '0'], /--interval must be a number of seconds from 0.1/],
  ])('%j is a usage error', async (args, message) => {
    const error = await parse(args as string[]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(message);
  });

  it('rejects an empty project', async () => {
    await expect(parse(['--select', 'a:b'], ' ')).rejects.toThrow(new UsageError('<project> must not be empty'));
  });
});

describe('analyses run: --selections JSON', () => {
  const signalList = {
    analysis_mode: 'most_promising',
    analysis_mode_label: 'Most promising',
    filter: '',
    total: 2,
    unanalysed_total: 2,
    signals: [
      { keyword_id: 'k1', signal_keyword_id: 's1', name: 'A', type: 'target', analysed: false },
      { keyword_id: 'k2', signal_keyword_id: 's2', name: null, type: 'target', analysed: false },
    ],
  };
  const expected = [
    { keyword_id: 'k1', signal_keyword_id: 's1' },
    { keyword_id: 'k2', signal_keyword_id: 's2' },
  ];

  it('accepts an array of selections, Signal objects, a SignalList or a RunAnalyses body', () => {
    expect(parseSelectionsJson(JSON.stringify(expected), '-')).toEqual(expected);
    expect(parseSelectionsJson(JSON.stringify(signalList.signals), '-')).toEqual(expected);
    expect(parseSelectionsJson(JSON.stringify(signalList), '-')).toEqual(expected);
    expect(parseSelectionsJson(JSON.stringify({ selections: expected }), 'f.json')).toEqual(expected);
  });

  it('rejects what is not a selection list', () => {
    expect(() => parseSelectionsJson('nope', '-')).toThrow(/stdin is not valid JSON/);
    expect(() => parseSelectionsJson('{"a":1}', 'f.json')).toThrow(/f.json must hold an array/);
    expect(() => parseSelectionsJson('[{"keyword_id":"k"}]', '-')).toThrow(/item 0 .* needs string keyword_id and signal_keyword_id/);
  });

  it('sends selections from stdin merged with --select, without duplicates', async () => {
    const io = fakeIo(false);
    const { client, bodies } = fakePort([STARTED]);
    io.stdinStream.end(JSON.stringify(signalList));
    await run(
      options({ select: [{ keyword_id: 'k1', signal_keyword_id: 's1' }], selectionsFrom: '-' }),
      fakeCtx(io, { format: 'tsv', client }),
    );
    expect(bodies).toEqual([{ selections: expected }]);
  });

  it('an empty list is a usage error and sends nothing', async () => {
    const { client, bodies } = fakePort([]);
    const io = fakeIo(false);
    io.stdinStream.end('[]');
    await expect(run(options({ selectionsFrom: '-' }), fakeCtx(io, { format: 'tsv', client }))).rejects.toThrow(/holds no selections/);
    expect(bodies).toEqual([]);
  });
});

describe('analyses run: confirmation', () => {
  it('on a terminal asks, and yes re-sends the same body with confirmed: true', async () => {
    const io = fakeIo(true);
    const { client, bodies } = fakePort([CONFIRM, STARTED]);
    const prompter = new ScriptedPrompter([{ question: 'Run 3 analyses for "KRAS inhibitors"?', answer: true }]);
    await run(options({ ...TOP, includeAnalysed: true }), fakeCtx(io, { format: 'table', client, prompter }));
    prompter.assertDone();
    expect(bodies).toEqual([
      { top: { type: 'target', limit: 3, include_analysed: true }, include_analysed: true },
      { top: { type: 'target', limit: 3, include_analysed: true, confirmed: true }, include_analysed: true, confirmed: true },
    ]);
    expect(io.err()).toContain('Top 3 target signals by rank');
    expect(io.err()).toContain('12 available, limit 3');
    expect(io.err()).toMatch(/1\s+KRAS\s+target\s+s1/);
    expect(io.err()).toContain('✓ Started 2 analyses for "KRAS inhibitors"');
    // skipped is data: on stdout, under the runs (docs/scripting.md, "Formats")
    expect(io.out()).toMatch(/KIND\s+KEYWORD ID\s+RUN ID\ntarget\s+k1\s+r1\ntarget\s+k2\s+r2\n/);
    expect(io.out()).toMatch(/skipped\nREASON\s+KEYWORD ID\s+SIGNAL KEYWORD ID\nalready analysed\s+k3\s+s3\n/);
  });

  it('no sends nothing more and is exit 7, "declined: nothing was run" (a script chaining on && stops)', async () => {
    const io = fakeIo(true);
    const { client, bodies } = fakePort([CONFIRM]);
    const prompter = new ScriptedPrompter([{ question: /^Run 3 analyses/, answer: false }]);
    const error = await run(options(TOP), fakeCtx(io, { format: 'table', client, prompter })).catch((e: unknown) => e);
    prompter.assertDone();
    expect(error).toBeInstanceOf(DeclinedError);
    expect((error as DeclinedError).exitCode).toBe(7);
    expect((error as DeclinedError).message).toBe('declined: nothing was run');
    expect(bodies).toHaveLength(1);
    expect(io.out()).toBe('');
  });

  it('--yes confirms without asking', async () => {
    const io = fakeIo(true);
    const { client, bodies } = fakePort([CONFIRM, STARTED]);
    await run(options({ ...TOP, yes: true }), fakeCtx(io, { format: 'json', client, prompter: new ScriptedPrompter() }));
    expect(bodies[1]).toEqual({ top: { type: 'target', limit: 3, confirmed: true }, confirmed: true });
    expect(JSON.parse(io.out())).toEqual(STARTED);
  });

  it('without a terminal and without --yes: exit 7, the reply on stdout with --json, nothing run', async () => {
    const io = fakeIo(false);
    const { client, bodies } = fakePort([CONFIRM]);
    const error = await run(options(TOP), fakeCtx(io, { format: 'json', client, prompter: new ScriptedPrompter() })).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConfirmationRequiredError);
    expect((error as ConfirmationRequiredError).hint).toContain('--yes');
    expect(bodies).toHaveLength(1);
    expect(JSON.parse(io.out())).toEqual(CONFIRM);
  });

  it('does not prompt when stdin carried the selections, even on a terminal', async () => {
    // stdout and stderr are the terminal; stdin is the pipe that carried the selections.
    const io = fakeIo({ tty: true, stdinTTY: false });
    const { client } = fakePort([CONFIRM]);
    io.stdinStream.end('[{"keyword_id":"k","signal_keyword_id":"s"}]');
    const error = await run(
      options({ selectionsFrom: '-' }),
      fakeCtx(io, { format: 'table', client, prompter: new ScriptedPrompter() }),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfirmationRequiredError);
    expect((error as ConfirmationRequiredError).hint).toContain('stdin');
  });

  it('a second needs_confirmation after confirmed: true is an unexpected reply', async () => {
    const { client } = fakePort([CONFIRM, CONFIRM]);
    await expect(run(options({ ...TOP, yes: true }), fakeCtx(fakeIo(false), { format: 'tsv', client }))).rejects.toBeInstanceOf(
      UnexpectedReplyError,
    );
  });
});

describe('analyses run: errors', () => {
  it('504: says no run was recorded and that running again is safe', async () => {
    const { client, bodies } = fakePort([realError(504, 'gateway timeout')]);
    const error = (await run(options(TOP), fakeCtx(fakeIo(false), { format: 'tsv', client })).catch(
      (e: unknown) => e,
    )) as ServiceUnavailableError;
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect(error.message).toContain('no run was recorded');
    expect(error.hint).toContain('again is safe');
    expect(bodies).toHaveLength(1);
  });

  it('a failure after the request went out, with a read-back that fails too: unknown, exit 8, the command that checks', async () => {
    const { client } = fakePort([new ServiceUnavailableError('request timed out')]);
    // The request left (the network says so through onSent), then its reply was lost.
    const sending = new Proxy(client, {
      get: (target, name) =>
        name === 'runAnalyses'
          ? async (id: string, body: RunAnalysesBody, signal: AbortSignal, onSent: () => void) => {
              onSent();
              return (target.runAnalyses as NonNullable<typeof target.runAnalyses>)(id, body, signal);
            }
          : name === 'getProjectStatus'
            ? async () => Promise.reject(new ServiceUnavailableError('still down'))
            : target[name as keyof typeof target],
    });
    const error = (await run(options(TOP), fakeCtx(fakeIo(false), { format: 'tsv', client: sending })).catch(
      (e: unknown) => e,
    )) as WriteOutcomeError;
    expect(error).toBeInstanceOf(WriteOutcomeError);
    expect(error).toMatchObject({ outcome: 'unknown', exitCode: 8 });
    expect(error.message).toContain('whether the start of the analyses for "KRAS inhibitors" happened is unknown');
    expect(error.hint).toBe('check with `rsi status "KRAS inhibitors"` before running it again');
  });

  it("a failure before the request went out: not done, said so, the failure's exit code", async () => {
    const { client } = fakePort([new ServiceUnavailableError('connection refused')]);
    const error = (await run(options(TOP), fakeCtx(fakeIo(false), { format: 'tsv', client })).catch(
      (e: unknown) => e,
    )) as WriteOutcomeError;
    expect(error).toMatchObject({ outcome: 'not_done', exitCode: 8 });
    expect(error.message).toContain('nothing was sent');
  });

  it('409 carries the setup URL', async () => {
    const url = `http://127.0.0.1:1/projects/${PROJECT.id}/overview?setup=1`;
    const { client } = fakePort([realError(409, 'scoring setup is missing')]);
    const error = (await run(options(TOP), fakeCtx(fakeIo(false), { format: 'tsv', client })).catch((e: unknown) => e)) as ConflictError;
    expect(error).toBeInstanceOf(ConflictError);
    expect(error.setupUrl).toBe(url);
    expect(error.hint).toContain(url);
  });
});

describe('analyses run: --wait', () => {
  const running: ProjectStatus = {
    signals_ready: true,
    scoring: 'running',
    summary: '',
    next: 'wait',
    analyses: [{ status: 'running', keyword_name: 'A' }],
  };
  const done: ProjectStatus = {
    signals_ready: true,
    scoring: 'done',
    summary: 'Done',
    next: 'list_signals',
    analyses: [{ status: 'done', keyword_name: 'A' }],
  };
  // r1 is a run STARTED began; r9 is somebody else's.
  const failed: ProjectStatus = { ...done, analyses: [{ status: 'failed', keyword_name: 'A', runs: [{ id: 'r1' }] }] };
  const othersFailed: ProjectStatus = { ...done, analyses: [{ status: 'failed', keyword_name: 'B', runs: [{ id: 'r9' }] }] };

  it('with --json prints NDJSON: the result, then status lines', async () => {
    const io = fakeIo(false);
    const { client } = fakePort([STARTED], [running, done]);
    await run(
      options({ select: [{ keyword_id: 'k', signal_keyword_id: 's' }], wait: { intervalMs: 10, timeoutMs: 0 } }),
      fakeCtx(io, { format: 'json', client }),
    );
    const lines = io
      .out()
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toEqual([STARTED, running, done]);
  });

  it('exit 10 when scoring ends with a failed analysis', async () => {
    const io = fakeIo(false);
    const { client } = fakePort([STARTED], [running, failed]);
    const error = await run(
      options({ select: [{ keyword_id: 'k', signal_keyword_id: 's' }], wait: { intervalMs: 10, timeoutMs: 0 } }),
      fakeCtx(io, { format: 'tsv', client }),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AnalysisFailedError);
    expect(io.err()).toContain('scoring running · 0/1 analyses done');
  });

  it('a failed analysis this command did not start is a note, exit 0', async () => {
    const io = fakeIo(false);
    const { client } = fakePort([STARTED], [running, othersFailed]);
    await run(
      options({ select: [{ keyword_id: 'k', signal_keyword_id: 's' }], wait: { intervalMs: 10, timeoutMs: 0 } }),
      fakeCtx(io, { format: 'tsv', client }),
    );
    expect(io.err()).toMatch(/^note: 1 analysis .*had failed before.*: B$/m);
  });
});

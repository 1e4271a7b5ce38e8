import { makeOutput } from '../../src/io/formats.js';
import type { ProjectStatus } from '../../src/client/schemas.js';
import { describe, expect, it } from 'vitest';
import { INTERVAL_S, timing, watchStatus, watchWithOutput } from '../../src/commands/shared/watch.js';
import { seconds } from '../../src/commands/shared/options.js';
import { elapsedSince, statusLine } from '../../src/commands/shared/status-view.js';
import { assertNoFailedAnalyses } from '../../src/commands/shared/exit-policy.js';
import { describeStatus, failedSince, startedByReply } from '../../src/ops/status-reading.js';
import { formatSeconds } from '../../src/io/text.js';
import { AnalysisFailedError, NotSignedInError, ServiceUnavailableError, UsageError, WatchTimeoutError } from '../../src/errors.js';
import { createProgress } from '../../src/io/progress.js';
import { fakeClock, fakeIo, scriptedPoll } from '../support/fakes.js';

/** A clock whose sleeps return at once and advance time: the loop's timing, without waiting. */

function status(
  next: ProjectStatus['next'],
  analyses: ProjectStatus['analyses'] = [],
  scoring: ProjectStatus['scoring'] = 'running',
): ProjectStatus {
  return { signals_ready: true, scoring, summary: 's', next, analyses };
}

const scripted = (replies: Array<ProjectStatus | Error>) => scriptedPoll(replies);

const never = new AbortController().signal;

describe('watchStatus', () => {
  it('polls every interval while next is wait and returns the first other status', async () => {
    const clock = fakeClock();
    const done = status('list_signals', [{ status: 'done' }], 'done');
    const { poll, calls } = scripted([status('wait'), status('wait'), done]);
    const seen: boolean[] = [];
    const result = await watchStatus(poll, { intervalMs: 2000, timeoutMs: 0 }, clock, never, {
      onStatus: (_s, changed) => void seen.push(changed),
    });
    expect(result).toBe(done);
    expect(calls()).toBe(3);
    expect(clock.sleeps).toEqual([2000, 2000]);
    expect(seen).toEqual([true, false, true]);
  });

  it('returns at once when the user must act', async () => {
    const clock = fakeClock();
    const { poll, calls } = scripted([status('run_analyses')]);
    await watchStatus(poll, { intervalMs: 2000, timeoutMs: 1000 }, clock, never);
    expect(calls()).toBe(1);
    expect(clock.sleeps).toEqual([]);
  });

  it('gives up with WatchTimeoutError at the deadline, naming the last state', async () => {
    const clock = fakeClock();
    const { poll, calls } = scripted([status('wait', [{ status: 'done' }, { status: 'running' }])]);
    const error = await watchStatus(poll, { intervalMs: 2000, timeoutMs: 5000 }, clock, never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WatchTimeoutError);
    expect((error as Error).message).toContain('1/2 analyses done');
    expect((error as Error).message).toContain('5 s');
    // Polls at 0, 2, 4 and a last one exactly at the deadline (5), never sleeping past it.
    expect(clock.sleeps).toEqual([2000, 2000, 1000]);
    expect(calls()).toBe(4);
  });

  it('keeps polling through transient errors with exponential backoff, reset after a success', async () => {
    const clock = fakeClock();
    const down = new ServiceUnavailableError('the service did not answer', 503);
    const { poll } = scripted([down, down, down, status('wait'), down, status('run_analyses')]);
    const retries: number[] = [];
    await watchStatus(poll, { intervalMs: 1000, timeoutMs: 0, maxBackoffMs: 5000 }, clock, never, {
      onRetry: (_e, ms) => retries.push(ms),
    });
    expect(retries).toEqual([2000, 4000, 5000, 2000]);
    expect(clock.sleeps).toEqual([2000, 4000, 5000, 1000, 2000]);
  });

  it('reports the last failure when the deadline passes while the service is down', async () => {
    const clock = fakeClock();
    const { poll } = scripted([new ServiceUnavailableError('connection refused')]);
    const error = await watchStatus(poll, { intervalMs: 1000, timeoutMs: 10_000 }, clock, never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WatchTimeoutError);
    expect((error as Error).message).toContain('connection refused');
  });

  it('ends at once on a non-transient error', async () => {
    const clock = fakeClock();
    const { poll, calls } = scripted([status('wait'), new NotSignedInError('token refused')]);
    await expect(watchStatus(poll, { intervalMs: 1000, timeoutMs: 0 }, clock, never)).rejects.toBeInstanceOf(NotSignedInError);
    expect(calls()).toBe(2);
  });

  it('stops when the signal is aborted', async () => {
    const clock = fakeClock();
    const abort = new AbortController();
    const { poll } = scripted([status('wait')]);
    let n = 0;
    const promise = watchStatus(
      async (_s) => {
        if (++n === 3) abort.abort(new Error('interrupted'));
        return poll();
      },
      { intervalMs: 1000, timeoutMs: 0 },
      clock,
      abort.signal,
    );
    await expect(promise).rejects.toThrow('interrupted');
    expect(n).toBe(3);
  });
});

describe('watchWithOutput', () => {
  it('with ndjson prints one status per change on stdout, the last line the final state', async () => {
    const io = fakeIo(false);
    const final = status('list_signals', [{ status: 'done' }], 'done');
    const { poll } = scripted([status('wait', [{ status: 'running' }]), status('wait', [{ status: 'running' }]), final]);
    await watchWithOutput(
      poll,
      { intervalMs: 10, timeoutMs: 0 },
      { out: makeOutput(io, { format: 'tsv' }), clock: fakeClock(), signal: never, progress: createProgress(io) },
      { ndjson: true, projectName: 'P' },
    );
    const lines = io.out().trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines.at(-1)!)).toEqual(final);
    expect(io.err()).toBe('');
  });

  it('without a terminal prints one stderr line per change and nothing on stdout', async () => {
    const io = fakeIo(false);
    const { poll } = scripted([
      status('wait', [{ status: 'running' }, { status: 'pending' }]),
      status('wait', [{ status: 'running' }, { status: 'pending' }]),
      status('wait', [{ status: 'done' }, { status: 'running' }]),
      status('list_signals', [{ status: 'done' }, { status: 'done' }], 'done'),
    ]);
    await watchWithOutput(
      poll,
      { intervalMs: 10, timeoutMs: 0 },
      { out: makeOutput(io, { format: 'tsv' }), clock: fakeClock(), signal: never, progress: createProgress(io) },
      { ndjson: false, projectName: 'P' },
    );
    expect(io.out()).toBe('');
    // Each line ends with the server's own summary ("s" here).
    expect(io.err().trimEnd().split('\n')).toEqual([
      'scoring running · 0/2 analyses done · s',
      'scoring running · 1/2 analyses done · s',
      'scoring done · 2/2 analyses done · signals ready · s',
    ]);
  });

  it('on a terminal redraws one live line and clears it at the end', async () => {
    const io = fakeIo(true);
    const { poll } = scripted([status('wait', [{ status: 'running' }]), status('run_analyses', [{ status: 'done' }], 'done')]);
    await watchWithOutput(
      poll,
      { intervalMs: 10, timeoutMs: 0 },
      { out: makeOutput(io, { format: 'tsv' }), clock: fakeClock(), signal: never, progress: createProgress(io, { frameMs: 0 }) },
      { ndjson: false, projectName: 'P' },
    );
    expect(io.err()).toContain('\r\x1b[2K⠋ scoring running · 0/1 analyses done');
    expect(io.err()).not.toContain('\n');
    expect(io.err().endsWith('\r\x1b[2K')).toBe(true);
  });
});

describe('helpers', () => {
  it('describes a status in one line', () => {
    expect(describeStatus({ signals_ready: false, scoring: 'not_started', summary: '', next: 'wait', analyses: [] })).toBe(
      'scanning for signals',
    );
    expect(describeStatus(status('wait', [{ status: 'done' }, { status: 'failed' }, { status: 'running' }]))).toBe(
      'scoring running · 1/3 analyses done · 1 failed',
    );
  });

  it('the live line and the timeout carry the server summary; a stalled wait names the setup URL', async () => {
    const stalled: ProjectStatus = {
      signals_ready: true,
      scoring: 'not_started',
      summary: 'Waiting for scoring setup:\n finish it in the app',
      next: 'wait',
      analyses: [],
    };
    expect(statusLine(stalled)).toBe('scoring not started · Waiting for scoring setup: finish it in the app');
    const io = fakeIo(false);
    const url = 'https://rsi.example/projects/p/overview?setup=1';
    const error = (await watchWithOutput(
      scripted([stalled]).poll,
      { intervalMs: 1000, timeoutMs: 5000 },
      { out: makeOutput(io, { format: 'tsv' }), clock: fakeClock(), signal: never, progress: createProgress(io) },
      { ndjson: false, projectName: 'P', setupUrl: url },
    ).catch((e: unknown) => e)) as WatchTimeoutError;
    expect(error).toBeInstanceOf(WatchTimeoutError);
    expect(error.message).toContain('Waiting for scoring setup');
    expect(error.hint).toContain(url);
    // Not silent while it waits: the summary was shown once, as soon as it arrived.
    expect(io.err()).toContain('Waiting for scoring setup');
  });

  it('a timeout while scoring runs gives no setup hint', async () => {
    const error = (await watchStatus(
      scripted([status('wait', [{ status: 'running' }])]).poll,
      { intervalMs: 1000, timeoutMs: 3000 },
      fakeClock(),
      never,
      {},
      { setupUrl: 'https://x/setup' },
    ).catch((e: unknown) => e)) as WatchTimeoutError;
    expect(error.hint).not.toContain('https://x/setup');
  });

  it('exit 10: only the analyses the filter counts; the others are a note', () => {
    const notes: string[] = [];
    const final = status(
      'run_analyses',
      [
        { status: 'failed', keyword_name: 'OLD' },
        { status: 'failed', keyword_name: 'NEW' },
      ],
      'done',
    );
    const error = (() => {
      try {
        assertNoFailedAnalyses(
          final,
          'P',
          (a) => a.keyword_name === 'NEW',
          (l) => notes.push(l),
        );
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(AnalysisFailedError);
    expect((error as Error).message).toContain(
      '1 keyword failed while this command watched: NEW (the service reports 2 of 2 analyses failed)',
    );
    expect(notes.join()).toContain('OLD');
    expect(() =>
      assertNoFailedAnalyses(
        final,
        'P',
        () => false,
        () => undefined,
      ),
    ).not.toThrow();
  });

  it('failedSince counts what was not failed at the first poll, by task, runs or keyword', () => {
    const first: ProjectStatus = {
      ...status('wait'),
      analyses: [
        { task_id: 't1', status: 'failed' },
        { runs: [{ id: 'r2' }], status: 'failed' },
        { keyword_id: 'k3', status: 'failed' },
        { task_id: 't4', status: 'running' },
      ],
    };
    const counts = failedSince(first);
    expect(first.analyses.map((a, i) => counts(a, i))).toEqual([false, false, false, true]);
    expect(counts({ task_id: 't5', status: 'failed' }, 4)).toBe(true);
  });

  it('startedByReply matches by run id, then task id, and by keyword only without either', () => {
    const counts = startedByReply({ runs: [{ id: 'r1', keyword_id: 'k1' }] });
    expect(counts({ runs: [{ id: 'r1' }] }, 0)).toBe(true);
    expect(counts({ task_id: 'r1' }, 0)).toBe(true);
    expect(counts({ keyword_id: 'k1', runs: [{ id: 'r0' }] }, 0)).toBe(false);
    expect(counts({ keyword_id: 'k1' }, 0)).toBe(true);
    expect(counts({ keyword_id: 'k2' }, 0)).toBe(false);
    expect(startedByReply({})({ keyword_id: 'k1' }, 0)).toBe(false);
  });

  it('exit 10 only when scoring is done and an analysis failed', () => {
    expect(() => assertNoFailedAnalyses(status('wait', [{ status: 'failed' }], 'running'), 'P')).not.toThrow();
    expect(() => assertNoFailedAnalyses(status('list_signals', [{ status: 'done' }], 'done'), 'P')).not.toThrow();
    const error = (() => {
      try {
        assertNoFailedAnalyses(status('list_signals', [{ status: 'done' }, { status: 'failed', keyword_name: 'KRAS' }], 'done'), 'P');
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(AnalysisFailedError);
    expect((error as Error).message).toContain(
      '1 keyword failed while this command watched: KRAS (the service reports 1 of 2 analyses failed)',
    );
  });

  it('exit 10 counts what the service said, names each failed keyword once, and says how to retry only those', () => {
    const final = status(
      'run_analyses',
      [
        { status: 'done', keyword_id: 'k0', keyword_name: 'EGFR' },
        { status: 'failed', keyword_id: 'k1', keyword_name: 'KRAS', runs: [{ id: 'r1' }] },
        { status: 'failed', keyword_id: 'k1', keyword_name: 'KRAS', runs: [{ id: 'r2' }] },
        { status: 'failed', keyword_id: 'k2', keyword_name: "Bob's target", runs: [{ id: 'r3' }] },
        { status: 'failed', keyword_id: 'k3', keyword_name: 'OLD', runs: [{ id: 'r0' }] },
      ],
      'done',
    );
    const mine = startedByReply({
      runs: [
        { id: 'r1', keyword_id: 'k1' },
        { id: 'r2', keyword_id: 'k1' },
        { id: 'r3', keyword_id: 'k2' },
      ],
    });
    const error = (() => {
      try {
        assertNoFailedAnalyses(final, 'My project', mine, () => undefined, 'started');
      } catch (e) {
        return e;
      }
    })() as AnalysisFailedError;
    expect(error).toBeInstanceOf(AnalysisFailedError);
    expect(error.message).toBe(
      `scoring of "My project" is done, but 2 keywords this command started failed: KRAS, Bob's target (the service reports 4 of 5 analyses failed)`,
    );
    expect(error.hint).toBe(
      'run only those again with `rsi analyses run "My project" --select KRAS --select "Bob\'s target" --include-analysed --wait`; ' +
        'details in `rsi status "My project"`, the others\' results in `rsi opportunities "My project"`',
    );
  });

  it('validates --interval and --timeout', () => {
    const interval = seconds(INTERVAL_S.min, INTERVAL_S.max);
    expect(timing(undefined, 3_600_000)).toEqual({ intervalMs: 2000, timeoutMs: 3_600_000 });
    expect(timing(interval.parse('--interval', '0.5'), 0)).toEqual({ intervalMs: 500, timeoutMs: 0 });
    expect(() => interval.parse('--interval', '0')).toThrow(UsageError);
    expect(() => interval.parse('--interval', 'abc')).toThrow(/--interval must be a number of seconds from 0.1/);
    expect(() => interval.parse('--interval', '')).toThrow(UsageError);
  });

  it('elapsedSince counts whole seconds from its creation', () => {
    const clock = fakeClock();
    const elapsed = elapsedSince(clock);
    expect(elapsed()).toBe(' · 0 s');
    clock.t += 61_900;
    expect(elapsed()).toBe(' · 1 min 1 s');
  });

  it('formats durations', () => {
    expect(formatSeconds(5000)).toBe('5 s');
    expect(formatSeconds(1500)).toBe('1.5 s');
    expect(formatSeconds(3_600_000)).toBe('60 min');
    expect(formatSeconds(125_000)).toBe('2 min 5 s');
  });
});

describe('server text on the live line', () => {
  it('escape sequences, CR and bidi controls in a summary cannot reach the terminal', () => {
    const line = statusLine({ ...status('wait'), summary: 'ok\x1b[2J\r\u202eevil\u0007 done' });
    // \r is white space (one space); the rest become visible escapes.
    expect(line).toBe('scoring running · ok\\x1b[2J \\u202eevil\\x07 done');
    expect(line).not.toMatch(/[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/);
  });
});

// The one watch loop both front-ends adapt (src/ops/watch.ts): when it polls, how it backs off,
// and how it ends, with a fake clock whose sleeps return at once.
import { describe, expect, it } from 'vitest';
import { NotSignedInError, ServiceUnavailableError } from '../../src/errors.js';
import { isWaiting, watchScoring } from '../../src/ops/watch.js';
import { fakeClock, scriptedPoll } from '../support/fakes.js';

type S = { next: string; n?: number };

const scripted = (replies: Array<S | Error>) => scriptedPoll(replies);

const never = new AbortController().signal;

describe('ops/watch: watchScoring', () => {
  it('ends done with the first status that is not wait, after one interval per poll', async () => {
    const clock = fakeClock();
    const { poll, calls } = scripted([{ next: 'wait' }, { next: 'wait' }, { next: 'list_signals' }]);
    const changes: boolean[] = [];
    const end = await watchScoring(
      poll,
      { intervalMs: 2000, timeoutMs: 0 },
      { clock, signal: never },
      {
        onStatus: (_s, changed) => void changes.push(changed),
      },
    );
    expect(end).toEqual({ outcome: 'done', status: { next: 'list_signals' }, waitedMs: 4000 });
    expect(calls()).toBe(3);
    expect(clock.sleeps).toEqual([2000, 2000]);
    // The second reply equals the first: heard, but not as a change.
    expect(changes).toEqual([true, false, true]);
  });

  it('backs off exponentially after transient failures, capped, and resets after a success', async () => {
    const clock = fakeClock();
    const down = new ServiceUnavailableError('the service answered 503', 503);
    const { poll } = scripted([down, down, down, { next: 'wait' }, down, { next: 'done' }]);
    const retries: number[] = [];
    const end = await watchScoring(
      poll,
      { intervalMs: 1000, timeoutMs: 0, maxBackoffMs: 5000 },
      { clock, signal: never },
      {
        onRetry: (_e, ms) => void retries.push(ms),
      },
    );
    expect(end.outcome).toBe('done');
    expect(clock.sleeps).toEqual([2000, 4000, 5000, 1000, 2000]);
    expect(retries).toEqual([2000, 4000, 5000, 2000]);
  });

  it('ends timed_out at the deadline with the last status and the last failure', async () => {
    const clock = fakeClock();
    const down = new ServiceUnavailableError('the service answered 502', 502);
    const { poll } = scripted([{ next: 'wait', n: 1 }, down]);
    const end = await watchScoring(poll, { intervalMs: 1000, timeoutMs: 5000 }, { clock, signal: never });
    expect(end).toMatchObject({ outcome: 'timed_out', last: { next: 'wait', n: 1 }, lastError: down, waitedMs: 5000 });
    // The last sleep is cut to the deadline, never past it.
    expect(clock.sleeps.reduce((a, b) => a + b, 0)).toBe(5000);
  });

  it('times out with no status when no poll ever succeeded', async () => {
    const clock = fakeClock();
    const { poll } = scripted([new ServiceUnavailableError('connection refused')]);
    const end = await watchScoring(poll, { intervalMs: 1000, timeoutMs: 3000 }, { clock, signal: never });
    expect(end).toMatchObject({ outcome: 'timed_out', last: undefined });
  });

  it('throws any other error at once, and a transient one when the watch was aborted', async () => {
    const clock = fakeClock();
    const denied = new NotSignedInError('sign in');
    await expect(watchScoring(scripted([denied]).poll, { intervalMs: 1000, timeoutMs: 0 }, { clock, signal: never })).rejects.toBe(denied);
    const abort = new AbortController();
    abort.abort();
    const down = new ServiceUnavailableError('aborted mid-request');
    await expect(watchScoring(scripted([down]).poll, { intervalMs: 1000, timeoutMs: 0 }, { clock, signal: abort.signal })).rejects.toBe(
      down,
    );
  });

  it('stops sleeping when the signal aborts', async () => {
    const clock = fakeClock();
    const abort = new AbortController();
    const poll = async (): Promise<S> => {
      abort.abort(new Error('stop'));
      return { next: 'wait' };
    };
    await expect(watchScoring(poll, { intervalMs: 1000, timeoutMs: 0 }, { clock, signal: abort.signal })).rejects.toThrow('stop');
  });

  it('isWaiting is the service saying wait, nothing else', () => {
    expect(isWaiting({ next: 'wait' })).toBe(true);
    expect(isWaiting({ next: 'run_analyses' })).toBe(false);
  });
});

describe('ops/watch: the deadline is wall-clock', () => {
  // A poll that only ends when its signal aborts: a service that accepted and never answered.
  const hanging = (signal: AbortSignal) =>
    new Promise<S>((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }));

  it('cuts a poll still waiting at the deadline and ends timed out, saying it was unanswered', async () => {
    const clock = { now: () => Date.now(), sleep: async () => undefined };
    const end = await watchScoring(hanging, { intervalMs: 100, timeoutMs: 50 }, { clock, signal: never });
    expect(end).toMatchObject({ outcome: 'timed_out', last: undefined, unanswered: true });
  });

  it('counts from startedAt: a bound already spent before the watch polls nothing', async () => {
    const clock = fakeClock();
    const { poll, calls } = scripted([{ next: 'wait' }]);
    const end = await watchScoring(poll, { intervalMs: 100, timeoutMs: 1000, startedAt: clock.t - 2000 }, { clock, signal: never });
    expect(end).toMatchObject({ outcome: 'timed_out', waitedMs: 2000 });
    expect(calls()).toBe(0);
  });

  it("the caller's own abort is not a timeout: it is thrown", async () => {
    const clock = { now: () => Date.now(), sleep: async () => undefined };
    const ctl = new AbortController();
    const watching = watchScoring(hanging, { intervalMs: 100, timeoutMs: 60_000 }, { clock, signal: ctl.signal });
    ctl.abort(new Error('stopped'));
    await expect(watching).rejects.toThrow('aborted');
  });
});

// wait_for_scoring in process: it polls until the service no longer says wait, sends progress that
// only grows, ends with the command's outcomes, and stops polling when the request is cancelled.
import { afterEach, describe, expect, it } from 'vitest';
import type { ProjectStatus } from '../../src/client/schemas.js';
import { ALPHA, data, fakeApi, links, ORIGIN, type Served, serve, text } from './mcp-tools.harness.js';

let s: Served | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

const status = (next: ProjectStatus['next'], analyses: ProjectStatus['analyses']): ProjectStatus => ({
  signals_ready: true,
  scoring: next === 'wait' ? 'running' : 'done',
  summary: next,
  next,
  analyses,
});
const a = (id: string, st: 'pending' | 'running' | 'done' | 'failed') => ({ keyword_id: id, keyword_name: id, status: st });

describe('wait_for_scoring', () => {
  it('follows the status with growing progress and ends done', async () => {
    const replies = [
      status('wait', [a('k1', 'running'), a('k2', 'running')]),
      status('wait', [a('k1', 'running'), a('k2', 'running')]),
      status('wait', [a('k1', 'done'), a('k2', 'running')]),
      status('list_signals', [a('k1', 'done'), a('k2', 'done')]),
    ];
    s = await serve({ api: fakeApi({ getProjectStatus: () => replies.shift() }) });
    const progress: unknown[] = [];
    const r = await s.call('wait_for_scoring', { project: 'Alpha', interval_seconds: 0.1 }, { onprogress: (p) => progress.push(p) });
    expect(r.isError).toBeFalsy();
    expect(data(r)).toMatchObject({ outcome: 'done', exit_code: 0, failed_analyses: [] });
    expect(text(r)).toContain('The wait ended: done (exit_code 0)');
    expect(links(r)).toEqual([`${ORIGIN}/projects/${ALPHA}/overview`]);
    // One notification per change of the count (the second poll repeated the first).
    expect(progress).toEqual([
      { progress: 0, total: 2, message: 'scoring running · 0/2 analyses done (done 0, failed 0, total 2)' },
      { progress: 1, total: 2, message: 'scoring running · 1/2 analyses done (done 1, failed 0, total 2)' },
      { progress: 2, total: 2, message: 'scoring done · 2/2 analyses done · signals ready (done 2, failed 0, total 2)' },
    ]);
    expect(s.api.calls.filter((c) => c.method === 'getProjectStatus')).toHaveLength(4);
  });

  it('an analysis that failed while waiting: analyses_failed, exit_code 10', async () => {
    const replies = [status('wait', [a('k1', 'running')]), status('list_signals', [a('k1', 'failed')])];
    s = await serve({ api: fakeApi({ getProjectStatus: () => replies.shift() }) });
    const r = await s.call('wait_for_scoring', { project: ALPHA, interval_seconds: 0.1 });
    expect(data(r)).toMatchObject({ outcome: 'analyses_failed', exit_code: 10, failed_analyses: [{ keyword_id: 'k1' }] });
  });

  it('an analysis that had failed before the wait is history: done, exit_code 0', async () => {
    const replies = [status('wait', [a('k1', 'failed'), a('k2', 'running')]), status('list_signals', [a('k1', 'failed'), a('k2', 'done')])];
    s = await serve({ api: fakeApi({ getProjectStatus: () => replies.shift() }) });
    const r = await s.call('wait_for_scoring', { project: ALPHA, interval_seconds: 0.1 });
    expect(data(r)).toMatchObject({ outcome: 'done', exit_code: 0, failed_analyses: [] });
  });

  it('times out like --timeout: timed_out, exit_code 9', async () => {
    s = await serve({ api: fakeApi({ getProjectStatus: () => status('wait', []) }) });
    const r = await s.call('wait_for_scoring', { project: ALPHA, interval_seconds: 0.1, timeout_seconds: 0.3 });
    expect(data(r)).toMatchObject({ outcome: 'timed_out', exit_code: 9, status: { next: 'wait' } });
  });

  it('a cancelled request stops the poll in flight and polls no more', async () => {
    let arrived!: () => void;
    const polled = new Promise<void>((resolve) => (arrived = resolve));
    let aborted!: () => void;
    const upstreamAborted = new Promise<void>((resolve) => (aborted = resolve));
    const api = fakeApi({
      // The poll hangs until its signal aborts, as a request the client cancelled.
      getProjectStatus: (_id: string, signal: AbortSignal) =>
        new Promise((_resolve, reject) => {
          arrived();
          signal.addEventListener('abort', () => {
            aborted();
            reject(signal.reason);
          });
        }),
    });
    s = await serve({ api });
    const cancel = new AbortController();
    const call = s.call('wait_for_scoring', { project: ALPHA }, { signal: cancel.signal });
    await polled;
    cancel.abort();
    await expect(call).rejects.toThrow();
    await upstreamAborted;
    expect(s.api.calls.filter((c) => c.method === 'getProjectStatus')).toHaveLength(1);
    // The session lives on.
    expect((await s.call('list_projects')).isError).toBeFalsy();
    expect(s.logs).toEqual([]);
  });

  it('the session ending (SIGTERM) cancels a wait', async () => {
    const session = new AbortController();
    let arrived!: () => void;
    const polled = new Promise<void>((resolve) => (arrived = resolve));
    const api = fakeApi({
      getProjectStatus: (_id: string, signal: AbortSignal) =>
        new Promise((_resolve, reject) => {
          arrived();
          signal.addEventListener('abort', () => reject(signal.reason));
        }),
    });
    s = await serve({ api, signal: session.signal });
    const call = s.call('wait_for_scoring', { project: ALPHA });
    await polled;
    session.abort();
    const r = await call;
    expect(r).toMatchObject({ isError: true, content: [{ type: 'text', text: 'rsi: cancelled' }] });
  });
});

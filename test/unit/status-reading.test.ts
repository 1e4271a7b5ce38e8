// Issue 40 item 3: one status reading (src/ops/status-reading.ts) for `rsi status --watch`, its exit
// policy, `analyses run --wait` and the MCP tool wait_for_scoring: the same statuses read the same.
import { describe, expect, it } from 'vitest';
import type { ProjectStatus } from '../../src/client/schemas.js';
import { assertNoFailedAnalyses } from '../../src/commands/shared/exit-policy.js';
import { statusLine } from '../../src/commands/shared/status-view.js';
import { AnalysisFailedError } from '../../src/errors.js';
import { waitForScoring } from '../../src/mcp/wait.js';
import { countAnalyses, describeStatus, failedSince, failures } from '../../src/ops/status-reading.js';

const status = (scoring: ProjectStatus['scoring'], analyses: ProjectStatus['analyses']): ProjectStatus => ({
  signals_ready: true,
  scoring,
  summary: '',
  next: scoring === 'done' ? 'list_signals' : 'wait',
  analyses,
});
// An analysis that had failed before anyone watched, one that fails while watching, one done.
const first = status('running', [
  { keyword_name: 'OLD', task_id: 't0', status: 'failed' },
  { keyword_name: 'NEW', task_id: 't1', status: 'running' },
  { keyword_name: 'OK', runs: [{ id: 'r2' }], status: 'running' },
]);
const last = status('done', [
  { keyword_name: 'OLD', task_id: 't0', status: 'failed' },
  { keyword_name: 'NEW', task_id: 't1', status: 'failed' },
  { keyword_name: 'OK', runs: [{ id: 'r2' }], status: 'done' },
]);

describe('one status reading', () => {
  it('counts and the line', () => {
    expect(countAnalyses(first)).toEqual({ total: 3, done: 0, failed: 1, active: 2 });
    expect(describeStatus(last)).toBe('scoring done · 1/3 analyses done · 2 failed · signals ready');
    // The CLI's live line starts with the same reading.
    expect(statusLine({ ...last, summary: 'all done' })).toBe(`${describeStatus(last)} · all done`);
  });

  it('the news since the first status: the same for the CLI exit policy and wait_for_scoring', async () => {
    expect(failures(last, failedSince(first)).news.map((a) => a.keyword_name)).toEqual(['NEW']);
    const notes: string[] = [];
    let cli: unknown;
    try {
      assertNoFailedAnalyses(last, 'P', failedSince(first), (line) => notes.push(line));
    } catch (error) {
      cli = error;
    }
    expect(cli).toBeInstanceOf(AnalysisFailedError);
    expect((cli as Error).message).toBe(
      'scoring of "P" is done, but 1 keyword failed while this command watched: NEW (the service reports 2 of 3 analyses failed)',
    );
    expect(notes[0]).toContain('had failed before, not while this command watched (not counted in the exit status): OLD');

    const replies = [first, last];
    let t = 0;
    const mcp = await waitForScoring(async () => replies.shift()!, {
      intervalMs: 100,
      timeoutMs: 0,
      signal: new AbortController().signal,
      now: () => t,
      sleep: async (ms) => void (t += ms),
    });
    expect(mcp).toMatchObject({ outcome: 'analyses_failed', exit_code: 10, failed_analyses: [{ keyword_name: 'NEW' }] });
    expect(mcp.failed_analyses).toHaveLength(1);
  });
});

import { describe, expect, it } from 'vitest';
import { useSandbox } from '../support/e2e.js';
import { sandboxStats } from '../support/sandbox.js';

const RUN_ROUTE = 'POST /api/v1/projects/{projectId}/analyses';
const e2e = useSandbox(['--fault', 'analyses-504'], { quiet: false });
const rsi = (args: string[], input?: string) => e2e.rsi(args, { input });

describe('analyses run when the scoring service does not answer', () => {
  it('exits 8 after exactly one POST, says no run was recorded and that running again is safe', async () => {
    const signals = await rsi(['signals', 'KRAS inhibitors', '--json']);
    expect(signals.code, signals.stderr).toBe(0);
    const first = (JSON.parse(signals.stdout) as { signals: Array<{ keyword_id: string; signal_keyword_id: string }> }).signals[0]!;
    const before = await sandboxStats(e2e.url);

    const r = await rsi(['analyses', 'run', 'KRAS inhibitors', '--select', `${first.keyword_id}:${first.signal_keyword_id}`]);

    expect(r.code, r.stderr).toBe(8);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^rsi: .*no run was recorded/m);
    expect(r.stderr).toMatch(/^hint: .*again is safe/m);
    const after = await sandboxStats(e2e.url);
    expect(after.runs).toBe(before.runs);
    expect((after.byRoute[RUN_ROUTE] ?? 0) - (before.byRoute[RUN_ROUTE] ?? 0)).toBe(1);
  });
});

describe('status --watch --timeout', () => {
  it('exits 9 when scoring is not done in time, after printing the states it saw', async () => {
    const res = await fetch(`${e2e.url}/api/v1/projects`, {
      method: 'POST',
      headers: { authorization: `Bearer ${e2e.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Slow scan' }),
    });
    expect(res.status).toBe(201);
    const { id } = (await res.json()) as { id: string };

    const r = await rsi(['status', id, '--watch', '--interval', '0.1', '--timeout', '1', '--json']);

    expect(r.code, r.stderr).toBe(9);
    expect(r.stderr).toMatch(/^rsi: gave up after 1 s \(--timeout\) waiting for scoring to finish: scanning for signals/m);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(1);
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ next: 'wait' });
  });

  it('human output without a terminal: one line per change on stderr, then exit 9', async () => {
    const r = await rsi(['status', 'Slow scan', '--watch', '--interval', '0.1', '--timeout', '0.3']);
    expect(r.code, r.stderr).toBe(9);
    expect(r.stdout).toBe('');
    // One line per change, each ending with the service's summary.
    expect(r.stderr.split('\n').filter((l) => l.startsWith('scanning for signals · '))).toHaveLength(1);
  });
});

// Table polish from the terminal trial, checked end to end against the sandbox (--format table
// stands in for a terminal): names beside ids in what `analyses run` started and skipped, with the
// --include-analysed hint; hints that repeat the project as typed; --time absolute / RSI_TIME;
// --wide; one header style; a warning for a second project with an existing name.
import { describe, expect, it } from 'vitest';
import { useSandbox } from '../support/e2e.js';

const e2e = useSandbox();
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

describe('table polish', () => {
  it('analyses run: names in the started and skipped tables; skipped as analysed hints --include-analysed', async () => {
    const first = await e2e.rsi(['analyses', 'run', 'KRAS inhibitors', '--top', '2', '--type', 'target', '--yes', '--format', 'table']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^NAME +KIND +KEYWORD ID +RUN ID$/m);
    const names = [...first.stdout.matchAll(/^(\S.*?) +scoring /gm)].map((m) => m[1]!);
    expect(names).toHaveLength(2);
    for (const n of names) expect(n).not.toMatch(UUID);
  });

  it('a selection skipped as already analysed is named, with the --include-analysed hint', async () => {
    const list = JSON.parse((await e2e.rsi(['signals', 'Oncology watchlist', '--json'])).stdout) as {
      signals: Array<{ name: string; analysed: boolean }>;
    };
    const done = list.signals.find((s) => s.analysed)!.name;
    const r = await e2e.rsi(['analyses', 'run', 'Oncology watchlist', '--select', done, '--yes', '--format', 'table']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^${done.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} +already analysed +`, 'm'));
    expect(r.stderr).toContain('hint: 1 skipped as already analysed: add --include-analysed to analyse it again');
  });

  it('--time absolute and RSI_TIME=absolute show UTC timestamps; relative by default', async () => {
    const absolute = /^Oncology watchlist +owner +\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}Z /m;
    expect((await e2e.rsi(['projects', 'list', '--format', 'table', '--time', 'absolute'])).stdout).toMatch(absolute);
    expect((await e2e.rsi(['projects', 'list', '--format', 'table'], { env: { RSI_TIME: 'absolute' } })).stdout).toMatch(absolute);
    expect((await e2e.rsi(['projects', 'list', '--format', 'table'])).stdout).toMatch(/ \d+ d ago /);
    expect((await e2e.rsi(['projects', 'list', '--time', 'soon'])).code).toBe(2);
  });

  it('--wide keeps full ids and every column; headers read as words', async () => {
    const narrow = await e2e.rsi(['signals', 'KRAS inhibitors', '--format', 'table', '--limit', '3']);
    expect(narrow.stdout).not.toMatch(UUID);
    expect(narrow.stdout).not.toContain('POSITION');
    const wide = await e2e.rsi(['signals', 'KRAS inhibitors', '--format', 'table', '--limit', '3', '--wide']);
    expect(wide.code, wide.stderr).toBe(0);
    expect(wide.stdout).toMatch(UUID);
    expect(wide.stdout.split('\n')[0]).toMatch(/^RANK +NAME +TYPE +ANALYSED +KEYWORD ID +SIGNAL KEYWORD ID +POSITION$/);
    // The footer names the watchlist keyword, its id beside it.
    expect(narrow.stderr).toMatch(/· keyword \S.* \([0-9a-f-]{36}\)/);
  });

  it('a second project with an existing name is created, with a warning', async () => {
    const r = await e2e.rsi(['projects', 'create', '--name', 'KRAS inhibitors']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^warning: you already have a project named "KRAS inhibitors"/m);
  });
});

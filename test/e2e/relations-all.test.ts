// `rsi keywords relations --relation all` and lists (issue 43, item 1), through real processes
// against a real `rsi sandbox`: every relation of a keyword in one file, each row led by its
// relation and activity, the same links the one-relation runs print.
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { useSandbox } from '../support/e2e.js';

const e2e = useSandbox();

/** The links of one (relation, activity) as the one-relation command prints them (csv, header). */
async function single(keyword: string, relation: string, activity?: string): Promise<Record<string, string>[]> {
  const r = await e2e.rsi([
    'keywords',
    'relations',
    keyword,
    '--relation',
    relation,
    ...(activity ? ['--activity', activity] : []),
    '--all',
    '--format',
    'csv',
  ]);
  expect(r.code, r.stderr).toBe(0);
  return parse(r.stdout, { columns: true });
}

describe('keywords relations --relation all', () => {
  it('one csv holds every relation, sponsors once per activity, each row tagged; the rows are the single runs', async () => {
    const r = await e2e.rsi(['keywords', 'relations', 'EGFR', '--relation', 'all', '--all', '--format', 'csv']);
    expect(r.code, r.stderr).toBe(0);
    const rows: Record<string, string>[] = parse(r.stdout, { columns: true });
    expect(r.stdout.split('\r\n')[0]).toBe('relation,activity,name,count,stage,id');
    const expected: Record<string, string>[] = [];
    for (const relation of ['indications', 'assets', 'pipeline_targets'])
      for (const link of await single('EGFR', relation)) expected.push({ relation, activity: '', ...link });
    for (const activity of ['trials', 'papers', 'patents'])
      for (const link of await single('EGFR', 'sponsors', activity)) expected.push({ relation: 'sponsors', activity, ...link });
    expect(expected.length).toBeGreaterThan(0);
    expect(new Set(expected.map((e) => e.relation))).toEqual(new Set(['indications', 'assets', 'pipeline_targets', 'sponsors']));
    expect(rows).toEqual(expected);
  });

  it('a list asks for those only; json rows carry relation and activity members; one page each without --all', async () => {
    const r = await e2e.rsi([
      'keywords',
      'relations',
      'EGFR',
      '--relation',
      'indications,sponsors',
      '--activity',
      'papers',
      '--limit',
      '2',
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as { data: Record<string, unknown>[]; meta: Record<string, unknown>[] };
    expect(doc.meta.map((m) => [m.relation, m.activity])).toEqual([
      ['indications', undefined],
      ['sponsors', 'papers'],
    ]);
    expect(doc.data.length).toBeGreaterThan(0);
    expect(doc.data.length).toBeLessThanOrEqual(4);
    for (const row of doc.data) expect([row.relation, row.activity]).toContainEqual(row.relation === 'sponsors' ? 'papers' : null);
    expect(Object.keys(doc.data[0]!).slice(0, 2)).toEqual(['relation', 'activity']);
  });

  it('one relation prints as before: no relation column', async () => {
    const r = await e2e.rsi(['keywords', 'relations', 'EGFR', '--relation', 'assets', '--format', 'csv']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\r\n')[0]).toBe('name,count,stage,id');
  });

  it('a batch with several relations leads each row with input, relation and activity', async () => {
    const r = await e2e.rsi(['keywords', 'relations', '-', '--relation', 'indications,assets', '--limit', '1', '--format', 'csv'], {
      input: 'EGFR\nKRAS\n',
    });
    expect(r.code, r.stderr).toBe(0);
    const rows: Record<string, string>[] = parse(r.stdout, { columns: true });
    expect(r.stdout.split('\r\n')[0]).toMatch(/^input,relation,activity,name,/);
    expect(rows.map((x) => [x.input, x.relation])).toEqual([
      ['EGFR', 'indications'],
      ['EGFR', 'assets'],
      ['KRAS', 'indications'],
      ['KRAS', 'assets'],
    ]);
  });

  it.each([
    [['--relation', 'all', '--activity', 'tweets'], /--activity must be one of trials, papers, patents/],
    [['--relation', 'assets,friends'], /--relation must be one of/],
    [['--relation', 'indications,assets', '--activity', 'trials'], /--activity only applies with --relation sponsors/],
    [['--relation', 'sponsors'], /--activity is required with --relation sponsors: one of trials, papers, patents, a list of them, or all/],
  ])('%j is exit 2 before any request', async (flags, message) => {
    const r = await e2e.rsi(['keywords', 'relations', 'EGFR', ...flags]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
  });
});

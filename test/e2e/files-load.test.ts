// Files that load anywhere (issue 58, item 2): a TSV with --header and a CSV, read the way pandas'
// read_csv and R's read.delim read them (a header line, then one record a line, quotes honoured),
// keep every row — the first one included — and have no blank rows. pandas and R are not on every
// machine; Python's csv module (DictReader: the first line is the names) reads them as they do.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { useSandbox } from '../support/e2e.js';

const e2e = useSandbox();
const python = spawnSync('python3', ['-c', 'import csv'], { encoding: 'utf8' }).status === 0;

/** The rows Python's csv.DictReader reads from `text`, as JSON objects keyed by the header. */
function load(text: string, delimiter: ',' | '\t'): Record<string, string>[] {
  const program = [
    'import csv, io, json, sys',
    'text = sys.stdin.read()',
    `rows = list(csv.DictReader(io.StringIO(text, newline=''), delimiter=${JSON.stringify(delimiter)}))`,
    'print(json.dumps(rows))',
  ].join('\n');
  const r = spawnSync('python3', ['-c', program], { input: text, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Record<string, string>[];
}

describe.skipIf(!python)('loaded as pandas and R load them', () => {
  it('a TSV with --header keeps every row, the first (rank-1) one included', async () => {
    const json = await e2e.rsi(['keywords', 'relations', 'EGFR', '--relation', 'assets', '--limit', '40', '--json']);
    const expected = (JSON.parse(json.stdout) as { data: { name: string }[] }).data.map((d) => d.name);
    expect(expected).toHaveLength(40);
    const tsv = await e2e.rsi(['keywords', 'relations', 'EGFR', '--relation', 'assets', '--limit', '40', '--format', 'tsv', '--header']);
    expect(tsv.code, tsv.stderr).toBe(0);
    const rows = load(tsv.stdout, '\t');
    expect(rows.map((r) => r.name)).toEqual(expected);
    // Without --header, the contract's TSV: data only, so the same loader loses the first row.
    const bare = await e2e.rsi(['keywords', 'relations', 'EGFR', '--relation', 'assets', '--limit', '40', '--format', 'tsv']);
    expect(bare.stdout.split('\n')[0]).toBe(tsv.stdout.split('\n')[1]);
    expect(load(bare.stdout, '\t')).toHaveLength(39);
  });

  it('a card with --header is one row under its header (not field<TAB>value lines)', async () => {
    const r = await e2e.rsi(['keywords', 'get', 'EGFR', '--format', 'tsv', '--header', '--fields', 'name,type,papers']);
    expect(r.code, r.stderr).toBe(0);
    expect(load(r.stdout, '\t')).toEqual([{ name: 'EGFR', type: 'target', papers: expect.stringMatching(/^\d+$/) }]);
  });

  it('opportunities as CSV: one kind of row, no blank rows; --analyses the other kind', async () => {
    const json = JSON.parse((await e2e.rsi(['opportunities', 'Oncology watchlist', '--json'])).stdout) as {
      keywords: { name: string; score: number }[];
      project_analyses: { items: { status: string }[] };
    };
    const csv = await e2e.rsi(['opportunities', 'Oncology watchlist', '--fields', 'name,score', '--format', 'csv']);
    expect(csv.code, csv.stderr).toBe(0);
    expect(csv.stdout.split('\r\n').filter((l) => /^,*$/.test(l))).toEqual(['']); // the end, no blank record
    const rows = load(csv.stdout, ',');
    // Numbers exactly as the JSON has them.
    expect(rows).toEqual(json.keywords.map((k) => ({ name: k.name, score: String(k.score) })));
    const analyses = load((await e2e.rsi(['opportunities', 'Oncology watchlist', '--analyses', '--format', 'csv'])).stdout, ',');
    expect(analyses.map((a) => a.status)).toEqual(json.project_analyses.items.map((i) => i.status));
    expect(Object.keys(analyses[0]!)).not.toContain('score');
    const tsv = load((await e2e.rsi(['opportunities', 'Oncology watchlist', '--format', 'tsv', '--header'])).stdout, '\t');
    expect(tsv.map((r) => r.name)).toEqual(json.keywords.map((k) => k.name));
    expect(Object.keys(tsv[0]!)).not.toContain('section');
  });
});

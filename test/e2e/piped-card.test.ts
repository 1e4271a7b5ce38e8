// A keyword card piped as tsv is one `field<TAB>value` line per field (issue 43, item 3; gh's
// `view` habit), through real processes: `| grep momentum` finds the momentum lines only.
import { describe, expect, it } from 'vitest';
import { runBash } from '../support/shell.js';
import { useSandbox } from '../support/e2e.js';

const e2e = useSandbox();

describe('keywords get, piped', () => {
  it('one field<TAB>value line per field, scores as dotted fields, the values those of --json', async () => {
    const r = await e2e.rsi(['keywords', 'get', 'EGFR']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.every((l) => l.split('\t').length === 2)).toBe(true);
    const fields = new Map(lines.map((l) => l.split('\t') as [string, string]));
    const card = JSON.parse((await e2e.rsi(['keywords', 'get', 'EGFR', '--json'])).stdout);
    expect(fields.get('id')).toBe(card.id);
    expect(fields.get('name')).toBe('EGFR');
    expect(fields.get('papers')).toBe(String(card.activity.papers));
    expect(fields.get('momentum.score')).toBe(String(card.scores.momentum.score));
    expect([...fields.keys()].slice(0, 3)).toEqual(['id', 'name', 'type']);
    expect(fields.has('section')).toBe(false);
  });

  it('| grep momentum is the momentum lines alone; --fields keeps those fields as lines', async () => {
    const env = { RSI_TOKEN: e2e.token, RSI_BASE_URL: e2e.url, RSI_CONFIG_DIR: e2e.configDir };
    const r = await runBash('rsi keywords get EGFR | grep momentum', { env });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).toMatch(/^momentum\.\w+\t/);
    const picked = await e2e.rsi(['keywords', 'get', 'EGFR', '--fields', 'name,composite.score']);
    expect(picked.stdout).toMatch(/^name\tEGFR\ncomposite\.score\t[\d.]+\n$/);
  });

  it('csv keeps its header and one row; with --include the tsv is the multi-part document', async () => {
    const csv = await e2e.rsi(['keywords', 'get', 'EGFR', '--format', 'csv']);
    expect(csv.stdout.split('\r\n').filter(Boolean)).toHaveLength(2);
    const parts = await e2e.rsi(['keywords', 'get', 'EGFR', '--include', 'indications']);
    expect(parts.stdout.split('\n')[0]).toMatch(/^keyword\t/);
    expect(parts.stdout).toMatch(/^indications\t/m);
  });
});

// The small things of issue 58 (item 5) that need the sandbox: `keywords search --type`.
import { describe, expect, it } from 'vitest';
import { useSandbox } from '../support/e2e.js';

const e2e = useSandbox();

describe('keywords search --type', () => {
  it('keeps the hits of those types, in every format, across every page with --all', async () => {
    const all = JSON.parse((await e2e.rsi(['keywords', 'search', 'in', '--all', '--json'])).stdout) as { type: string; name: string }[];
    const diseases = all.filter((h) => h.type === 'disease').map((h) => h.name);
    expect(diseases.length).toBeGreaterThan(0);
    expect(diseases.length).toBeLessThan(all.length);
    const walked = await e2e.rsi(['keywords', 'search', 'in', '--all', '--type', 'Disease', '--format', 'tsv']);
    expect(walked.code, walked.stderr).toBe(0);
    expect(
      walked.stdout
        .trimEnd()
        .split('\n')
        .map((l) => l.split('\t')[0]),
    ).toEqual(diseases);
    // One page: the document's data filtered, its meta as the service sent it.
    const page = await e2e.rsi(['keywords', 'search', 'in', '--type', 'disease,target', '--json']);
    const doc = JSON.parse(page.stdout) as { data: { type: string }[]; meta: { page: number } };
    expect(doc.data.every((h) => h.type === 'disease' || h.type === 'target')).toBe(true);
    expect(doc.meta.page).toBe(1);
  });

  it('none of that type: says so on stderr, exit 0; an empty --type is a usage error', async () => {
    const none = await e2e.rsi(['keywords', 'search', 'lung', '--type', 'nosuchtype']);
    expect(none.code).toBe(0);
    expect(none.stdout).toBe('');
    expect(none.stderr).toMatch(/^No keywords of type nosuchtype match "lung"/);
    const empty = await e2e.rsi(['keywords', 'search', 'lung', '--type', ',']);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('--type needs a type');
  });
});

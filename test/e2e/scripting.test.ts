// Scripting power end to end (issue 22): --jq, --fields (and gh's `--json a,b`), batches from stdin
// with exit 11, and `rsi api --paginate`, as real bin/rsi.js processes against a real sandbox.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundleModulesRun } from '../support/coverage.js';
import { useSandbox } from '../support/e2e.js';
import { sandboxStats } from '../support/sandbox.js';

const e2e = useSandbox();
const rsi = (args: string[], input?: string, env: Record<string, string> = {}) => e2e.rsi(args, { input, env });
const lines = (text: string): string[] => text.split('\n').filter((l) => l !== '');

describe('--jq', () => {
  it('filters with real jq: strings raw, other values JSON, one a line', async () => {
    const r = await rsi(['keywords', 'search', 'egfr', '--jq', '.data[] | select(.name == "EGFR") | .name, (.synonyms | length)']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('EGFR\n3\n');
  });

  it('is refused (exit 2) where the command prints text, not JSON; a schema is JSON', async () => {
    for (const [args, says] of [
      [['completion', 'bash'], 'rsi completion prints a shell script'],
      [['help', 'status'], 'rsi help prints help text (rsi help schema <command> prints JSON)'],
      [['help', 'schema'], 'rsi help prints help text'],
    ] as const) {
      const r = await rsi([...args, '--jq', '.']);
      expect({ code: r.code, out: r.stdout }, args.join(' ')).toEqual({ code: 2, out: '' });
      expect(r.stderr).toContain(`rsi: --jq: ${says}`);
    }
    expect((await rsi(['help', 'schema', 'status', '--jq', '.title'])).stdout).toBe('rsi status --json\n');
  });

  it('sees the whole --all collection as one array', async () => {
    const all = await rsi(['keywords', 'search', 'a', '--all', '--json']);
    const r = await rsi(['keywords', 'search', 'a', '--all', '--jq', 'length']);
    expect(r.code, r.stderr).toBe(0);
    expect(Number(r.stdout)).toBe((JSON.parse(all.stdout) as unknown[]).length);
  });

  it('with --format ndjson applies to each line', async () => {
    const r = await rsi(['keywords', 'relations', 'EGFR', '--relation', 'indications', '--all', '--format', 'ndjson', '--jq', '.name']);
    expect(r.code, r.stderr).toBe(0);
    expect(lines(r.stdout).length).toBeGreaterThan(1);
    expect(lines(r.stdout).every((l) => !l.startsWith('{'))).toBe(true);
  });

  it('an expression that does not compile: one line, exit 2, before any request', async () => {
    const before = (await sandboxStats(e2e.sandbox)).apiRequests;
    const r = await rsi(['keywords', 'search', 'egfr', '--jq', '.data[] | nosuchfn']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^rsi: --jq: nosuchfn\/0 is not defined at <top-level>, line 1, column 11\n/);
    expect((await sandboxStats(e2e.sandbox)).apiRequests).toBe(before);
  });

  it('cannot be combined with a table format', async () => {
    const r = await rsi(['projects', 'list', '--jq', '.', '--format', 'csv']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--jq prints JSON/);
  });

  it('loads the jq engine only when the flag is given', async () => {
    // jq-wasm is only in the engine's thread (dist/jq-worker.cjs), never in the bundle; the bundle's
    // engine module (src/io/jq.ts, which starts the thread) is one esbuild evaluates on first import.
    const bundle = readFileSync(new URL('../../dist/rsi.cjs', import.meta.url), 'utf8');
    expect(bundle).not.toContain('jq-wasm: ');
    const map = JSON.parse(readFileSync(new URL('../../dist/rsi.cjs.map', import.meta.url), 'utf8')) as { sources: string[] };
    expect(map.sources).toContain('../src/io/jq.ts');
    expect(map.sources.some((s) => s.includes('node_modules/jq-wasm/'))).toBe(false);
    // What a real bin/rsi.js process evaluated of the bundle, from V8's coverage (NODE_V8_COVERAGE).
    const engineRan = async (args: string[]): Promise<boolean> => {
      const dir = mkdtempSync(join(tmpdir(), 'rsi-coverage-'));
      const r = await e2e.rsiProcess(args, { env: { NODE_V8_COVERAGE: dir } });
      expect(r.code, r.stderr).toBe(0);
      return bundleModulesRun(dir).includes('src/io/jq.ts');
    };
    expect(await engineRan(['keywords', 'search', 'egfr', '--json', '--fields', 'name'])).toBe(false);
    expect(await engineRan(['keywords', 'search', 'egfr', '--jq', '.data[0].name'])).toBe(true);
  });
});

describe('--fields', () => {
  it('chooses and orders csv columns, header included', async () => {
    const r = await rsi(['projects', 'list', '--format', 'csv', '--fields', 'role,name']);
    expect(r.code, r.stderr).toBe(0);
    const rows = r.stdout.split('\r\n').filter(Boolean);
    expect(rows[0]).toBe('role,name');
    expect(rows.slice(1).every((row) => /^(owner|editor|viewer),/.test(row))).toBe(true);
  });

  it('keeps only those members in JSON rows; gh habit --json name,id means the same', async () => {
    const gh = await rsi(['projects', 'list', '--json', 'name,id']);
    const fields = await rsi(['projects', 'list', '--json', '--fields', 'name,id']);
    expect(gh.code, gh.stderr).toBe(0);
    expect(gh.stdout).toBe(fields.stdout);
    const { projects } = JSON.parse(gh.stdout) as { projects: Array<Record<string, unknown>> };
    expect(projects.length).toBeGreaterThan(0);
    for (const p of projects) expect(Object.keys(p)).toEqual(['name', 'id']);
  });

  it('with ndjson and --all keeps only those members of each item', async () => {
    const r = await rsi(['keywords', 'search', 'a', '--all', '--format', 'ndjson', '--fields', 'id,name']);
    expect(r.code, r.stderr).toBe(0);
    for (const l of lines(r.stdout)) expect(Object.keys(JSON.parse(l) as object)).toEqual(['id', 'name']);
  });

  it('an unknown name: exit 2 listing the valid ones, before any request', async () => {
    const before = (await sandboxStats(e2e.sandbox)).apiRequests;
    const r = await rsi(['keywords', 'search', 'egfr', '--fields', 'name,nmae']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'rsi: --fields: unknown field nmae for rsi keywords search (did you mean name?)\nhint: valid fields: name, type, synonyms, id\n',
    );
    expect((await sandboxStats(e2e.sandbox)).apiRequests).toBe(before);
  });

  it('--help lists the fields of the command', async () => {
    const r = await rsi(['signals', '--help']);
    // Help wraps at the width (issue 23): the list is read with its line breaks folded.
    expect(r.stdout.replace(/\s+/g, ' ')).toMatch(
      /Fields \(--fields, --json a,b\): rank, name, type, analysed, keyword_id, signal_keyword_id, position/,
    );
  });
});

describe('batches from stdin', () => {
  const input = 'EGFR\n# a comment\n\nnosuchkeyword\n{"name": "KRAS"}\nerbb1\n';

  it('keywords get -: rows in input order, an error row and exit 11 for a failed item', async () => {
    const r = await rsi(['keywords', 'get', '-', '--format', 'ndjson'], input);
    expect(r.code).toBe(11);
    const rows = lines(r.stdout).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(rows.map((x) => x.name ?? x.input)).toEqual(['EGFR', 'nosuchkeyword', 'KRAS', 'EGFR']);
    expect(rows[1]).toEqual({ input: 'nosuchkeyword', error: 'no keyword named "nosuchkeyword"', error_code: 'ambiguous_name' });
    expect(r.stderr).toMatch(/^rsi: nosuchkeyword: no keyword named "nosuchkeyword"$/m);
    expect(r.stderr).toMatch(/^rsi: 1 of 4 items failed \(1 ambiguous_name\)$/m);
  });

  it('keywords get -: exit 0 when all succeed; csv with the input first', async () => {
    const r = await rsi(['keywords', 'get', '-', '--format', 'csv', '--fields', 'input,name,id'], 'erbb1\nKRAS\n');
    expect(r.code, r.stderr).toBe(0);
    const rows = r.stdout.split('\r\n').filter(Boolean);
    expect(rows[0]).toBe('input,name,id');
    expect(rows.slice(1).map((row) => row.split(',').slice(0, 2).join(','))).toEqual(['erbb1,EGFR', 'KRAS,KRAS']);
  });

  it('keywords relations - --relation R: links of each input, tagged with it', async () => {
    const r = await rsi(['keywords', 'relations', '-', '--relation', 'indications', '--limit', '2', '--format', 'tsv'], 'EGFR\nKRAS\n');
    expect(r.code, r.stderr).toBe(0);
    expect(lines(r.stdout).map((l) => l.split('\t')[0])).toEqual(['EGFR', 'EGFR', 'KRAS', 'KRAS']);
  });

  it('names resolve once per batch (one search for a repeated name)', async () => {
    const before = (await sandboxStats(e2e.sandbox)).byRoute;
    const r = await rsi(['keywords', 'get', '-', '--format', 'ndjson'], 'KRAS\nkras\nKRAS\n');
    expect(r.code, r.stderr).toBe(0);
    const after = (await sandboxStats(e2e.sandbox)).byRoute;
    const searches = Object.entries(after)
      .filter(([route]) => /keywords$/.test(route) && /GET/.test(route))
      .reduce((n, [route, count]) => n + count - (before[route] ?? 0), 0);
    expect(searches).toBe(1);
  });
});

describe('rsi api', () => {
  it('--paginate merges every page into one document; --jq sees it whole', async () => {
    const all = await rsi(['keywords', 'search', 'a', '--all', '--jq', 'length']);
    const r = await rsi(['api', '/keywords', '--field', 'q=a', '--field', 'limit=5', '--paginate', '--jq', '.data | length']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(all.stdout);
  });

  it('-i shows the status and headers on stderr; --silent keeps stdout empty; Authorization is refused', async () => {
    const r = await rsi(['api', '/projects', '-i', '--silent']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^HTTP 200\ncontent-type: application\/json/);
    const auth = await rsi(['api', '/projects', '-H', 'Authorization: Bearer stolen']);
    expect(auth.code).toBe(2);
    expect(auth.stderr).toMatch(/^rsi: --header Authorization is set by rsi itself/);
  });
});

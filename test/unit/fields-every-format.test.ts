// Issue 40, item 2: every field a command lists works in every format, or is refused there with
// exit 2 and the declaration's sentence; never an empty `{}` with exit 0. Walks the registry
// (every command with fields × every field × every format × one input and many), in process:
// main() against an in-process sandbox.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommandDeclaration, Field } from '../../src/commands/declaration.js';
import { loadDeclarations } from '../../src/commands/registry.js';
import { OUTPUT_FORMATS, type OutputFormat } from '../../src/formats.js';
import { main } from '../../src/main.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { fakeIo } from '../support/fakes.js';
import { obtainTokens } from '../support/oauth.js';

const PROJECT = 'Oncology watchlist';

const KEYWORD = 'EGFR';

/**
 * Each command's line, from its declaration's `sample` (the sandbox's project and keyword for
 * `{project}` and `{keyword}`): one input, more lines with one input where some fields need a flag
 * (`--analyses`), and (where it takes them) many from stdin: the keyword and one that does not
 * exist, so a batch has an error row.
 */
function linesOf(declaration: CommandDeclaration): { single: string[]; more?: string[][]; batch?: { argv: string[]; stdin: string } } {
  const sample = declaration.sample;
  if (!sample) throw new Error(`rsi ${declaration.path} lists fields but declares no sample line`);
  const fill = (words: readonly string[]) => [
    ...declaration.path.split(' '),
    ...words.map((w) => w.replaceAll('{project}', PROJECT).replaceAll('{keyword}', KEYWORD)),
  ];
  return {
    single: fill(sample.line),
    more: (sample.more ?? []).map(fill),
    ...(sample.batch ? { batch: { argv: fill(sample.batch), stdin: `${KEYWORD}\nno such keyword zzz\n` } } : {}),
  };
}

let sandbox: Sandbox;
let env: Record<string, string>;
let dir: string;
/** `analyses run --selections -`: a fresh signal each time, and one analysed before. */
let selections: () => string;

beforeAll(async () => {
  // Tokens outlive the clock moved on below.
  sandbox = await startSandbox({ autoApprove: true, tokenTtlSeconds: 10 * 365 * 86_400 });
  const [api, mcp] = await Promise.all([obtainTokens(sandbox.url), obtainTokens(sandbox.url, { resource: `${sandbox.url}/mcp` })]);
  dir = mkdtempSync(join(tmpdir(), 'rsi-fields-'));
  env = { RSI_TOKEN: api.access_token, RSI_MCP_TOKEN: mcp.access_token, RSI_BASE_URL: sandbox.url, RSI_CONFIG_DIR: dir };
  const listed = await rsi(['signals', PROJECT, '--json', '--limit', '500']);
  // Signals the seed has not analysed yet: each is run once, then stays analysed.
  const [analysed, ...fresh] = (JSON.parse(listed.out).signals as { keyword_id: string; signal_keyword_id: string; analysed: boolean }[])
    .filter((s) => !s.analysed)
    .map((s) => ({ keyword_id: s.keyword_id, signal_keyword_id: s.signal_keyword_id }));
  expect((await rsi(['analyses', 'run', PROJECT, '--selections', '-', '--yes'], JSON.stringify([analysed]))).code).toBe(0);
  sandbox.advance(86_400);
  selections = () => {
    const next = fresh.shift();
    if (!next) throw new Error('the project has no signal left to analyse');
    return JSON.stringify([next, analysed]);
  };
});

afterAll(async () => {
  await sandbox?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function rsi(argv: readonly string[], stdin = ''): Promise<{ code: number; out: string; err: string }> {
  const io = fakeIo({ tty: false });
  io.stdinStream.end(stdin);
  const code = await main({ argv: [...argv], env, io });
  return { code, out: io.out(), err: io.err() };
}

/** What the declaration says `--fields NAME` does in this format and mode: a refusal's sentence, or none. */
function declaredRefusal(field: Field, format: OutputFormat, batch: boolean, argv: readonly string[]): string | undefined {
  if (field.mode === 'batch' && !batch) return 'exists only when';
  if (field.mode === 'single' && batch) return 'exists only for one input';
  // The options as commander gives them to the command (`--include a` → { include: ['a'] }).
  const opts: Record<string, unknown> = {};
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    if (!flag.startsWith('--')) continue;
    const key = flag.slice(2).replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());
    const next = argv[i + 1];
    // A flag with no value (`--analyses`, `--yes`) is true; `--selections -` reads stdin.
    if (next === undefined || next.startsWith('--')) opts[key] = true;
    else if (!next.startsWith('-')) opts[key] = key === 'include' ? [next] : next;
  }
  const missing = field.requires?.({ args: [], opts });
  if (missing) return missing;
  const json = format === 'json' || format === 'ndjson';
  if (json && 'refused' in field.json) return field.json.refused;
  if (!json && 'refused' in field.column) return field.column.refused;
  if (format === 'table' && field.table) return field.table.refused;
  return undefined;
}

/**
 * Whether `--json NAME` reads back as the key NAME: in the row, or in the rows of a part on the
 * field's declared path (`analyses` of a status), which stays where it is.
 */
function readsBack(value: unknown, path: readonly string[], name: string): boolean {
  if (Array.isArray(value)) return value.some((v) => readsBack(v, path, name));
  if (value === null || typeof value !== 'object') return false;
  if (Object.hasOwn(value, name)) return true;
  const [head = '', ...rest] = path;
  return rest.length > 0 && Object.hasOwn(value, head) && readsBack((value as Record<string, unknown>)[head], rest, name);
}

/** The rows a JSON document carries: the document itself, and the members of its rows list. */
function rowsOf(doc: unknown, declaration: CommandDeclaration): unknown[] {
  const rows = declaration.fields?.rows;
  if (Array.isArray(doc)) return doc;
  const list = rows !== undefined && doc !== null && typeof doc === 'object' ? (doc as Record<string, unknown>)[rows] : undefined;
  return Array.isArray(list) ? [doc, ...list] : [doc];
}

function checkPresent(declaration: CommandDeclaration, field: Field, format: OutputFormat, out: string): void {
  if (format === 'json' || format === 'ndjson') {
    const docs =
      format === 'json'
        ? [JSON.parse(out)]
        : out
            .trim()
            .split('\n')
            .map((l) => JSON.parse(l));
    // A batch's failed input is a row of its own (`{"input","error"}`), which a card's field leaves empty.
    expect(
      docs.some((d) => JSON.stringify(d) !== '{}'),
      'only empty documents',
    ).toBe(true);
    const paths = 'paths' in field.json ? field.json.paths : [];
    const rows = docs.flatMap((d) => rowsOf(d, declaration));
    expect(
      rows.some((r) => paths.some((p) => readsBack(r, p.split('.'), field.name))),
      `no key ${field.name} (from ${paths.join(' or ')}) in ${out.slice(0, 300)}`,
    ).toBe(true);
    return;
  }
  if (format === 'csv') {
    const header = out.split('\r\n')[0]!.split(',');
    expect(
      header.some((h) => h === field.name || h.startsWith(`${field.name}.`)),
      `header ${header.join(',')}`,
    ).toBe(true);
    expect(out.split('\r\n').filter(Boolean).length, 'no data row').toBeGreaterThan(1);
    return;
  }
  // tsv (no header) and the table: some value printed, not only empty cells.
  expect(out.replace(/\s/g, ''), 'nothing printed').not.toBe('');
}

const commands = [...(await loadDeclarations()).values()].filter((d) => d.fields);

/** A line that reads its selections from stdin (`analyses run --selections -`): each run gets a fresh signal. */
function readsSelections(argv: readonly string[]): boolean {
  return argv.some((w, i) => w === '--selections' && argv[i + 1] === '-');
}

describe('every listed field in every format (the registry walked)', () => {
  it('every command with fields declares a sample line that shows them', () => {
    expect(commands.filter((d) => !d.sample).map((d) => d.path)).toEqual([]);
  });

  it('no field is refused in every format', () => {
    for (const d of commands) {
      for (const f of d.fields!.list) {
        const modes = f.mode ? [f.mode === 'batch'] : [false, true];
        const line = linesOf(d);
        const works = modes.some((batch) =>
          (batch ? [line.batch!.argv] : [line.single, ...(line.more ?? [])]).some((argv) =>
            OUTPUT_FORMATS.some((fmt) => declaredRefusal(f, fmt, batch, argv) === undefined),
          ),
        );
        expect(works, `${d.path} ${f.name}`).toBe(true);
      }
    }
  });

  for (const declaration of commands) {
    it(`rsi ${declaration.path}: each field × format gives its member, or exit 2 saying why`, async () => {
      const line = linesOf(declaration);
      const single = { batch: false, argv: line.single, stdin: readsSelections(line.single) ? selections : () => '' };
      const more = (line.more ?? []).map((argv) => ({ batch: false, argv, stdin: () => '' }));
      const modes = [single, ...more, ...(line.batch ? [{ batch: true, argv: line.batch.argv, stdin: () => line.batch!.stdin }] : [])];
      const problems: string[] = [];
      for (const mode of modes) {
        for (const field of declaration.fields!.list) {
          for (const format of OUTPUT_FORMATS) {
            const what = `${mode.argv.join(' ')}${mode.batch ? ' -' : ''} --format ${format} --fields ${field.name}`;
            const refusal = declaredRefusal(field, format, mode.batch, mode.argv);
            // A refused line reads no input: give it none (the fresh signals are few).
            const r = await rsi([...mode.argv, '--format', format, '--fields', field.name], refusal === undefined ? mode.stdin() : '');
            try {
              if (refusal !== undefined) {
                expect(r.code, r.err).toBe(2);
                expect(r.out).toBe('');
                expect(r.err).toContain(`rsi: --fields ${field.name}: `);
                expect(r.err).toContain(refusal);
              } else {
                // A batch with a failing input exits 11 (docs/scripting.md); everything else 0.
                expect(r.code, r.err).toBe(mode.batch ? 11 : 0);
                checkPresent(declaration, field, format, r.out);
              }
            } catch (error) {
              problems.push(`${what}: ${(error as Error).message.split('\n')[0]}`);
            }
          }
        }
      }
      expect(problems).toEqual([]);
    });
  }

  it('every csv column is a declared field, in both modes (the columns and the field list cannot drift apart)', async () => {
    const problems: string[] = [];
    for (const declaration of commands) {
      const line = linesOf(declaration);
      const modes = [
        { batch: false, argv: line.single, stdin: () => (readsSelections(line.single) ? selections() : '') },
        ...(line.more ?? []).map((argv) => ({ batch: false, argv, stdin: () => '' })),
        ...(line.batch ? [{ batch: true, argv: line.batch.argv, stdin: () => line.batch!.stdin }] : []),
      ];
      for (const mode of modes) {
        const r = await rsi([...mode.argv, '--format', 'csv'], mode.stdin());
        const header = r.out.split('\r\n')[0]!.split(',');
        const declared = declaration.fields!.list.filter((f) => f.mode === undefined || (f.mode === 'batch') === mode.batch);
        for (const column of header) {
          // A column no field declares is a member the spec does not list (csv keeps it); a declared
          // field must give its column.
          const field = declared.find((f) => f.name === column.split('.')[0]);
          if (field !== undefined && 'refused' in field.column)
            problems.push(`${declaration.path}${mode.batch ? ' -' : ''}: column ${column}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('--json a,b is --fields in JSON: each name typed reads back as a key, a dotted rest nested below it', async () => {
    const r = await rsi(['keywords', 'get', 'EGFR', '--json', 'name,momentum.score,papers,scores_as_of']);
    expect(r.code).toBe(0);
    const card = JSON.parse(r.out);
    expect(Object.keys(card)).toEqual(['name', 'momentum', 'papers', 'scores_as_of']);
    expect(Object.keys(card.momentum)).toEqual(['score']);
    expect(typeof card.papers).toBe('number');
    expect(typeof card.scores_as_of).toBe('string');
    // --jq reads the name back as typed (issue 55: `.scores_as_of` was null).
    const jq = await rsi(['keywords', 'get', 'EGFR', '--fields', 'scores_as_of', '--jq', '.scores_as_of']);
    expect(jq.code, jq.err).toBe(0);
    expect(jq.out).toBe(`${card.scores_as_of}\n`);
    // A JSON-only member and the path below it keep their nesting.
    const deep = await rsi(['keywords', 'get', 'EGFR', '--json', 'scores.composite.score']);
    expect(Object.keys(JSON.parse(deep.out).scores.composite)).toEqual(['score']);
    // A dotted path into a JSON-only member is a column of its own in csv.
    const csv = await rsi(['keywords', 'get', 'EGFR', '--format', 'csv', '--fields', 'name,scores.composite.score']);
    expect(csv.code, csv.err).toBe(0);
    expect(csv.out.split('\r\n')[0]).toBe('name,scores.composite.score');
    expect(csv.out.split('\r\n')[1]).toMatch(/^EGFR,\d/);
    const status = await rsi(['status', PROJECT, '--json', 'keyword_name,status']);
    expect(status.code).toBe(0);
    const analyses = JSON.parse(status.out).analyses as Record<string, unknown>[];
    expect(analyses.length).toBeGreaterThan(0);
    for (const a of analyses) expect(Object.keys(a)).toEqual(['keyword_name', 'status']);
  });
});

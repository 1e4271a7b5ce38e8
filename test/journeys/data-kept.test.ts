// Nothing a row carries is dropped, and a loader can trust csv/tsv (issue 41 item 5, issue 46
// item 6), through real `bin/rsi.js` processes against a foreign node:http server on loopback (not
// the sandbox, which sends only what the spec lists): members the spec does not list get columns
// after the declared ones and are taken by --fields; an unpaired surrogate shows as an escape; `{}`
// reads the same at every depth; the England flag and U+06DD stay as they are; an empty
// opportunities csv is its header; batch rows carry their input.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { startStub, type StubServer } from '../support/stub-server.js';

let server: StubServer;
let base: string;
const KEYWORD = '00000000-0000-4000-8000-000000000001';
const EMPTY_PROJECT = '00000000-0000-4000-8000-0000000000e0';
const FULL_PROJECT = '00000000-0000-4000-8000-0000000000f0';
const ENGLAND = '\u{1F3F4}\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}';

// The search reply as JSON text: `\ud800` is an unpaired surrogate once parsed.
const SEARCH =
  '{"data":[' +
  `{"id":"k1","name":"Lone \\ud800 half","type":"target","synonyms":[],"rank_hint":3,"meta":{"source":"pubmed","extra":{}},"empty":{}},` +
  `{"id":"k2","name":"${ENGLAND} and \u06dd12 and a\\u200bhidden","type":"disease","synonyms":["x"],"later":true,"empty":{}}` +
  '],"meta":{"page":1,"pageSize":10}}';

const CARD = JSON.stringify({
  id: KEYWORD,
  name: 'EGFR',
  type: 'target',
  description: null,
  synonyms: [],
  novelty_index: 7,
  activity: { papers: 1, patents: 2, trials: 3, assets: 4, citations: 5 },
  scores: { as_of: '2026-11-01', composite: { score: 12.5 } },
  indications: { data: [{ id: 'i1', name: 'NSCLC', count: 2, stage: null }], total: 1 },
});

const RELATIONS = '{"data":[{"id":"r1","name":"NSCLC","count":2}],"meta":{"relation":"indications","limit":20,"offset":0,"total":1}}';

const FULL_OPPORTUNITIES = JSON.stringify({
  keywords: [{ keyword_id: 'k1', name: 'Alpha', type: 'target', score: 80, scored_at: '2026-11-01T00:00:00Z' }],
  project_analyses: {
    total: 1,
    by_status: { done: 1 },
    items: [{ id: 'a1', keyword_id: 'k1', keyword_name: 'Alpha', kind: 'full', status: 'done' }],
  },
  error: null,
});

beforeAll(async () => {
  server = await startStub((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname.replace(/^\/api\/v1/, '');
    const send = (text: string): void => void res.writeHead(200, { 'content-type': 'application/json' }).end(text);
    if (path === '/keywords') return send(SEARCH);
    if (path === `/keywords/${KEYWORD}`) return send(CARD);
    if (path === `/keywords/${KEYWORD}/relations`) return send(RELATIONS);
    if (path === `/projects/${EMPTY_PROJECT}/opportunities`) return send('{"keywords":[],"error":null}');
    if (path === `/projects/${FULL_PROJECT}/opportunities`) return send(FULL_OPPORTUNITIES);
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Not found"}');
  });
  base = server.url;
});
afterAll(() => server?.close());

const rsi = (args: string[], stdin?: string) =>
  runCli(args, {
    env: { RSI_TOKEN: 'data-kept-token', RSI_BASE_URL: base, RSI_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'rsi-kept-')) },
    ...(stdin === undefined ? {} : { input: stdin }),
  });

describe('every format keeps what the row carries (issue 41, item 5)', () => {
  it('csv: the declared columns, then the members the spec does not list in first-seen order; {} the same at every depth', async () => {
    const r = await rsi(['keywords', 'search', 'x', '--format', 'csv']);
    expect(r.code, r.stderr).toBe(0);
    const [header, first, second] = r.stdout.split('\r\n');
    expect(header).toBe('name,type,synonyms,id,rank_hint,meta.source,meta.extra,empty,later');
    // `{}` one level down (meta.extra) and at the top of the row (empty) both read `{}`.
    expect(first).toBe('Lone \\ud800 half,target,[],k1,3,pubmed,{},{},');
    // The flag and the end-of-ayah sign as sent; the zero-width space still shown.
    expect(second).toBe(`${ENGLAND} and \u06dd12 and a\\u200bhidden,disease,"[""x""]",k2,,,,{},true`);
    expect(r.stdout).not.toContain('\ufffd');
  });

  it('tsv: the same columns in the same order, no header', async () => {
    const r = await rsi(['keywords', 'search', 'x', '--format', 'tsv']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.map((l) => l.split('\t').length)).toEqual([9, 9]);
    expect(lines[0]).toBe('Lone \\ud800 half\ttarget\t[]\tk1\t3\tpubmed\t{}\t{}\t');
  });

  it('--fields takes a member the spec does not list, in csv and in JSON', async () => {
    const csv = await rsi(['keywords', 'search', 'x', '--format', 'csv', '--fields', 'name,rank_hint,meta.source']);
    expect(csv.code, csv.stderr).toBe(0);
    expect(csv.stdout.split('\r\n').slice(0, 3)).toEqual([
      'name,rank_hint,meta.source',
      'Lone \\ud800 half,3,pubmed',
      `${ENGLAND} and \u06dd12 and a\\u200bhidden,,`,
    ]);
    const json = await rsi(['keywords', 'search', 'x', '--json', 'id,rank_hint']);
    expect(json.code, json.stderr).toBe(0);
    expect((JSON.parse(json.stdout) as { data: unknown[] }).data).toEqual([{ id: 'k1', rank_hint: 3 }, { id: 'k2' }]);
  });

  it("a card's members the spec does not list get columns, its --include sections stay their own parts", async () => {
    const r = await rsi(['keywords', 'get', KEYWORD, '--include', 'indications', '--format', 'csv']);
    expect(r.code, r.stderr).toBe(0);
    const header = r.stdout.split('\r\n')[0]!.split(',');
    // In the order the card's members come (the schema's own members first, then the rest).
    expect(header.slice(-2)).toEqual(['activity.citations', 'novelty_index']);
    expect(header).not.toContain('indications');
    expect(header).not.toContain('activity.papers');
    const card = r.stdout.split('\r\n')[1]!.split(',');
    expect(card.slice(-2)).toEqual(['5', '7']);
  });
});

describe('output a loader can trust (issue 46, item 6)', () => {
  // One kind of row per csv (issue 58): the scored keywords, or with --analyses the analyses.
  const HEADER = 'name,type,score,momentum,maturity,competition,risk,translation,analysis_mode,keyword_id,scored_at';

  it('an empty opportunities csv is its header; with data, the same 11 columns; --analyses the other kind', async () => {
    const empty = await rsi(['opportunities', EMPTY_PROJECT, '--format', 'csv']);
    expect(empty.code, empty.stderr).toBe(0);
    expect(empty.stdout).toBe(`${HEADER}\r\n`);
    const full = await rsi(['opportunities', FULL_PROJECT, '--format', 'csv']);
    expect(full.code, full.stderr).toBe(0);
    expect(full.stdout).toBe(`${HEADER}\r\nAlpha,target,80,,,,,,,k1,2026-11-01T00:00:00Z\r\n`);
    const analyses = await rsi(['opportunities', FULL_PROJECT, '--format', 'csv', '--analyses']);
    expect(analyses.code, analyses.stderr).toBe(0);
    const lines = analyses.stdout.split('\r\n');
    expect(lines[0]).toMatch(/^id,keyword_id,keyword_name,kind,status,updated_at/);
    expect(lines[1]).toMatch(/^a1,k1,Alpha,full,done,/);
    expect(lines).toHaveLength(3);
  });

  it('opportunities takes --fields, in csv and in JSON', async () => {
    const csv = await rsi(['opportunities', FULL_PROJECT, '--format', 'csv', '--fields', 'name,score']);
    expect(csv.code, csv.stderr).toBe(0);
    expect(csv.stdout).toBe('name,score\r\nAlpha,80\r\n');
    const json = await rsi(['opportunities', FULL_PROJECT, '--json', 'name,score']);
    expect(json.code, json.stderr).toBe(0);
    expect((JSON.parse(json.stdout) as { keywords: unknown[] }).keywords).toEqual([{ name: 'Alpha', score: 80 }]);
  });

  it('batch rows carry the input they answer, in ndjson and json', async () => {
    const get = await rsi(['keywords', 'get', '-', '--format', 'ndjson'], `${KEYWORD}\n`);
    expect(get.code, get.stderr).toBe(0);
    const card = JSON.parse(get.stdout) as Record<string, unknown>;
    expect(Object.keys(card)[0]).toBe('input');
    expect(card).toMatchObject({ input: KEYWORD, name: 'EGFR', novelty_index: 7 });
    const rel = await rsi(['keywords', 'relations', '-', '--relation', 'indications', '--format', 'json'], `${KEYWORD}\n`);
    expect(rel.code, rel.stderr).toBe(0);
    expect(JSON.parse(rel.stdout)).toEqual([{ input: KEYWORD, id: 'r1', name: 'NSCLC', count: 2 }]);
  });
});

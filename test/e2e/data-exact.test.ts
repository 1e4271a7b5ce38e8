// Numbers and depth as the service sent them (issue 30, items 3 and 5), through real `bin/rsi.js`
// processes against a foreign node:http server on loopback: `1.10` stays `1.10`, big integers and
// long fractions keep their digits in --json, NDJSON, CSV and TSV, and a 100,000-deep reply prints.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/inproc.js';
import { startStub, type StubServer } from '../support/stub-server.js';

// Each test starts several rsi processes on a machine that may be busy: generous bounds, which
// only a hang reaches (vitest's 300 s per test; runCli kills a child after 240 s).

let server: StubServer;
let base: string;
const KEYWORD = '00000000-0000-4000-8000-000000000001';
const DEPTH = 100_000;
const DEEP = `{"data":${'['.repeat(DEPTH)}12345678901234567891${']'.repeat(DEPTH)}}`;
// Relations whose numbers JavaScript would spell otherwise; the second row repeats none of them.
const RELATIONS =
  `{"data":[{"id":"00000000-0000-4000-8000-0000000000a1","name":"Alpha","count":7.0,"big":12345678901234567891,"weight":1.10,"ratio":0.10000000000000000555},` +
  `{"id":"00000000-0000-4000-8000-0000000000a2","name":"Beta","count":2,"weight":1e2,"ratio":-0}],` +
  `"meta":{"relation":"indications","limit":100,"offset":0,"total":2.0}}`;

const CARD =
  `{"id":"${KEYWORD}","name":"EGFR","type":"target","description":"a receptor","synonyms":["ERBB1"],` +
  `"activity":{"papers":1,"patents":2,"trials":null,"assets":4},` +
  `"scores":{"as_of":"2026-11-01","composite":{"score":12.50,"raw":3.10,"label":"Low","description":"Low composite"},"momentum":null},` +
  `"indications":{"data":[{"id":"i1","name":"NSCLC","count":20,"stage":null}],"total":1}}`;

beforeAll(async () => {
  server = await startStub((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname.replace(/^\/api\/v1/, '');
    const send = (text: string): void => void res.writeHead(200, { 'content-type': 'application/json' }).end(text);
    if (path === '/deep') return send(DEEP);
    if (path === `/keywords/${KEYWORD}`) return send(CARD);
    if (path === `/keywords/${KEYWORD}/relations`)
      return send(
        Number(url.searchParams.get('offset') ?? '0') === 0
          ? RELATIONS
          : '{"data":[],"meta":{"relation":"indications","limit":100,"offset":2,"total":2}}',
      );
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Not found"}');
  });
  base = server.url;
});
afterAll(() => server?.close());

const env = () => ({ RSI_TOKEN: 'data-exact-token', RSI_BASE_URL: base, RSI_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'rsi-exact-')) });
const relations = (...more: string[]) => runCli(['keywords', 'relations', KEYWORD, '--relation', 'indications', ...more], { env: env() });

describe('every number as the service sent it (issue 30, item 3)', () => {
  it('rsi api prints the reply with every literal as sent', async () => {
    const r = await runCli(['api', `/keywords/${KEYWORD}/relations`], { env: env() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${RELATIONS}\n`);
  });

  it('--json (a typed command, its reply checked by the schema) and ndjson keep every literal', async () => {
    const json = await relations('--json');
    expect(json.code, json.stderr).toBe(0);
    expect(json.stdout).toBe(`${RELATIONS}\n`);
    const nd = await relations('--all', '--format', 'ndjson');
    expect(nd.code, nd.stderr).toBe(0);
    expect(nd.stdout).toBe(
      '{"id":"00000000-0000-4000-8000-0000000000a1","name":"Alpha","count":7.0,"big":12345678901234567891,"weight":1.10,"ratio":0.10000000000000000555}\n' +
        '{"id":"00000000-0000-4000-8000-0000000000a2","name":"Beta","count":2,"weight":1e2,"ratio":-0}\n',
    );
  });
});

describe('numbers in csv and tsv cells (issue 30, items 3 and 6)', () => {
  it('a plain column prints the literal of the member it took (count 7.0), big integers in full', async () => {
    const csv = await relations('--format', 'csv', '--fields', 'name,count');
    expect(csv.code, csv.stderr).toBe(0);
    expect(csv.stdout).toBe('name,count\r\nAlpha,7.0\r\nBeta,2\r\n');
  });
});

describe('any depth prints (issue 30, item 5)', () => {
  it('a 100,000-deep reply through rsi api --json and --debug: exact on stdout, the trace says it was not walked', async () => {
    const r = await runCli(['api', '/deep', '--json', '--debug'], { env: env() });
    expect(r.code, r.stderr.slice(0, 500)).toBe(0);
    expect(r.stdout).toBe(`${DEEP}\n`);
    expect(r.stderr).not.toContain('Maximum call stack');
    expect(r.stderr).toMatch(/\[\d+ bytes of application\/json could not be redacted\]/);
  });
});

describe('nested values as dotted columns, only the columns asked for (issue 30, item 6)', () => {
  const get = (...more: string[]) => runCli(['keywords', 'get', KEYWORD, ...more], { env: env() });

  it('keywords get --fields name,composite --format csv: no section column, the score as dotted columns, numbers as sent', async () => {
    const r = await get('--fields', 'name,composite', '--format', 'csv');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(
      'name,composite.score,composite.raw,composite.label,composite.description\r\nEGFR,12.50,3.10,Low,Low composite\r\n',
    );
  });

  it('a dotted path into the card, in tsv and in JSON; --json with one field as gh takes it', async () => {
    const tsv = await get('--fields', 'scores.composite.score,name,section', '--format', 'tsv', '--include', 'indications');
    expect(tsv.code, tsv.stderr).toBe(0);
    expect(tsv.stdout).toBe('12.50\tEGFR\tkeyword\n\tNSCLC\tindications\n');
    const json = await get('--json', 'scores.composite.score');
    expect(json.code, json.stderr).toBe(0);
    expect(json.stdout).toBe('{"scores":{"composite":{"score":12.50}}}\n');
    const one = await get('--json', 'name');
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout).toBe('{"name":"EGFR"}\n');
  });

  it('without --fields, csv has the whole card: every score member, the null score too, as its own columns', async () => {
    const r = await get('--format', 'csv');
    expect(r.code, r.stderr).toBe(0);
    const [head, row] = r.stdout.split('\r\n');
    expect(head).toBe(
      'section,id,name,type,synonyms,description,papers,patents,trials,assets,scores_as_of,' +
        ['composite', 'momentum', 'maturity', 'competition', 'risk', 'translation']
          .map((n) => ['score', 'raw', 'label', 'description'].map((m) => `${n}.${m}`).join(','))
          .join(',') +
        // The section this server sends unasked is a member the spec does not list for this
        // request: kept, after the declared columns (issue 41, item 5).
        ',indications.data,indications.total',
    );
    expect(row).toContain(',12.50,3.10,Low,Low composite,');
    // Only that list is JSON in its cell; every object of the card is dotted columns.
    expect(row!.replace(/"\[.*\]"/, '')).not.toContain('{');
  });
});

// Search --all trusts only an empty page: a real `bin/rsi.js` against a foreign node:http server
// that filters rows after paging, so it sends 7 hits a page while echoing pageSize 20 (23 hits in
// all: 7, 7, 7, 2, then an empty page). Stopping at the first short page returned 7 of 23.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/inproc.js';
import { startStub, type StubServer } from '../support/stub-server.js';

const TOTAL = 23;
const PER_PAGE = 7;
let server: StubServer;
let base: string;
const pagesAsked: number[] = [];

beforeAll(async () => {
  server = await startStub((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname !== '/api/v1/keywords') {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Not found"}');
      return;
    }
    const page = Number(url.searchParams.get('page') ?? '1');
    pagesAsked.push(page);
    const data = [];
    for (let i = (page - 1) * PER_PAGE; i < Math.min(TOTAL, page * PER_PAGE); i++) {
      data.push({ id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, name: `Hit ${i}`, type: 'target', synonyms: [] });
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ data, meta: { page, pageSize: 20 } }));
  });
  base = server.url;
});
afterAll(() => server?.close());

describe('keywords search --all against short pages', () => {
  it('returns all 23 hits, each once, in order: a page shorter than meta.pageSize is not the end', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rsi-short-'));
    const r = await runCli(['keywords', 'search', 'x', '--all', '--json'], {
      env: { RSI_TOKEN: 'short-pages-token', RSI_BASE_URL: base, RSI_CONFIG_DIR: dir },
    });
    expect(r.code, r.stderr).toBe(0);
    const hits = JSON.parse(r.stdout) as { name: string }[];
    expect(hits.map((h) => h.name)).toEqual(Array.from({ length: TOTAL }, (_, i) => `Hit ${i}`));
    // The empty page 5 ended the walk.
    expect(pagesAsked).toContain(5);
  });
});

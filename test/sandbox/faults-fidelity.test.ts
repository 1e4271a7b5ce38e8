// The field-grade faults at the HTTP level: short-pages, wrong-total and sparse each change the
// replies exactly as docs/sandbox.md says, and the data stays addressable. One in-process sandbox
// per fault plus a plain one to compare with, started once for the file.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { obtainTokens } from '../support/oauth.js';
import { apiCaller, type ApiReply } from '../support/sandbox.js';

type Api = (path: string, init?: RequestInit) => Promise<ApiReply>;
const started: Sandbox[] = [];
let plain: Api;
let short: Api;
let wrong: Api;
let sparse: Api;

async function start(faults: string[]): Promise<{ api: Api; url: string }> {
  const sb = await startSandbox({ autoApprove: true, timeScale: 1000, faults });
  started.push(sb);
  return { api: apiCaller(sb.url, (await obtainTokens(sb.url)).access_token), url: sb.url };
}

beforeAll(async () => {
  const [p, s, w, sp] = await Promise.all([start([]), start(['short-pages']), start(['wrong-total']), start(['sparse'])]);
  plain = p.api;
  short = s.api;
  wrong = w.api;
  sparse = sp.api;
});
afterAll(async () => {
  await Promise.all(started.map((s) => s.close()));
});

async function keywordId(api: Api, name: string): Promise<string> {
  const hit = (await api(`/keywords?q=${encodeURIComponent(name)}&limit=20`)).body.data.find(
    (k: { id: string; name: string }) => k.name === name,
  );
  if (!hit) throw new Error(`no keyword ${name}`);
  return hit.id;
}

async function projectId(api: Api, name: string): Promise<string> {
  return (await api('/projects')).body.projects.find((p: { name: string }) => p.name === name).id;
}

/** Every hit of a search, read page by page following meta.pageSize, until an empty page. */
async function searchAll(api: Api, q: string, limit: number): Promise<string[]> {
  const ids: string[] = [];
  for (let page = 1; page < 100; page++) {
    const r = await api(`/keywords?q=${q}&limit=${limit}&page=${page}`);
    if (r.body.data.length === 0) return ids;
    ids.push(...r.body.data.map((k: { id: string }) => k.id));
  }
  throw new Error('search walk did not end');
}

describe('short-pages', () => {
  it('search pages hold at most 7 hits, meta.pageSize says 7, and page N covers hits (N-1)*7..', async () => {
    const first = await short('/keywords?q=an&limit=20');
    expect(first.body.data).toHaveLength(7);
    expect(first.body.meta).toEqual({ page: 1, pageSize: 7 });
    const second = await short('/keywords?q=an&limit=20&page=2');
    expect(second.body.meta).toEqual({ page: 2, pageSize: 7 });
    const reference = (await plain('/keywords?q=an&limit=14')).body.data.map((k: { id: string }) => k.id);
    expect(second.body.data.map((k: { id: string }) => k.id)).toEqual(reference.slice(7, 14));
    // Following the data gives every hit exactly once, the same as without the fault.
    const all = await searchAll(short, 'an', 20);
    expect(all.length).toBeGreaterThan(20);
    expect(new Set(all).size).toBe(all.length);
    expect(all).toEqual(await searchAll(plain, 'an', 20));
    // A limit under the cap is honoured.
    expect((await short('/keywords?q=an&limit=5')).body.meta.pageSize).toBe(5);
  });

  it('relations pages hold at most 50 rows, meta.limit says 50, and offset stays a row index', async () => {
    const egfr = await keywordId(short, 'EGFR');
    const r = await short(`/keywords/${egfr}/relations?relation=assets&limit=100&offset=30`);
    expect(r.body.data).toHaveLength(50);
    expect(r.body.meta).toMatchObject({ relation: 'assets', limit: 50, offset: 30, total: 1200 });
    const reference = await plain(`/keywords/${egfr}/relations?relation=assets&limit=50&offset=30`);
    expect(r.body.data).toEqual(reference.body.data);
    // A client that steps by the rows it got reads all 1,200 once; one that steps by 100 would skip.
    const ids = new Set<string>();
    let offset = 0;
    for (;;) {
      const page = await short(`/keywords/${egfr}/relations?relation=assets&limit=100&offset=${offset}`);
      if (page.body.data.length === 0) break;
      for (const row of page.body.data) ids.add(row.id);
      offset += page.body.data.length;
    }
    expect(ids.size).toBe(1200);
    expect((await short(`/keywords/${egfr}/relations?relation=assets&limit=20`)).body.meta.limit).toBe(20);
  });
});

describe('wrong-total', () => {
  it('a target (EGFR) over-reports by 25; the rows end at the real 1,200', async () => {
    const egfr = await keywordId(wrong, 'EGFR');
    const r = await wrong(`/keywords/${egfr}/relations?relation=assets&limit=100&offset=1150`);
    expect(r.body.meta.total).toBe(1225);
    expect(r.body.data).toHaveLength(50);
    expect((await wrong(`/keywords/${egfr}/relations?relation=assets&offset=1200`)).body.data).toEqual([]);
  });

  it('a disease (Non-small cell lung cancer) under-reports by half; rows go on to the real 5,400', async () => {
    const nsclc = await keywordId(wrong, 'Non-small cell lung cancer');
    const r = await wrong(`/keywords/${nsclc}/relations?relation=assets&limit=100&offset=2700`);
    expect(r.body.meta.total).toBe(2700);
    expect(r.body.data).toHaveLength(100);
    expect((await wrong(`/keywords/${nsclc}/relations?relation=assets&offset=5399`)).body.data).toHaveLength(1);
    expect((await wrong(`/keywords/${nsclc}/relations?relation=assets&offset=5400`)).body.data).toEqual([]);
  });

  it('include sections carry the same wrong total', async () => {
    const egfr = await keywordId(wrong, 'EGFR');
    expect((await wrong(`/keywords/${egfr}?include=assets`)).body.assets.total).toBe(1225);
  });
});

describe('sparse', () => {
  const keys = (o: object): string[] => Object.keys(o).sort();

  it('search hits and page meta are all required: unchanged', async () => {
    const r = await sparse('/keywords?q=egfr');
    expect(keys(r.body.data[0])).toEqual(['id', 'name', 'synonyms', 'type']);
    expect(r.body.meta).toEqual({ page: 1, pageSize: 10 });
  });

  it('keyword card: type, description and activity null; no as_of; composite null; other scores { raw: null }', async () => {
    const egfr = await keywordId(sparse, 'EGFR');
    const card = (await sparse(`/keywords/${egfr}?include=assets,sponsors`)).body;
    expect(card).toMatchObject({ id: egfr, name: 'EGFR', type: null, description: null });
    expect(card.activity).toEqual({ papers: null, patents: null, trials: null, assets: null });
    expect(card.scores).toEqual({
      composite: null,
      momentum: { raw: null },
      maturity: { raw: null },
      competition: { raw: null },
      risk: { raw: null },
      translation: { raw: null },
    });
    expect(keys(card.assets.data[0])).toEqual(['id', 'name']);
    expect(keys(card.sponsors.data[0])).toEqual(['id', 'name']);
  });

  it('relations rows are id and name only; meta has no activity', async () => {
    const egfr = await keywordId(sparse, 'EGFR');
    for (const rel of ['assets', 'sponsors&activity=trials']) {
      const r = await sparse(`/keywords/${egfr}/relations?relation=${rel}`);
      expect(r.body.data.length).toBeGreaterThan(0);
      for (const row of r.body.data) expect(keys(row)).toEqual(['id', 'name']);
      expect(keys(r.body.meta)).toEqual(['limit', 'offset', 'relation', 'total']);
    }
  });

  it('projects: id, name, role only; a created project: id, name, role, setup_url', async () => {
    for (const p of (await sparse('/projects')).body.projects) expect(keys(p)).toEqual(['id', 'name', 'role']);
    const created = await sparse('/projects', { method: 'POST', body: JSON.stringify({ name: 'Sparse one', brief: 'b' }) });
    expect(created.status).toBe(201);
    expect(keys(created.body)).toEqual(['id', 'name', 'role', 'setup_url']);
  });

  it('status: required members kept; analyses[] items carry varying subsets, one of them empty', async () => {
    const status = (await sparse(`/projects/${await projectId(sparse, 'Oncology watchlist')}/status`)).body;
    expect(keys(status)).toEqual(['analyses', 'next', 'scoring', 'signals_ready', 'summary']);
    const items = status.analyses as Array<Record<string, any>>;
    expect(items).toHaveLength(6);
    expect(keys(items[0]!)).toEqual(['keyword_id', 'status']);
    expect(keys(items[1]!)).toEqual(['keyword_name', 'runs', 'task_id']);
    expect(keys(items[1]!.runs[0])).toEqual(['id']);
    expect(keys(items[2]!)).toEqual(['runs', 'status', 'updated_at']);
    expect(keys(items[2]!.runs[0])).toEqual(['id', 'type']);
    expect(items[3]).toEqual({});
  });

  it('signals: Signal items keep only keyword_id, signal_keyword_id, type, analysed', async () => {
    const list = (await sparse(`/projects/${await projectId(sparse, 'Oncology watchlist')}/signals`)).body;
    expect(keys(list)).toEqual(['analysis_mode', 'analysis_mode_label', 'filter', 'signals', 'total', 'unanalysed_total']);
    for (const s of list.signals) expect(keys(s)).toEqual(['analysed', 'keyword_id', 'signal_keyword_id', 'type']);
  });

  it('opportunities: keywords and error (null) only', async () => {
    const opp = (await sparse(`/projects/${await projectId(sparse, 'Oncology watchlist')}/opportunities`)).body;
    expect(keys(opp)).toEqual(['error', 'keywords']);
    expect(opp.error).toBeNull();
    expect(opp.keywords.length).toBeGreaterThan(0);
  });

  it('analyses result: needs_confirmation, runs and skipped (without reason) only', async () => {
    const kras = await projectId(sparse, 'KRAS inhibitors');
    const signals = (await sparse(`/projects/${kras}/signals`)).body.signals.map((s: Record<string, string>) => ({
      keyword_id: s.keyword_id,
      signal_keyword_id: s.signal_keyword_id,
    }));
    const r = await sparse(`/projects/${kras}/analyses`, {
      method: 'POST',
      body: JSON.stringify({ selections: [signals[0], signals[0]] }),
    });
    expect(r.status).toBe(202);
    expect(keys(r.body)).toEqual(['needs_confirmation', 'runs', 'skipped']);
    expect(r.body.runs).toHaveLength(1);
    expect(keys(r.body.runs[0])).toEqual(['id', 'keyword_id', 'kind']);
    expect(r.body.skipped).toEqual([signals[0]]);
    const confirm = await sparse(`/projects/${kras}/analyses`, {
      method: 'POST',
      body: JSON.stringify({ top: { type: 'target', limit: 2 } }),
    });
    expect(confirm.body).toEqual({ needs_confirmation: true, runs: [], skipped: [] });
  });

  it('errors keep their required error text', async () => {
    const r = await sparse('/projects', { method: 'POST', body: '{"name":" "}' });
    expect(r.body).toEqual({ error: 'Missing name' });
  });
});

describe('faults combine', () => {
  it('short-pages + wrong-total + sparse + hostile on one relations page', async () => {
    const { api } = await start(['short-pages', 'wrong-total', 'sparse', 'hostile']);
    const hits = (await api('/keywords?q=egfr&limit=20')).body;
    expect(hits.meta.pageSize).toBe(7);
    const egfr = hits.data[0].id as string;
    const r = await api(`/keywords/${egfr}/relations?relation=sponsors&activity=trials&limit=100`);
    const total = (await plain(`/keywords/${egfr}/relations?relation=sponsors&activity=trials`)).body.meta.total as number;
    expect(r.body.meta).toEqual({ relation: 'sponsors', limit: 50, offset: 0, total: total + 25 });
    expect(total).toBeGreaterThan(0);
    expect(r.body.data).toHaveLength(Math.min(50, total));
    for (const row of r.body.data) {
      expect(Object.keys(row).sort()).toEqual(['id', 'name']);
      expect(row.name).toContain('\x1b]52;');
    }
  });
});

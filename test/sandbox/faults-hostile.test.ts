// --fault hostile at the HTTP level: every person-readable string of every API reply carries the
// planted escapes, bidi controls and a formula start, while ids, enums and URLs stay valid so a
// client still works. One in-process sandbox for the file.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { obtainTokens } from '../support/oauth.js';
import {
  apiCaller,
  HOSTILE_ESCAPES,
  HOSTILE_FORMULA_STARTS,
  HOSTILE_PLAIN_PROJECT,
  hostile,
  rawControls,
  type ApiReply,
} from '../support/sandbox.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
let sb: Sandbox;
let api: (path: string, init?: RequestInit) => Promise<ApiReply>;
let readOnly: (path: string, init?: RequestInit) => Promise<ApiReply>;
let ids: Record<string, string>;

beforeAll(async () => {
  sb = await startSandbox({ autoApprove: true, timeScale: 1000, faults: ['hostile'] });
  api = apiCaller(sb.url, (await obtainTokens(sb.url)).access_token);
  readOnly = apiCaller(sb.url, (await obtainTokens(sb.url, { scopes: ['service:read'] })).access_token);
  const projects = (await api('/projects')).body.projects as Array<{ id: string; name: string }>;
  // The names are hostile(plain): map them back through the documented, deterministic form.
  const plain = ['Oncology watchlist', 'KRAS inhibitors', 'Fibrosis landscape', 'Immunology pipeline'];
  ids = Object.fromEntries(plain.map((n) => [n, projects.find((p) => p.name === (n === HOSTILE_PLAIN_PROJECT ? n : hostile(n)))!.id]));
});
afterAll(async () => {
  await sb?.close();
});

/** A planted string: a formula start, then every escape. */
function expectHostile(value: unknown): void {
  expect(typeof value).toBe('string');
  const s = value as string;
  expect(HOSTILE_FORMULA_STARTS.some((f) => s.startsWith(f))).toBe(true);
  for (const esc of HOSTILE_ESCAPES) expect(s).toContain(esc);
}

describe('hostile strings, ids and enums', () => {
  it('the helper lists sequences that the raw-control check finds, and the plain text passes it', () => {
    expect(rawControls(hostile('EGFR')).length).toBeGreaterThanOrEqual(HOSTILE_ESCAPES.length);
    expect(rawControls('EGFR\tHER1\r\nKRAS\n')).toEqual([]);
    expect(HOSTILE_ESCAPES).toContain('\x1b]52;c;ZWNobyBwd25lZA==\x07');
  });

  it('projects: names and briefs hostile, except the one plain project; ids and roles valid', async () => {
    const { projects } = (await api('/projects')).body;
    expect(projects).toHaveLength(4);
    for (const p of projects) {
      expect(p.id).toMatch(UUID);
      expect(['owner', 'editor', 'viewer']).toContain(p.role);
      expect(Number.isNaN(Date.parse(p.created_at))).toBe(false);
      if (p.name === HOSTILE_PLAIN_PROJECT) continue;
      expectHostile(p.name);
      if (p.brief !== null) expectHostile(p.brief);
    }
    expect(projects.map((p: { name: string }) => p.name)).toContain(hostile('Oncology watchlist'));
  });

  it('search: names and synonyms hostile (deterministically), ids and types valid', async () => {
    const r = await api('/keywords?q=egfr');
    const egfr = r.body.data[0];
    expect(egfr.name).toBe(hostile('EGFR'));
    expect(egfr.id).toMatch(UUID);
    expect(egfr.type).toBe('target');
    for (const s of egfr.synonyms) expectHostile(s);
    expect(r.body.meta).toEqual({ page: 1, pageSize: 10 });
  });

  it('every formula start is used by some keyword name', async () => {
    const names: string[] = (await api('/keywords?q=a&limit=20')).body.data.map((k: { name: string }) => k.name);
    for (const f of HOSTILE_FORMULA_STARTS) expect(names.some((n) => n.startsWith(f))).toBe(true);
  });

  it('keyword card: name, description, synonyms, score labels and descriptions; as_of and numbers plain', async () => {
    const id = (await api('/keywords?q=egfr')).body.data[0].id;
    const card = (await api(`/keywords/${id}?include=assets`)).body;
    expectHostile(card.name);
    expectHostile(card.description);
    expect(card.type).toBe('target');
    expect(card.scores.as_of).toBe('2026-11-01');
    expectHostile(card.scores.momentum.label);
    expectHostile(card.scores.momentum.description);
    expect(typeof card.scores.momentum.score).toBe('number');
    expectHostile(card.assets.data[0].name);
    expect(card.assets.data[0].id).toMatch(UUID);
  });

  it('relations: names and stages hostile; meta echoes plain', async () => {
    const id = (await api('/keywords?q=egfr')).body.data[0].id;
    const r = await api(`/keywords/${id}/relations?relation=assets&limit=50`);
    for (const row of r.body.data) {
      expectHostile(row.name);
      expect(row.id).toMatch(UUID);
      if (row.stage !== null) expectHostile(row.stage);
    }
    expect(r.body.data.some((row: { stage: unknown }) => row.stage !== null)).toBe(true);
    expect(r.body.meta).toEqual({ relation: 'assets', limit: 50, offset: 0, total: 1200 });
    const s = await api(`/keywords/${id}/relations?relation=sponsors&activity=trials`);
    expect(s.body.meta.activity).toBe('trials');
  });

  it('status: summary and keyword_name hostile; enums, ids and timestamps valid', async () => {
    const st = (await api(`/projects/${ids['Oncology watchlist']}/status`)).body;
    expectHostile(st.summary);
    expect(['not_started', 'running', 'done']).toContain(st.scoring);
    expect(['wait', 'run_analyses', 'list_signals']).toContain(st.next);
    for (const a of st.analyses) {
      expectHostile(a.keyword_name);
      expect(a.keyword_id).toMatch(UUID);
      expect(['pending', 'running', 'done', 'failed']).toContain(a.status);
      expect(a.runs[0].type).toBe('scoring');
    }
  });

  it('signals: names and the mode label hostile; mode, filter and type plain', async () => {
    const list = (await api(`/projects/${ids['Oncology watchlist']}/signals`)).body;
    expect(list.analysis_mode).toBe('most_promising');
    expect(list.filter).toBe('all');
    expectHostile(list.analysis_mode_label);
    for (const s of list.signals) {
      expectHostile(s.name);
      expect(['target', 'disease', 'modality', 'mechanism']).toContain(s.type);
    }
  });

  it('opportunities: keyword names (dataset and item) hostile; error stays null', async () => {
    const opp = (await api(`/projects/${ids['Oncology watchlist']}/opportunities`)).body;
    expect(opp.keywords.length).toBeGreaterThan(0);
    for (const k of opp.keywords) expectHostile(k.name);
    for (const i of opp.project_analyses.items) expectHostile(i.keyword_name);
    expect(opp.error).toBeNull();
  });

  it('analyses: assumption, signal names and skipped reasons hostile; run ids valid', async () => {
    const kras = ids['KRAS inhibitors']!;
    const ask = (await api(`/projects/${kras}/analyses`, { method: 'POST', body: JSON.stringify({ top: { type: 'target', limit: 2 } }) }))
      .body;
    expect(ask.needs_confirmation).toBe(true);
    expectHostile(ask.assumption);
    for (const s of ask.signals) expectHostile(s.name);
    const pair = { keyword_id: ask.signals[0].keyword_id, signal_keyword_id: ask.signals[0].signal_keyword_id };
    const run = (await api(`/projects/${kras}/analyses`, { method: 'POST', body: JSON.stringify({ selections: [pair, pair] }) })).body;
    expect(run.runs[0].id).toMatch(UUID);
    expect(run.runs[0].kind).toBe('scoring');
    expect(run.skipped[0].reason).toBe(hostile('duplicate selection'));
  });

  it('created project: name and scan-free reply; setup_url stays a valid URL', async () => {
    const created = (await api('/projects', { method: 'POST', body: JSON.stringify({ name: 'Mine' }) })).body;
    expect(created.name).toBe(hostile('Mine'));
    expect(created.id).toMatch(UUID);
    expect(new URL(created.setup_url).pathname).toBe(`/projects/${created.id}/overview`);
  });

  it('API error texts are hostile; the ScopeError enum is not', async () => {
    const missing = await api('/projects', { method: 'POST', body: '{"name":""}' });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe(hostile('Missing name'));
    const notFound = await api('/keywords/00000000-0000-4000-8000-000000000000');
    expect(notFound.body.error).toBe(hostile('Keyword not found'));
    const scope = await readOnly('/projects', { method: 'POST', body: '{"name":"x"}' });
    expect(scope.body).toEqual({ error: 'insufficient_scope', scope: 'projects:write' });
  });

  it('OAuth and discovery stay plain (sign-in must work)', async () => {
    const meta = (await (await fetch(`${sb.url}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(JSON.stringify(meta)).not.toContain('evil.example');
    expect(meta.issuer).toBe(sb.url);
  });
});

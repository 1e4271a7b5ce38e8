// The commands' rendering through the one output module: multi-part replies are one csv document
// with a `section` column, and no row-level field the server sent is dropped.
import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/client/client.js';
import { run as getKeyword } from '../../src/commands/keywords/get/get.js';
import { run as opportunities } from '../../src/commands/opportunities/opportunities.js';
import { run as createProject } from '../../src/commands/projects/create/create.js';
import { fakeCtx, fakeIo } from '../support/fakes.js';

const KW = '11111111-1111-4111-8111-111111111111';
const PROJECT = { id: '22222222-2222-4222-8222-222222222222', name: 'P', role: 'owner' };
const tick = () => new Promise((r) => setImmediate(r));

/** RFC 4180 records (enough for these tests: quoted fields, doubled quotes, CRLF). */
function csv(text: string): string[][] {
  expect(text.endsWith('\r\n')).toBe(true);
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(field);
      field = '';
    } else if (ch === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else field += ch;
  }
  return rows;
}

function asObjects(rows: string[][]): Array<Record<string, string>> {
  const [header, ...rest] = rows;
  return rest.map((r) => Object.fromEntries(header!.map((h, i) => [h, r[i]!])));
}

const card = {
  id: KW,
  name: 'EGFR',
  type: 'target',
  description: 'a receptor',
  synonyms: ['ERBB1', 'HER1'],
  activity: { papers: 1, patents: 2, trials: null, assets: 4 },
  scores: {
    as_of: '2026-11-01',
    composite: { score: 12, raw: 3.5, label: 'Low', description: 'Low composite' },
    momentum: null,
  },
  indications: { data: [{ id: 'i1', name: 'NSCLC', count: 20, stage: null, phase: 'III' }], total: 11 },
  sponsors: [{ id: 's1', name: 'Acme', count: 2 }],
};

describe('keywords get', () => {
  it('csv: one document, the card row and one row per section item, every score member kept', async () => {
    const io = fakeIo();
    const client = { getKeyword: async () => card } as unknown as Partial<ApiClient>;
    await getKeyword({ keyword: KW, include: ['indications', 'sponsors'] }, fakeCtx(io, { format: 'csv', client }));
    await tick();
    const rows = csv(io.out());
    expect(rows.every((r) => r.length === rows[0]!.length)).toBe(true);
    const objects = asObjects(rows);
    expect(objects.map((o) => o.section)).toEqual(['keyword', 'indications', 'sponsors']);
    const [kw, ind, sp] = objects as [Record<string, string>, Record<string, string>, Record<string, string>];
    expect(kw.id).toBe(KW);
    expect(JSON.parse(kw.synonyms!)).toEqual(['ERBB1', 'HER1']);
    // Each score as dotted columns (issue 30), the spec's members even where the score is null.
    expect(kw).toMatchObject({
      'composite.score': '12',
      'composite.raw': '3.5',
      'composite.label': 'Low',
      'composite.description': 'Low composite',
    });
    expect(kw).not.toHaveProperty('composite');
    expect(kw).toMatchObject({ 'momentum.score': '', 'momentum.raw': '', 'momentum.label': '', 'momentum.description': '' });
    expect(kw.trials).toBe('');
    expect(kw.scores_as_of).toBe('2026-11-01');
    // Item ids and members beyond the usual ones (phase) are kept.
    expect(ind).toMatchObject({ id: 'i1', name: 'NSCLC', count: '20', stage: '', phase: 'III' });
    expect(sp).toMatchObject({ id: 's1', name: 'Acme', count: '2' });
    // The section total is list-level metadata: stderr.
    expect(io.err()).toContain('indications: 1 of 11');
  });

  it('table: the card as field/value lines, each section under its title', async () => {
    const io = fakeIo({ tty: true });
    const client = { getKeyword: async () => card } as unknown as Partial<ApiClient>;
    await getKeyword({ keyword: KW, include: ['indications'] }, fakeCtx(io, { format: 'table', client }));
    await tick();
    expect(io.out()).toMatch(/^name +EGFR\n/);
    expect(io.out()).toMatch(/composite +\S*.*12 \(Low\)\n/);
    // The card carries 1 of 11: the title says so, and a hint names the command listing them all.
    expect(io.out()).toMatch(/\n\nindications \(1 of 11\)\nNAME +COUNT +STAGE +ID\nNSCLC +20 +i1\n$/);
    const hint = io.err().replace(/\s+/g, ' ');
    expect(hint).toMatch(/^hint: indications: 1 of 11 shown; all of them: `rsi keywords relations /);
    expect(hint).toContain('--relation indications --all`');
  });

  it('table on a terminal: a score with only a label shows the label, not a dash', async () => {
    // The spec makes every KeywordScore member optional; a foreign server sent { label } alone.
    const io = fakeIo({ tty: true });
    const labelOnly = { ...card, scores: { ...card.scores, momentum: { label: 'Rising' } } };
    const client = { getKeyword: async () => labelOnly } as unknown as Partial<ApiClient>;
    await getKeyword({ keyword: KW, include: [] }, fakeCtx(io, { format: 'table', client }));
    await tick();
    expect(io.out()).toMatch(/^momentum +Rising$/m);
  });
});

describe('opportunities', () => {
  const payload = {
    keywords: [{ name: 'KRAS', type: 'target', score: 0.9, keyword_id: 'k1', detail: { evidence: [1, 2] } }],
    project_analyses: { total: 1, by_status: { done: 1 }, items: [{ id: 'a1', status: 'done', meta: { x: 1 } }] },
    error: null,
  };
  const client = {
    listProjects: async () => ({ projects: [PROJECT] }),
    getOpportunities: async () => payload,
  } as unknown as Partial<ApiClient>;

  it('csv: one kind of row (the scored keywords; the analyses with --analyses), nested objects as dotted columns, arrays JSON-encoded, counts on stderr', async () => {
    const io = fakeIo();
    await opportunities({ project: PROJECT.id }, fakeCtx(io, { format: 'csv', client }));
    await tick();
    const objects = asObjects(csv(io.out()));
    expect(objects).toHaveLength(1);
    expect(objects[0]).not.toHaveProperty('section');
    expect(JSON.parse(objects[0]!['detail.evidence']!)).toEqual([1, 2]);
    expect(objects[0]).toMatchObject({ name: 'KRAS', score: '0.9', keyword_id: 'k1' });
    expect(io.err()).toContain('analyses: 1 total (1 done)');

    const analyses = fakeIo();
    await opportunities({ project: PROJECT.id, analyses: true }, fakeCtx(analyses, { format: 'csv', client }));
    await tick();
    const rows = asObjects(csv(analyses.out()));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ id: 'a1', status: 'done', 'meta.x': '1' });
    expect(csv(analyses.out())[0]!.slice(0, 6)).toEqual(['id', 'keyword_id', 'keyword_name', 'kind', 'status', 'updated_at']);
  });

  it('ndjson: one dataset per line', async () => {
    const io = fakeIo();
    await opportunities({ project: PROJECT.id }, fakeCtx(io, { format: 'ndjson', client }));
    await tick();
    expect(io.out()).toBe(`${JSON.stringify(payload.keywords[0])}\n`);
  });
});

describe('projects create', () => {
  it('tsv keeps every member of the reply (role, scan_error)', async () => {
    const io = fakeIo();
    const created = { id: PROJECT.id, name: 'P', role: 'owner', setup_url: 'http://x/setup', scan_error: 'scan failed' };
    const client = { createProject: async () => created } as unknown as Partial<ApiClient>;
    await createProject(
      { name: 'P', brief: undefined, watchlist: undefined, operand: undefined, goals: [], primaryFilterType: undefined, openSetup: false },
      fakeCtx(io, { format: 'tsv', client }),
    );
    await tick();
    expect(io.out()).toBe(`${PROJECT.id}\tP\towner\thttp://x/setup\tscan failed\n`);
  });
});

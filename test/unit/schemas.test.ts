// Every reply schema against the spec (shared/service-api.md), one block per schema: what the spec
// requires, in our words; a minimal reply (required members only) parses; dropping a required
// member fails; unknown members pass through; and the minimal reply, sent by a fake server through
// the real client, renders in every output format of the command that prints it.
import { describe, expect, it } from 'vitest';
import type * as z from 'zod/mini';
import * as S from '../../src/client/schemas.js';
import { ApiClient } from '../../src/client/client.js';
import type { Http, HttpRequest, HttpResponse } from '../../src/http/types.js';
import { OUTPUT_FORMATS, type OutputFormat } from '../../src/formats.js';
import type { Context } from '../../src/context.js';
import { fakeCtx, fakeIo } from '../support/fakes.js';

const P = '11111111-2222-4333-8444-555555555555';
const K = 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee';
const K2 = 'bbbbbbbb-bbbb-4ccc-8ddd-eeeeeeeeeeee';

function parses(schema: z.ZodMiniType, value: unknown): boolean {
  return schema.safeParse(value).success;
}

/** Each required member dropped in turn must make the reply invalid. */
function expectRequired(schema: z.ZodMiniType, minimal: Record<string, unknown>, required: readonly string[]): void {
  expect(Object.keys(minimal).sort()).toEqual([...required].sort());
  for (const key of required) {
    const { [key]: _dropped, ...rest } = minimal;
    expect(parses(schema, rest), `without ${key}`).toBe(false);
  }
}

/** A fake Http port answering every request with `body` (status 200, or 201/202 for POSTs). */
function serving(body: (req: HttpRequest) => unknown): Http {
  return {
    apiBase: 'https://rsi.example/api/v1',
    async request(req): Promise<HttpResponse> {
      const json = body(req);
      const status = req.method === 'POST' ? (req.path === '/projects' ? 201 : 202) : 200;
      return { status, headers: { 'content-type': 'application/json' }, text: JSON.stringify(json), json, isJson: true };
    },
    async close() {},
  };
}

/** Runs a command's `run` in one format against the fake server; returns stdout and stderr. */
async function render(
  format: OutputFormat,
  body: (req: HttpRequest) => unknown,
  runIt: (ctx: Context) => Promise<void>,
): Promise<{ out: string; err: string }> {
  const io = fakeIo();
  const ctx = fakeCtx(io, { format, client: new ApiClient(serving(body)) });
  await runIt(ctx);
  await new Promise((r) => setImmediate(r));
  return { out: io.out(), err: io.err() };
}

/** The minimal reply renders in every format, and each format shows the identifying values. */
async function rendersEverywhere(
  body: (req: HttpRequest) => unknown,
  runIt: (ctx: Context) => Promise<void>,
  mustShow: readonly string[],
  /** Formats that may leave these values out (the table hides ids where a person reads names). */
  except: readonly OutputFormat[] = [],
): Promise<void> {
  for (const format of OUTPUT_FORMATS) {
    const { out } = await render(format, body, runIt);
    // A table shows an id as its first 8 characters and `…` (output.ts, `shortId`); the rest in full.
    const shown = (value: string): string => (format === 'table' && value.length > 9 ? `${value.slice(0, 8)}…` : value);
    if (!except.includes(format))
      for (const value of mustShow) expect(out.includes(value) || out.includes(shown(value)), `${format} shows ${value}`).toBe(true);
    if (format === 'json') expect(() => JSON.parse(out)).not.toThrow();
    if (format === 'ndjson') for (const line of out.trim().split('\n')) expect(() => JSON.parse(line)).not.toThrow();
  }
}

describe('PageMeta and KeywordHit (search)', () => {
  // A search page has data and meta; meta has page and pageSize (both integers); a hit has id,
  // name, type and synonyms (a list of strings). Nothing else is promised.
  const hit = { id: K, name: 'EGFR', type: 'target', synonyms: [] };
  const page = { data: [hit], meta: { page: 1, pageSize: 10 } };

  it('requires exactly what the spec requires', () => {
    expect(parses(S.KeywordSearchPage(), page)).toBe(true);
    expectRequired(S.KeywordHit(), hit, ['id', 'name', 'type', 'synonyms']);
    expectRequired(S.PageMeta(), page.meta, ['page', 'pageSize']);
    expectRequired(S.KeywordSearchPage(), page, ['data', 'meta']);
  });

  it('keeps unknown members', () => {
    const parsed = S.KeywordSearchPage().parse({ ...page, meta: { ...page.meta, total: 3 }, extra: true });
    expect(parsed).toMatchObject({ extra: true, meta: { total: 3 } });
  });

  it('renders in every format', async () => {
    const { run } = await import('../../src/commands/keywords/search/search.js');
    await rendersEverywhere(
      () => page,
      (ctx) => run({ query: 'egfr', page: undefined, limit: undefined, all: false }, ctx),
      [K],
    );
    await rendersEverywhere(
      (req) => (Number(req.query?.page) === 1 ? page : { data: [], meta: { page: 2, pageSize: 10 } }),
      (ctx) => run({ query: 'egfr', page: undefined, limit: undefined, all: true }, ctx),
      [K],
    );
  });
});

describe('KeywordCard and KeywordScore', () => {
  // A card requires id, name, synonyms, activity and scores; type and description are required
  // but may be null. activity's members and every member of scores are described, not required.
  // KeywordScore is a nullable object none of whose members is required; its raw may be null.
  const card = { id: K, name: 'EGFR', type: null, description: null, synonyms: [], activity: {}, scores: {} };

  it('requires exactly what the spec requires', () => {
    expectRequired(S.KeywordCard(), card, ['id', 'name', 'type', 'description', 'synonyms', 'activity', 'scores']);
    expect(parses(S.KeywordCard(), { ...card, type: undefined })).toBe(false);
    expect(parses(S.KeywordScore(), null)).toBe(true);
    expect(parses(S.KeywordScore(), {})).toBe(true);
    expect(parses(S.KeywordScore(), { raw: null })).toBe(true);
    expect(parses(S.KeywordScore(), { score: 'high' })).toBe(false);
    expect(parses(S.KeywordCard(), { ...card, activity: { papers: null }, scores: { as_of: null, composite: null, risk: {} } })).toBe(true);
  });

  it('keeps unknown members and requested sections', () => {
    const parsed = S.KeywordCard().parse({ ...card, indications: { data: [], total: 0 } });
    expect(parsed).toHaveProperty('indications');
  });

  it('renders in every format', async () => {
    const { run } = await import('../../src/commands/keywords/get/get.js');
    await rendersEverywhere(
      () => card,
      (ctx) => run({ keyword: K, include: [] }, ctx),
      [K],
    );
  });

  it('a score without `score` shows as its label or a dash, never "undefined"', async () => {
    const { run } = await import('../../src/commands/keywords/get/get.js');
    const scored = { ...card, scores: { composite: null, momentum: { raw: null }, risk: { label: 'low' } } };
    for (const format of OUTPUT_FORMATS) {
      const { out } = await render(
        format,
        () => scored,
        (ctx) => run({ keyword: K, include: [] }, ctx),
      );
      expect(out, format).not.toContain('undefined');
    }
  });
});

describe('RelationPage', () => {
  // data (items with id and name; count and stage optional, stage may be null) and meta with
  // relation, limit, offset and total required; meta.activity optional.
  const item = { id: K, name: 'NSCLC' };
  const meta = { relation: 'indications', limit: 20, offset: 0, total: 1 };
  const page = { data: [item], meta };

  it('requires exactly what the spec requires', () => {
    expectRequired(S.RelationItem(), item, ['id', 'name']);
    expectRequired(S.RelationPage().shape.meta, meta, ['relation', 'limit', 'offset', 'total']);
    expect(parses(S.RelationItem(), { ...item, stage: null, count: 3 })).toBe(true);
  });

  it('renders in every format', async () => {
    const { run } = await import('../../src/commands/keywords/relations/relations.js');
    const opts = { keyword: K, relations: [{ relation: 'indications' }], limit: undefined, offset: undefined };
    await rendersEverywhere(
      () => page,
      (ctx) => run({ ...opts, all: false }, ctx),
      [K],
    );
    await rendersEverywhere(
      (req) => (Number(req.query?.offset ?? 0) === 0 ? page : { data: [], meta: { ...meta, offset: 1 } }),
      (ctx) => run({ ...opts, all: true }, ctx),
      [K],
    );
  });
});

describe('Project list', () => {
  // Each project: id, name and role required; created_at optional; brief optional and nullable.
  const project = { id: P, name: 'KRAS', role: 'owner' };

  it('requires exactly what the spec requires', () => {
    expectRequired(S.Project(), project, ['id', 'name', 'role']);
    expect(parses(S.Project(), { ...project, brief: null })).toBe(true);
    expectRequired(S.ProjectList(), { projects: [] }, ['projects']);
  });

  it('renders in every format', async () => {
    const { run } = await import('../../src/commands/projects/list/list.js');
    await rendersEverywhere(
      () => ({ projects: [project] }),
      (ctx) => run({}, ctx),
      [P],
    );
  });
});

describe('CreatedProject', () => {
  // id, name, role and setup_url required; scan_error optional.
  const created = { id: P, name: 'KRAS', role: 'owner', setup_url: `https://rsi.example/projects/${P}/overview?setup=1` };

  it('requires exactly what the spec requires', () => {
    expectRequired(S.CreatedProject(), created, ['id', 'name', 'role', 'setup_url']);
  });

  it('renders in every format', async () => {
    const { run } = await import('../../src/commands/projects/create/create.js');
    const opts = {
      name: 'KRAS',
      brief: undefined,
      watchlist: undefined,
      operand: undefined,
      goals: [],
      primaryFilterType: undefined,
      openSetup: false,
    };
    await rendersEverywhere(
      () => created,
      (ctx) => run(opts, ctx),
      [P],
    );
  });
});

describe('ProjectStatus', () => {
  // signals_ready, scoring, summary, next and analyses required; every member of an analyses item
  // is optional, and so is every member of its runs items.
  const status = { signals_ready: true, scoring: 'done', summary: 'All done.', next: 'run_analyses', analyses: [{}] };

  it('requires exactly what the spec requires', () => {
    expectRequired(S.ProjectStatus(), status, ['signals_ready', 'scoring', 'summary', 'next', 'analyses']);
    expect(parses(S.ProjectStatus(), { ...status, analyses: [{ runs: [{}] }] })).toBe(true);
    expect(parses(S.ProjectStatus(), { ...status, next: 'later' })).toBe(false);
  });

  it('renders in every format', async () => {
    const { run } = await import('../../src/commands/status/status.js');
    const body = { ...status, analyses: [{ keyword_id: K }] };
    for (const format of OUTPUT_FORMATS) {
      const { out, err } = await render(
        format,
        () => body,
        (ctx) => run({ project: P, watch: undefined }, ctx),
      );
      expect(out, format).toContain(format === 'table' ? `${K.slice(0, 8)}…` : K);
      expect(`${out}${err}`, format).toContain('All done.');
    }
  });
});

describe('SignalList', () => {
  // analysis_mode, analysis_mode_label, filter, total, unanalysed_total and signals required; a
  // signal requires keyword_id, signal_keyword_id, type and analysed; name and rank optional and
  // nullable; position optional.
  const signal = { keyword_id: K, signal_keyword_id: K2, type: 'target', analysed: false };
  const list = { analysis_mode: 'most_promising', analysis_mode_label: 'Most promising', filter: 'all', total: 1, unanalysed_total: 1 };

  it('requires exactly what the spec requires', () => {
    expectRequired(S.Signal(), signal, ['keyword_id', 'signal_keyword_id', 'type', 'analysed']);
    expectRequired(S.SignalList(), { ...list, signals: [] }, [...Object.keys(list), 'signals']);
    expect(parses(S.Signal(), { ...signal, name: null, rank: null, position: 1 })).toBe(true);
  });

  it('renders in every format', async () => {
    const { run } = await import('../../src/commands/signals/signals.js');
    await rendersEverywhere(
      () => ({ ...list, signals: [signal] }),
      (ctx) => run({ project: P, type: undefined, analysisMode: undefined, limit: undefined }, ctx),
      [K2],
    );
  });
});

describe('OpportunityPayload', () => {
  // keywords (free-form objects) required; error required and nullable; project_analyses and all
  // of its members optional.
  const payload = { keywords: [{ keyword_id: K }], error: null };

  it('requires exactly what the spec requires', () => {
    expectRequired(S.OpportunityPayload(), payload, ['keywords', 'error']);
    expect(parses(S.OpportunityPayload(), { ...payload, project_analyses: {} })).toBe(true);
  });

  it('renders in every format', async () => {
    const { run } = await import('../../src/commands/opportunities/opportunities.js');
    await rendersEverywhere(
      () => payload,
      (ctx) => run({ project: P }, ctx),
      [K],
      ['table'],
    );
  });
});

describe('AnalysesResult', () => {
  // No member of the 202 body is marked required. A runs item requires id, keyword_id and kind
  // ("all required"); a skipped item's members are only typed ("all strings"), so none is required.
  const runItem = { id: 'run-1', keyword_id: K, kind: 'target' };

  it('requires exactly what the spec requires', () => {
    expect(parses(S.AnalysesResult(), {})).toBe(true);
    expectRequired(S.AnalysesResult().shape.runs.def.innerType.def.element, runItem, ['id', 'keyword_id', 'kind']);
    expect(parses(S.AnalysesResult(), { skipped: [{}] })).toBe(true);
    expect(parses(S.AnalysesResult(), { skipped: [{ reason: 3 }] })).toBe(false);
  });

  it('renders in every format', async () => {
    const { run } = await import('../../src/commands/analyses/run/run.js');
    const opts = {
      project: P,
      select: [{ keyword_id: K, signal_keyword_id: K2 }],
      selectionsFrom: undefined,
      top: undefined,
      includeAnalysed: false,
      yes: true,
      wait: undefined,
    };
    await rendersEverywhere(
      () => ({ runs: [runItem], skipped: [{}] }),
      (ctx) => run(opts, ctx),
      ['run-1'],
    );
  });
});

// keywords, projects, signals, opportunities, api and completion end to end: bin/rsi.js against a
// sandbox child process. JSON output is checked against the client's zod schemas (the spec's shapes).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import * as S from '../../src/client/schemas.js';
import { useSandbox } from '../support/e2e.js';
import { sandboxStats } from '../support/sandbox.js';

const e2e = useSandbox(['--time-scale', '100'], { quiet: false });
let readOnlyToken: string;

const rsi = (args: string[], env: Record<string, string> = {}, input?: string) => e2e.rsi(args, { env, input });

beforeAll(async () => {
  readOnlyToken = await e2e.tokenFor(['service:read']);
});

const parse = (text: string): unknown => JSON.parse(text);

// Tests run side by side where they only read, or write things no other test looks at (a new
// project); the two that count requests at the sandbox run alone, between the concurrent groups.
describe('keywords', () => {
  it.concurrent('search --json prints the API page exactly (spec shape)', async ({ expect }) => {
    const r = await rsi(['keywords', 'search', 'egfr', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const page = S.KeywordSearchPage().parse(parse(r.stdout));
    expect(page.data.map((k) => k.name)).toContain('EGFR');
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(1);
  });

  it.concurrent('search piped prints tsv rows with the name first', async ({ expect }) => {
    const r = await rsi(['keywords', 'search', 'kras']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n')[0]!.split('\t')[0]).toBe('KRAS');
  });

  it.concurrent('an empty search: nothing on stdout, a message on stderr; --json prints the empty body', async ({ expect }) => {
    const r = await rsi(['keywords', 'search', 'zzzqqqxxx']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/No keywords/);
    const j = await rsi(['keywords', 'search', 'zzzqqqxxx', '--json']);
    expect(S.KeywordSearchPage().parse(parse(j.stdout)).data).toEqual([]);
  });

  it.concurrent('get resolves a synonym, case-insensitively', async ({ expect }) => {
    const r = await rsi(['keywords', 'get', 'erbb1', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(S.KeywordCard().parse(parse(r.stdout)).name).toBe('EGFR');
  });

  it('an unknown name exits 2 before any keyword-card request', async () => {
    const before = (await sandboxStats(e2e.url)).byRoute['GET /api/v1/keywords/{keywordId}'] ?? 0;
    const r = await rsi(['keywords', 'get', 'no-such-keyword-anywhere']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^rsi: .*no-such-keyword-anywhere/m);
    expect((await sandboxStats(e2e.url)).byRoute['GET /api/v1/keywords/{keywordId}'] ?? 0).toBe(before);
  });

  it.concurrent('an unknown UUID exits 5', async ({ expect }) => {
    const r = await rsi(['keywords', 'get', '00000000-0000-4000-8000-000000000000']);
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/^rsi: /m);
  });

  it.concurrent('relations --all --json: one array, count equals meta.total, no duplicates', async ({ expect }) => {
    const first = await rsi(['keywords', 'relations', 'NSCLC', '--relation', 'assets', '--limit', '1', '--json']);
    expect(first.code, first.stderr).toBe(0);
    const total = S.RelationPage().parse(parse(first.stdout)).meta.total;
    expect(total).toBeGreaterThan(5000);
    const r = await rsi(['keywords', 'relations', 'NSCLC', '--relation', 'assets', '--all', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const items = z.array(S.RelationItem()).parse(parse(r.stdout));
    expect(items).toHaveLength(total);
    expect(new Set(items.map((i) => i.id)).size).toBe(total);
  });

  it.concurrent('search --all --json: every hit of every page exactly once', async ({ expect }) => {
    // Count by walking the pages directly against the API.
    let expected = 0;
    for (let page = 1; ; page++) {
      const res = await fetch(`${e2e.url}/api/v1/keywords?q=a&limit=20&page=${page}`, {
        headers: { authorization: `Bearer ${e2e.token}` },
      });
      const body = S.KeywordSearchPage().parse(await res.json());
      expected += body.data.length;
      if (body.data.length < 20) break;
    }
    expect(expected).toBeGreaterThan(20);
    const r = await rsi(['keywords', 'search', 'a', '--all', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const hits = z.array(S.KeywordHit()).parse(parse(r.stdout));
    expect(hits).toHaveLength(expected);
    expect(new Set(hits.map((h) => h.id)).size).toBe(expected);
  });

  it.concurrent('relations --all --format ndjson: one item per line, with activity', async ({ expect }) => {
    const first = await rsi([
      'keywords',
      'relations',
      'Non-small cell lung cancer',
      '--relation',
      'sponsors',
      '--activity',
      'trials',
      '--limit',
      '1',
      '--json',
    ]);
    expect(first.code, first.stderr).toBe(0);
    const total = S.RelationPage().parse(parse(first.stdout)).meta.total;
    const r = await rsi([
      'keywords',
      'relations',
      'Non-small cell lung cancer',
      '--relation',
      'sponsors',
      '--activity',
      'trials',
      '--all',
      '--format',
      'ndjson',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout
      .trimEnd()
      .split('\n')
      .map((l) => S.RelationItem().parse(parse(l)));
    expect(lines).toHaveLength(total);
    expect(new Set(lines.map((i) => i.id)).size).toBe(total);
  });

  it('out-of-range limits and bad enums exit 2 naming the flag, without a request', async () => {
    const before = (await sandboxStats(e2e.url)).apiRequests;
    const cases: Array<[string[], RegExp]> = [
      [['keywords', 'search', 'egfr', '--limit', '21'], /--limit/],
      [['keywords', 'search', 'egfr', '--page', '0'], /--page/],
      [['keywords', 'relations', 'EGFR', '--relation', 'assets', '--limit', '101'], /--limit/],
      [['keywords', 'relations', 'EGFR', '--relation', 'assets', '--offset', '-1'], /--offset/],
      [['keywords', 'relations', 'EGFR', '--relation', 'nope'], /--relation/],
      [['signals', 'KRAS inhibitors', '--limit', '501'], /--limit/],
      [['projects', 'create', '--name', 'X', '--goal', 'bogus'], /--goal/],
      [['projects', 'create', '--name', 'X', '--operand', 'xor'], /--operand/],
    ];
    for (const [args, flag] of cases) {
      const r = await rsi(args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(flag);
      expect(r.stdout).toBe('');
    }
    expect((await sandboxStats(e2e.url)).apiRequests).toBe(before);
  });
});

describe.concurrent('projects, signals, opportunities', () => {
  it('projects list --json is the API body', async ({ expect }) => {
    const r = await rsi(['projects', 'list', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const list = S.ProjectList().parse(parse(r.stdout));
    expect(list.projects.map((p) => p.name)).toEqual(
      expect.arrayContaining(['Oncology watchlist', 'KRAS inhibitors', 'Fibrosis landscape']),
    );
  });

  it('projects create with a watchlist from stdin prints id and setup URL; --json prints the body', async ({ expect }) => {
    const card = S.KeywordSearchPage().parse(parse((await rsi(['keywords', 'search', 'EGFR', '--json'])).stdout)).data[0]!;
    const watchlist = JSON.stringify([{ entity_id: card.id, entity_type: 'keyword', entity_name: card.name }]);
    const r = await rsi(
      [
        'projects',
        'create',
        '--name',
        'E2E created',
        '--brief',
        'b',
        '--watchlist-file',
        '-',
        '--operand',
        'or',
        '--goal',
        'target',
        '--json',
      ],
      {},
      watchlist,
    );
    expect(r.code, r.stderr).toBe(0);
    const created = S.CreatedProject().parse(parse(r.stdout));
    expect(created.setup_url).toContain(created.id);
    const human = await rsi(['projects', 'create', '--name', 'E2E human']);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stderr).toContain('Created project E2E human');
    expect(human.stdout).toMatch(/[0-9a-f-]{36}/);
    expect(human.stdout).toContain('setup=1');
  });

  it('projects create: invalid watchlist file exits 2; missing name exits 2', async ({ expect }) => {
    const file = join(e2e.configDir, 'bad-watchlist.json');
    writeFileSync(file, '[{"entity_type": 5}]');
    expect((await rsi(['projects', 'create', '--name', 'X', '--watchlist-file', file])).code).toBe(2);
    expect((await rsi(['projects', 'create'])).code).toBe(2);
  });

  it('projects create without projects:write exits 4 naming the scope', async ({ expect }) => {
    const r = await rsi(['projects', 'create', '--name', 'No scope'], { RSI_TOKEN: readOnlyToken });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('projects:write');
  });

  it('signals --json validates; a project name resolves', async ({ expect }) => {
    const r = await rsi(['signals', 'KRAS inhibitors', '--limit', '5', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const list = S.SignalList().parse(parse(r.stdout));
    expect(list.signals.length).toBeLessThanOrEqual(5);
  });

  it('opportunities --json validates and is non-empty for Oncology watchlist', async ({ expect }) => {
    const r = await rsi(['opportunities', 'Oncology watchlist', '--json']);
    expect(r.code, r.stderr).toBe(0);
    S.OpportunityPayload().parse(parse(r.stdout));
    expect(r.stdout.length).toBeGreaterThan(10);
  });

  it('a project the user is not a member of (or an unknown id): 403 → exit 4, with the server text', async ({ expect }) => {
    // The sandbox answers 403 for any project id the user is not a member of, known or not.
    const r = await rsi(['opportunities', '00000000-0000-4000-8000-000000000000']);
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toMatch(/^rsi: .*not a member/m);
    // An unknown id is reported as what it may be: no such project, or one you do not belong to.
    expect(r.stderr).toMatch(
      /^rsi: forbidden: .* \(the project 00000000-0000-4000-8000-000000000000 may not exist, or you may not be a member of it\)\nhint: the projects you belong to: `rsi projects list`\n$/,
    );
    expect(r.stdout).toBe('');
  });

  it('an unknown project name exits 2 listing the candidates', async ({ expect }) => {
    const r = await rsi(['signals', 'Competitor intel']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Oncology watchlist');
  });

  it('a bad RSI_TOKEN exits 3 with the hint to renew that variable, not to sign in', async ({ expect }) => {
    const r = await rsi(['projects', 'list'], { RSI_TOKEN: 'not-a-valid-token' });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/hint: renew RSI_TOKEN/);
    expect(r.stderr).not.toContain('rsi login');
  });
});

describe.concurrent('api', () => {
  it('GET with and without the /api/v1 prefix, fields as query', async ({ expect }) => {
    const a = await rsi(['api', 'GET', '/keywords', '--field', 'q=kras', '--field', 'limit=2']);
    expect(a.code, a.stderr).toBe(0);
    expect(S.KeywordSearchPage().parse(parse(a.stdout)).meta.pageSize).toBe(2);
    const b = await rsi(['api', 'GET', '/api/v1/projects']);
    expect(b.code, b.stderr).toBe(0);
    S.ProjectList().parse(parse(b.stdout));
  });

  it('POST with --input - sends the JSON body', async ({ expect }) => {
    const r = await rsi(['api', 'POST', '/projects', '--input', '-'], {}, JSON.stringify({ name: 'Via api' }));
    expect(r.code, r.stderr).toBe(0);
    S.CreatedProject().parse(parse(r.stdout));
  });

  it('a 400 prints the body and exits 2; a 404 exits 5', async ({ expect }) => {
    const r = await rsi(['api', 'POST', '/projects', '--field', 'name=']);
    expect(r.code).toBe(2);
    expect(parse(r.stdout)).toHaveProperty('error');
    const n = await rsi(['api', 'GET', '/keywords/00000000-0000-4000-8000-000000000000']);
    expect(n.code).toBe(5);
  });

  it('a 409 (scoring setup missing) exits 6 with the setup URL; the body is on stdout', async ({ expect }) => {
    const list = S.ProjectList().parse(parse((await rsi(['projects', 'list', '--json'])).stdout));
    const pending = list.projects.find((p) => p.name === 'Immunology pipeline');
    expect(pending, 'seed project with setup not finished').toBeDefined();
    const r = await rsi(
      ['api', 'POST', `/projects/${pending!.id}/analyses`, '--input', '-'],
      {},
      JSON.stringify({ top: { type: 'target', limit: 1 } }),
    );
    expect(r.code, r.stderr).toBe(6);
    expect(parse(r.stdout)).toHaveProperty('error');
    // The setup URL once: the service's text names it here, so the hint points to it instead of repeating it.
    const url = `/projects/${pending!.id}/overview?setup=1`;
    expect(r.stderr.split(url).length - 1, r.stderr).toBe(1);
  });

  it('a bad method exits 2 without a request', async ({ expect }) => {
    expect((await rsi(['api', 'FETCH', '/projects'])).code).toBe(2);
  });
});

describe.concurrent('completion', () => {
  for (const shell of ['bash', 'zsh', 'fish']) {
    it(`${shell} covers commands and flags`, async ({ expect }) => {
      const r = await rsi(['completion', shell]);
      expect(r.code, r.stderr).toBe(0);
      for (const word of ['keywords', 'relations', 'projects', 'opportunities', 'relation', 'watchlist-file'])
        expect(r.stdout).toContain(word);
    });
  }
  it('an unknown shell exits 2', async ({ expect }) => {
    expect((await rsi(['completion', 'tcsh'])).code).toBe(2);
  });
});

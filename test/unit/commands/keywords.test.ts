/** keywords search / get / relations: flags → options, and run with a fake client. */
import { describe, expect, it } from 'vitest';
import * as get from '../../../src/commands/keywords/get/get.js';
import * as relations from '../../../src/commands/keywords/relations/relations.js';
import * as search from '../../../src/commands/keywords/search/search.js';
import { AmbiguousNameError, UsageError } from '../../../src/errors.js';
import { fakeClient, parseFlags } from '../../support/commands.js';
import { fakeCtx, fakeIo } from '../../support/fakes.js';

const EGFR = { id: '0b6f3c1e-1111-4111-8111-111111111111', name: 'EGFR', type: 'target', synonyms: ['ERBB1'] };
const KRAS = { id: '0b6f3c1e-2222-4222-8222-222222222222', name: 'KRAS', type: 'target', synonyms: [] };

describe('keywords search: flags', () => {
  it.each([
    [['egfr'], { query: 'egfr', page: undefined, limit: undefined, all: false }],
    [['egfr', '--page', '2', '--limit', '20'], { query: 'egfr', page: 2, limit: 20, all: false }],
    [['egfr', '--all', '--limit', '5'], { query: 'egfr', page: undefined, limit: 5, all: true }],
  ])('%j → options', async (argv, expected) => {
    expect(await parseFlags(search.build, argv)).toEqual(expected);
  });

  it.each([
    [['  '], /search query must not be empty/],
    [['egfr', '--page', '0'], /--page must be an integer of at least 1/],
    [['egfr', '--limit', '21'], /--limit must be an integer from 1 to 20/],
    [['egfr', '--limit', 'ten'], /--limit/],
    [['egfr', '--all', '--page', '2'], /--all and --page cannot be used together/],
  ])('%j → UsageError', async (argv, message) => {
    const error = await parseFlags(search.build, argv).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(message);
  });
});

describe('keywords search: run', () => {
  const page = { data: [EGFR, KRAS], meta: { page: 1, pageSize: 2, total: 5 } };

  it('tsv: one row per hit on stdout, the query sent as given', async () => {
    const io = fakeIo(false);
    const { client, calls } = fakeClient({ searchKeywords: async () => page });
    await search.run({ query: 'egfr', page: 1, limit: 2, all: false }, fakeCtx(io, { format: 'tsv', client }));
    expect(calls).toEqual([{ method: 'searchKeywords', args: [{ q: 'egfr', page: 1, limit: 2 }] }]);
    // An array cell is JSON in tsv (docs/scripting.md, "Formats").
    expect(io.out()).toBe(`EGFR\ttarget\t["ERBB1"]\t${EGFR.id}\nKRAS\ttarget\t[]\t${KRAS.id}\n`);
    expect(io.err()).toBe('');
  });

  it('json: the page as the service sent it', async () => {
    const io = fakeIo(false);
    const { client } = fakeClient({ searchKeywords: async () => page });
    await search.run({ query: 'egfr', page: undefined, limit: undefined, all: false }, fakeCtx(io, { format: 'json', client }));
    expect(JSON.parse(io.out())).toEqual(page);
  });

  it('table: a full page says how to get the next one on stderr', async () => {
    const io = fakeIo(true);
    const { client } = fakeClient({ searchKeywords: async () => page });
    await search.run({ query: 'egfr', page: undefined, limit: 2, all: false }, fakeCtx(io, { format: 'table', client }));
    expect(io.out()).toMatch(/NAME\s+TYPE\s+SYNONYMS\s+ID/);
    expect(io.err()).toBe('Page 1; more may follow: --page 2, or --all\n');
  });

  it('no hits: nothing on stdout, the reason on stderr', async () => {
    const io = fakeIo(false);
    const { client } = fakeClient({ searchKeywords: async () => ({ data: [], meta: { page: 1, pageSize: 10, total: 0 } }) });
    await search.run({ query: 'zzz', page: undefined, limit: undefined, all: false }, fakeCtx(io, { format: 'tsv', client }));
    expect(io.out()).toBe('');
    expect(io.err()).toBe('No keywords match "zzz"\n');
  });

  it('--all walks the pages through iterateKeywordSearch with the page size 20', async () => {
    const io = fakeIo(false);
    const { client, calls } = fakeClient({
      iterateKeywordSearch: async function* () {
        yield EGFR;
        yield KRAS;
      },
    });
    await search.run({ query: 'k', page: undefined, limit: undefined, all: true }, fakeCtx(io, { format: 'ndjson', client }));
    expect(calls.map((c) => c.method)).toEqual(['iterateKeywordSearch']);
    expect(calls[0]!.args[0]).toMatchObject({ q: 'k', limit: 20 });
    expect(
      io
        .out()
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l).name),
    ).toEqual(['EGFR', 'KRAS']);
  });

  it('a service error goes up unchanged (main maps it to its exit code)', async () => {
    const io = fakeIo(false);
    const boom = new Error('503');
    const { client } = fakeClient({ searchKeywords: async () => Promise.reject(boom) });
    await expect(
      search.run({ query: 'egfr', page: undefined, limit: undefined, all: false }, fakeCtx(io, { format: 'tsv', client })),
    ).rejects.toBe(boom);
    expect(io.out()).toBe('');
  });
});

describe('keywords get: flags', () => {
  it.each([
    [['EGFR'], { keyword: 'EGFR', include: [] }],
    [['EGFR', '--include', 'indications,sponsors'], { keyword: 'EGFR', include: ['indications', 'sponsors'] }],
    // Repeated, spaced, dashed and upper-case: the same sections, once each.
    [
      ['EGFR', '--include', 'Pipeline-Targets', '--include', ' indications , pipeline_targets'],
      { keyword: 'EGFR', include: ['pipeline_targets', 'indications'] },
    ],
  ])('%j → options', async (argv, expected) => {
    expect(await parseFlags(get.build, argv)).toEqual(expected);
  });

  it.each([[['EGFR', '--include', ',']], [['EGFR', '--include', 'a/b']], [['EGFR', '--include', '1st']]])(
    '%j → UsageError naming --include',
    async (argv) => {
      await expect(parseFlags(get.build, argv)).rejects.toThrow(UsageError);
      await expect(parseFlags(get.build, argv)).rejects.toThrow(/--include/);
    },
  );
});

describe('keywords get: run', () => {
  const card = {
    ...EGFR,
    description: 'Epidermal growth factor receptor',
    activity: { papers: 10, patents: 2, trials: 3, assets: 1 },
    scores: { as_of: '2026-01-01', composite: { score: 71, label: 'high' }, momentum: null },
    indications: { data: [{ id: 'i1', name: 'NSCLC', count: 4 }], total: 9 },
  };

  it('a name is resolved through search, then the card fetched with the sections', async () => {
    const io = fakeIo(false);
    const { client, calls } = fakeClient({
      searchKeywords: async () => ({ data: [EGFR], meta: { page: 1, pageSize: 20, total: 1 } }),
      getKeyword: async () => card,
    });
    await get.run({ keyword: 'erbb1', include: ['indications'] }, fakeCtx(io, { format: 'tsv', client }));
    expect(calls).toEqual([
      { method: 'searchKeywords', args: [{ q: 'erbb1', limit: 20 }] },
      { method: 'getKeyword', args: [EGFR.id, { include: ['indications'] }] },
    ]);
    expect(io.out()).toMatch(/^keyword\t/m);
    expect(io.out()).toMatch(/^indication(s)?\t.*NSCLC/m);
    // The section's total is list metadata: on stderr.
    expect(io.err()).toBe('indications: 1 of 9\n');
  });

  it('table: a section the card cuts short says so, with the command listing every item', async () => {
    const io = fakeIo({ tty: true, columns: 200 });
    const { client } = fakeClient({ getKeyword: async () => card });
    const ctx = fakeCtx(io, { format: 'table', client, globals: { profile: 'ttl', profileSource: 'flag' } });
    await get.run({ keyword: EGFR.id, include: ['indications'] }, ctx);
    expect(io.out()).toContain('indications (1 of 9)');
    expect(io.err()).toBe(
      `hint: indications: 1 of 9 shown; all of them: \`rsi keywords relations --profile ttl ${EGFR.id} --relation indications --all\`\n`,
    );
  });

  it('json: the card as sent, and a UUID skips the search', async () => {
    const io = fakeIo(false);
    const { client, calls } = fakeClient({ getKeyword: async () => card });
    await get.run({ keyword: EGFR.id, include: [] }, fakeCtx(io, { format: 'json', client }));
    expect(calls.map((c) => c.method)).toEqual(['getKeyword']);
    expect(JSON.parse(io.out())).toEqual(card);
  });

  it('an unknown name fails with the near matches and no card request', async () => {
    const io = fakeIo(false);
    const { client, calls } = fakeClient({ searchKeywords: async () => ({ data: [KRAS], meta: { page: 1, pageSize: 20, total: 1 } }) });
    await expect(get.run({ keyword: 'EGFR', include: [] }, fakeCtx(io, { format: 'tsv', client }))).rejects.toThrow(AmbiguousNameError);
    expect(calls.map((c) => c.method)).toEqual(['searchKeywords']);
    expect(io.out()).toBe('');
  });
});

describe('keywords relations: flags', () => {
  const base = { keyword: 'EGFR', limit: undefined, offset: undefined, all: false };
  it.each([
    [['EGFR', '--relation', 'indications'], { ...base, relations: [{ relation: 'indications' }] }],
    [
      ['EGFR', '--relation', 'Pipeline-Targets', '--limit', '100', '--offset', '0'],
      { ...base, relations: [{ relation: 'pipeline_targets' }], limit: 100, offset: 0 },
    ],
    [
      ['EGFR', '--relation', 'sponsor', '--activity', 'TRIALS', '--all'],
      { ...base, relations: [{ relation: 'sponsors', activity: 'trials' }], all: true },
    ],
  ])('%j → options', async (argv, expected) => {
    expect(await parseFlags(relations.build, argv)).toEqual(expected);
  });

  it.each([
    [['EGFR'], /--relation is required/],
    [['EGFR', '--relation', 'friends'], /--relation must be one of/],
    [['EGFR', '--relation', 'sponsors'], /--activity is required with --relation sponsors/],
    [['EGFR', '--relation', 'assets', '--activity', 'trials'], /--activity only applies with --relation sponsors/],
    [['EGFR', '--relation', 'sponsors', '--activity', 'tweets'], /--activity must be one of/],
    [['EGFR', '--relation', 'assets', '--limit', '101'], /--limit must be an integer from 1 to 100/],
    [['EGFR', '--relation', 'assets', '--offset', '-1'], /--offset must be an integer of at least 0/],
    [['EGFR', '--relation', 'assets', '--all', '--limit', '5'], /--all and --limit cannot be used together/],
  ])('%j → UsageError', async (argv, message) => {
    const error = await parseFlags(relations.build, argv).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(message);
  });
});

describe('keywords relations: run', () => {
  const page = {
    data: [
      { id: 'i1', name: 'NSCLC', count: 12, stage: null },
      { id: 'i2', name: 'CRC', count: 3, stage: 'phase 2' },
    ],
    meta: { relation: 'indications', limit: 2, offset: 0, total: 7 },
  };
  const opts = { keyword: EGFR.id, relations: [{ relation: 'indications' }], limit: 2, offset: undefined, all: false };

  it('tsv: the links on stdout, the query passed on', async () => {
    const io = fakeIo(false);
    const { client, calls } = fakeClient({ listRelations: async () => page });
    await relations.run(opts, fakeCtx(io, { format: 'tsv', client }));
    expect(calls).toEqual([
      { method: 'listRelations', args: [EGFR.id, { relation: 'indications', activity: undefined, limit: 2, offset: undefined }] },
    ]);
    expect(io.out()).toBe('NSCLC\t12\t\ti1\nCRC\t3\tphase 2\ti2\n');
    expect(io.err()).toBe('');
  });

  it('table: the position and how to go on, on stderr', async () => {
    const io = fakeIo(true);
    const { client } = fakeClient({ listRelations: async () => page });
    await relations.run(opts, fakeCtx(io, { format: 'table', client }));
    expect(io.out()).toMatch(/NAME\s+COUNT/);
    expect(io.err()).toBe('Showing 1–2 of 7; more with --offset 2, or --all\n');
  });

  it('json: the page as sent', async () => {
    const io = fakeIo(false);
    const { client } = fakeClient({ listRelations: async () => page });
    await relations.run(opts, fakeCtx(io, { format: 'json', client }));
    expect(JSON.parse(io.out())).toEqual(page);
  });

  it('an offset past the end says so on stderr', async () => {
    const io = fakeIo(false);
    const { client } = fakeClient({ listRelations: async () => ({ data: [], meta: { ...page.meta, offset: 50 } }) });
    await relations.run({ ...opts, offset: 50 }, fakeCtx(io, { format: 'tsv', client }));
    expect(io.out()).toBe('');
    expect(io.err()).toBe('No links at offset 50 (total 7)\n');
  });
});

// Shared command helpers: name resolution (projects, keywords) and flag validation.
import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/client/client.js';
import { AmbiguousNameError, UnexpectedReplyError, UsageError } from '../../src/errors.js';
import { resolveKeyword, resolveProject } from '../../src/ops/resolve.js';
import { enumFlag, intFlag, parseJsonInput } from '../../src/commands/shared/flags.js';
import { fakeClient } from '../support/commands.js';

const P1 = 'aaaaaaaa-0000-4000-8000-000000000001';
const P2 = 'aaaaaaaa-0000-4000-8000-000000000002';
const K1 = 'bbbbbbbb-0000-4000-8000-000000000001';
const K2 = 'bbbbbbbb-0000-4000-8000-000000000002';

/** Three projects (two named Twin, one with a bad id) and a keyword search over four keywords. */
function service(calls: string[] = []): ApiClient {
  return fakeClient({
    async listProjects() {
      calls.push('listProjects');
      return {
        projects: [
          { id: P1, name: 'Oncology watchlist', role: 'owner' },
          { id: P2, name: 'Twin', role: 'viewer' },
          { id: 'aaaaaaaa-0000-4000-8000-000000000003', name: 'Twin', role: 'editor' },
          { id: '..', name: 'Dots', role: 'owner' },
        ],
      };
    },
    async searchKeywords(q: { q: string }) {
      calls.push(`search:${q.q}`);
      const all = [
        { id: K1, name: 'EGFR', type: 'target', synonyms: ['ERBB1', 'HER1'] },
        { id: K2, name: 'HER1 antibody', type: 'asset', synonyms: ['her1'] },
        { id: 'bbbbbbbb-0000-4000-8000-000000000003', name: 'EGFR-TKI', type: 'modality', synonyms: [] },
        { id: '../projects', name: 'Sneaky', type: 'target', synonyms: [] },
      ];
      return {
        data: all.filter((k) => `${k.name} ${k.synonyms.join(' ')}`.toLowerCase().includes(q.q.toLowerCase())),
        meta: { page: 1, pageSize: 20 },
      };
    },
  }).client as ApiClient;
}

describe('resolveProject', () => {
  it('an exact name resolves', async () => {
    expect((await resolveProject(service(), 'Oncology watchlist')).id).toBe(P1);
  });
  it('a case-insensitive name resolves when unique', async () => {
    expect((await resolveProject(service(), 'oncology WATCHLIST')).id).toBe(P1);
  });
  it('a UUID needs no request: it goes to the server as is (a token with only the route scope works)', async () => {
    const calls: string[] = [];
    expect(await resolveProject(service(calls), P1.toUpperCase())).toEqual({ id: P1, name: P1.toUpperCase() });
    const other = 'cccccccc-0000-4000-8000-000000000009';
    expect((await resolveProject(service(calls), other)).id).toBe(other);
    expect(calls).toEqual([]);
  });
  it('a listed project whose id is not a UUID is refused before it reaches a path', async () => {
    const err = await resolveProject(service(), 'Dots').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnexpectedReplyError);
    expect((err as Error).message).toContain('not a UUID');
  });
  it('two projects with one name: ambiguous, both ids listed', async () => {
    const err = await resolveProject(service(), 'Twin').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AmbiguousNameError);
    expect((err as AmbiguousNameError).exitCode).toBe(2);
    expect((err as AmbiguousNameError).candidates).toHaveLength(2);
  });
  it('an unknown name lists the projects', async () => {
    const err = (await resolveProject(service(), 'Nope').catch((e: unknown) => e)) as AmbiguousNameError;
    expect(err).toBeInstanceOf(AmbiguousNameError);
    expect(err.candidates).toContain('Oncology watchlist');
    expect(err.hint).toContain('Oncology watchlist');
  });
});

describe('resolveKeyword', () => {
  it('a UUID needs no request', async () => {
    const calls: string[] = [];
    expect(await resolveKeyword(service(calls), K1)).toEqual({ id: K1, name: K1 });
    expect(calls).toEqual([]);
  });
  it('a synonym matches exactly, case-insensitively; partial matches do not count', async () => {
    expect(await resolveKeyword(service(), 'erbb1')).toEqual({ id: K1, name: 'EGFR' });
    expect(await resolveKeyword(service(), 'egfr')).toEqual({ id: K1, name: 'EGFR' });
  });
  it('a keyword id from the search that is not a UUID is refused before it reaches a path', async () => {
    const err = await resolveKeyword(service(), 'sneaky').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnexpectedReplyError);
  });
  it('several exact matches: ambiguous with candidates', async () => {
    const err = (await resolveKeyword(service(), 'HER1').catch((e: unknown) => e)) as AmbiguousNameError;
    expect(err).toBeInstanceOf(AmbiguousNameError);
    expect(err.candidates).toHaveLength(2);
  });
  it('no exact match: exit 2 naming near candidates', async () => {
    const err = (await resolveKeyword(service(), 'EGF').catch((e: unknown) => e)) as AmbiguousNameError;
    expect(err).toBeInstanceOf(AmbiguousNameError);
    expect(err.message).toContain('no keyword named "EGF"');
    expect(err.candidates.join(' ')).toContain('EGFR');
  });
});

describe('flags', () => {
  // Synchronous: a flag is checked before anything loads or is sent.
  const thrown = (f: () => unknown): unknown => {
    try {
      f();
    } catch (error) {
      return error;
    }
    return undefined;
  };
  it('intFlag accepts the range and names the flag otherwise', () => {
    expect(intFlag('--limit', '20', 1, 20)).toBe(20);
    expect(intFlag('--limit', ' 7 ', 1, 20)).toBe(7);
    expect(intFlag('--limit', undefined, 1, 20)).toBeUndefined();
    for (const bad of ['0', '21', '1.5', 'abc', '', '1e1', '0x10', '99999999999999999999']) {
      const err = thrown(() => intFlag('--limit', bad, 1, 20));
      expect(err).toBeInstanceOf(UsageError);
      expect((err as Error).message).toMatch(/^--limit must be an integer from 1 to 20/);
    }
  });
  it('enumFlag lists the allowed values', () => {
    expect(enumFlag('--operand', 'or', ['and', 'or'])).toBe('or');
    const err = thrown(() => enumFlag('--operand', 'xor', ['and', 'or']));
    expect((err as Error).message).toBe('--operand must be one of and, or (got "xor")');
  });
  it('parseJsonInput names the flag and source', () => {
    expect(() => parseJsonInput('--input', '{', 'stdin')).toThrow(/--input: stdin is not valid JSON/);
    expect(() => parseJsonInput('--input', ' ', 'f.json')).toThrow(/--input: f.json is empty/);
  });
});

// Resolving names and ids (src/ops/resolve.ts), the use case both front-ends share, against a fake
// client that fails on any call it was not given.
import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/client/client.js';
import { isUuid, UUID_RE } from '../../src/client/ids.js';
import { AmbiguousNameError, UnexpectedReplyError, UsageError } from '../../src/errors.js';
import { resolveKeyword, resolveProject, resolveProjectLazily } from '../../src/ops/resolve.js';
import { fakeClient } from '../support/commands.js';

const P1 = '11111111-1111-4111-8111-111111111111';
const P2 = '22222222-2222-4222-8222-222222222222';
const K1 = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';

const projects = (list: Array<{ id: string; name: string }>) =>
  fakeClient({ listProjects: async () => ({ projects: list.map((p) => ({ ...p, role: 'owner' })) }) });

describe('ops/resolve: the UUID pattern', () => {
  it('accepts a UUID in either case and nothing else', () => {
    expect(isUuid(P1)).toBe(true);
    expect(isUuid(P1.toUpperCase())).toBe(true);
    expect(isUuid(`${P1}/..`)).toBe(false);
    expect(isUuid('..')).toBe(false);
    expect(UUID_RE.test(` ${P1}`)).toBe(false);
  });
});

describe('ops/resolve: resolveProject', () => {
  it('takes a UUID as it is, lower-cased, without asking the API', async () => {
    const { client, calls } = projects([]);
    expect(await resolveProject(client as ApiClient, ` ${P1.toUpperCase()} `)).toEqual({ id: P1, name: P1.toUpperCase() });
    expect(calls).toEqual([]);
  });

  it('finds an exact name first, then a case-insensitive one', async () => {
    const { client } = projects([
      { id: P1, name: 'Oncology' },
      { id: P2, name: 'oncology' },
    ]);
    expect(await resolveProject(client as ApiClient, 'oncology')).toEqual({ id: P2, name: 'oncology' });
    const { client: one } = projects([{ id: P1, name: 'Oncology' }]);
    expect(await resolveProject(one as ApiClient, 'ONCOLOGY')).toEqual({ id: P1, name: 'Oncology' });
  });

  it('names the candidates when several projects share the name, and the projects when none has it', async () => {
    const { client } = projects([
      { id: P1, name: 'Twin' },
      { id: P2, name: 'Twin' },
    ]);
    const twins = await resolveProject(client as ApiClient, 'Twin').catch((e: unknown) => e);
    expect(twins).toBeInstanceOf(AmbiguousNameError);
    expect((twins as AmbiguousNameError).candidates).toEqual([`${P1}  Twin`, `${P2}  Twin`]);
    const none = await resolveProject(client as ApiClient, 'Other').catch((e: unknown) => e);
    expect(none).toMatchObject({ message: 'no project named "Other"', hint: 'your projects: "Twin", "Twin"' });
  });

  it('refuses an empty reference and a server id that is not a UUID', async () => {
    const { client } = projects([{ id: '../admin', name: 'Evil' }]);
    await expect(resolveProject(client as ApiClient, '  ')).rejects.toBeInstanceOf(UsageError);
    await expect(resolveProject(client as ApiClient, 'Evil')).rejects.toBeInstanceOf(UnexpectedReplyError);
  });

  it('resolveProjectLazily opens the client only for a name', async () => {
    let opened = 0;
    const { client } = projects([{ id: P1, name: 'Named' }]);
    const open = async () => {
      opened += 1;
      return client as ApiClient;
    };
    expect(await resolveProjectLazily(open, P2)).toEqual({ id: P2, name: P2 });
    expect(opened).toBe(0);
    expect(await resolveProjectLazily(open, 'Named')).toEqual({ id: P1, name: 'Named' });
    expect(opened).toBe(1);
  });
});

describe('ops/resolve: resolveKeyword', () => {
  const search = (data: Array<{ id: string; name: string; type: string; synonyms: string[] }>) =>
    fakeClient({ searchKeywords: async () => ({ data, meta: { page: 1, limit: 20, total: data.length } }) });

  it('matches a name or a synonym exactly, case-insensitive, through one search', async () => {
    const { client, calls } = search([
      { id: K1, name: 'KRAS', type: 'target', synonyms: ['K-Ras'] },
      { id: P2, name: 'KRAS G12C', type: 'target', synonyms: [] },
    ]);
    expect(await resolveKeyword(client as ApiClient, 'k-ras')).toEqual({ id: K1, name: 'KRAS' });
    expect(calls.map((c) => [c.method, c.args[0]])).toEqual([['searchKeywords', { q: 'k-ras', limit: 20 }]]);
  });

  it('suggests near hits with a quoted search command when nothing matches exactly', async () => {
    const { client } = search([{ id: K1, name: 'KRAS', type: 'target', synonyms: [] }]);
    const err = await resolveKeyword(client as ApiClient, "kra's").catch((e: unknown) => e);
    expect(err).toMatchObject({
      message: `no keyword named "kra's"`,
      hint: `did you mean: KRAS (target)? (\`rsi keywords search "kra's"\`)`,
    });
  });
});

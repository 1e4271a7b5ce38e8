// The typed API client against a fake Http port: status mapping, schema checks, pagination.
import { describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/client/client.js';
import type { Http, HttpRequest, HttpResponse } from '../../src/http/types.js';
import {
  ConflictError,
  ForbiddenError,
  NotFoundError,
  NotSignedInError,
  ServiceUnavailableError,
  UnexpectedReplyError,
  UsageError,
} from '../../src/errors.js';

const API = 'https://rsi.example/api/v1';

function reply(status: number, body: unknown, contentType = 'application/json'): HttpResponse {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const isJson = contentType.includes('json');
  return { status, headers: { 'content-type': contentType }, text, json: isJson ? JSON.parse(text) : undefined, isJson };
}

function fakeHttp(handler: (req: HttpRequest) => HttpResponse | Promise<HttpResponse>): Http & { calls: HttpRequest[] } {
  const calls: HttpRequest[] = [];
  return {
    apiBase: API,
    calls,
    async request(req) {
      calls.push(req);
      return handler(req);
    },
    async close() {},
  };
}

const UUID = '11111111-2222-4333-8444-555555555555';
const hit = (i: number) => ({ id: UUID, name: `K${i}`, type: 'target', synonyms: [] });

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe('status mapping', () => {
  const client = (status: number, body: unknown, ct?: string) => new ApiClient(fakeHttp(() => reply(status, body, ct)));

  it('400 is a usage error carrying the server text', async () => {
    const err = await client(400, { error: 'Missing name' })
      .createProject({ name: '' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toContain('Missing name');
  });

  it('401 is not signed in with a login hint', async () => {
    const err = await client(401, { error: 'invalid_token' })
      .listProjects()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotSignedInError);
    expect((err as NotSignedInError).exitCode).toBe(3);
    expect((err as NotSignedInError).hint).toContain('rsi login');
  });

  it('403 insufficient_scope names the scope and the login command', async () => {
    const err = await client(403, { error: 'insufficient_scope', scope: 'analyses:run' })
      .runAnalyses(UUID, { selections: [] } as never)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ForbiddenError);
    expect((err as ForbiddenError).scope).toBe('analyses:run');
    expect((err as Error).message).toContain('missing scope analyses:run');
    expect((err as ForbiddenError).hint).toContain('rsi login --scope analyses:run');
    expect((err as ForbiddenError).exitCode).toBe(4);
  });

  it('other 403 keeps the server text', async () => {
    const err = await client(403, { error: 'You are not a member of this project' })
      .getOpportunities(UUID)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ForbiddenError);
    expect((err as Error).message).toContain('not a member');
  });

  it('a 403 on a project also says it may not exist (the service checks membership first), and how to list yours', async () => {
    const err = (await client(403, { error: 'forbidden' })
      .getOpportunities(UUID)
      .catch((e: unknown) => e)) as ForbiddenError;
    expect(err).toBeInstanceOf(ForbiddenError);
    expect(err.message).toBe(`forbidden: forbidden (the project ${UUID} may not exist, or you may not be a member of it)`);
    expect(err.hint).toBe('the projects you belong to: `rsi projects list`');
    // A 403 elsewhere says only what the service said.
    const keyword = (await client(403, { error: 'nope' })
      .getKeyword(UUID)
      .catch((e: unknown) => e)) as ForbiddenError;
    expect(keyword.message).toBe('forbidden: nope');
  });

  it('404 is not found', async () => {
    const err = await client(404, { error: 'Keyword not found' })
      .getKeyword(UUID)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotFoundError);
    expect((err as NotFoundError).exitCode).toBe(5);
  });

  it('409 on analyses carries the setup URL derived from the API base', async () => {
    const err = await client(409, { error: 'Scoring setup missing' })
      .runAnalyses(UUID, { selections: [] } as never)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConflictError);
    const url = `https://rsi.example/projects/${UUID}/overview?setup=1`;
    expect((err as ConflictError).setupUrl).toBe(url);
    expect(`${(err as Error).message} ${(err as ConflictError).hint}`).toContain(url);
  });

  it('a 502 HTML page is not parsed', async () => {
    const err = await client(502, '<html><body>Bad Gateway</body></html>', 'text/html')
      .listProjects()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceUnavailableError);
    expect((err as Error).message).toContain('the service answered 502 (Bad Gateway) with a non-JSON page');
    expect((err as ServiceUnavailableError).exitCode).toBe(8);
    expect((err as Error).message).not.toContain('<html>');
  });

  it('429 and 503 are service unavailable', async () => {
    for (const status of [429, 503]) {
      const err = await client(status, { error: 'busy' })
        .listProjects()
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ServiceUnavailableError);
    }
  });

  it('504 on analyses says no run was recorded and retrying is safe', async () => {
    const err = await client(504, { error: 'Gateway Timeout' })
      .runAnalyses(UUID, { selections: [] } as never)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceUnavailableError);
    expect(`${(err as Error).message} ${(err as ServiceUnavailableError).hint}`).toMatch(/no run was recorded.*safe/i);
  });

  it('a 2xx body that breaks the schema names the field', async () => {
    const err = await client(200, { data: [{ id: UUID, name: 5, type: 'target', synonyms: [] }], meta: { page: 1, pageSize: 10 } })
      .searchKeywords({ q: 'x' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnexpectedReplyError);
    expect((err as Error).message).toContain('GET /keywords');
    expect((err as Error).message).toContain('data.0.name');
  });

  it('a 2xx non-JSON body is an unexpected reply', async () => {
    const err = await client(200, 'hello', 'text/plain')
      .listProjects()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnexpectedReplyError);
  });

  it('unknown fields are kept', async () => {
    const page = await client(200, { data: [{ ...hit(1), extra: 42 }], meta: { page: 1, pageSize: 10, next: 'x' } }).searchKeywords({
      q: 'k',
    });
    expect((page.data[0] as Record<string, unknown>).extra).toBe(42);
    expect((page.meta as Record<string, unknown>).next).toBe('x');
  });
});

describe('requests', () => {
  it('runAnalyses is a POST (never sent twice: the method says so, src/http/resend.ts), and hands on onSent', async () => {
    const http = fakeHttp(() => reply(202, { analyses: [] }));
    const onSent = () => undefined;
    await new ApiClient(http).runAnalyses(UUID, { selections: [] } as never, undefined, onSent).catch(() => undefined);
    expect(http.calls[0]).toMatchObject({ method: 'POST', path: `/projects/${UUID}/analyses`, onSent });
    expect(http.calls[0]).not.toHaveProperty('idempotent');
  });

  it('getKeyword joins include sections with commas', async () => {
    const http = fakeHttp(() => reply(404, { error: 'nope' }));
    await new ApiClient(http).getKeyword(UUID, { include: ['scores', 'counts'] }).catch(() => undefined);
    expect(http.calls[0]?.query?.include).toBe('scores,counts');
  });
});

describe('iterateKeywordSearch', () => {
  it('walks pages until a short page, each hit once', async () => {
    const total = 47;
    const http = fakeHttp((req) => {
      const page = Number(req.query?.page);
      const limit = Number(req.query?.limit);
      const data = [];
      for (let i = (page - 1) * limit; i < Math.min(total, page * limit); i++) data.push(hit(i));
      return reply(200, { data, meta: { page, pageSize: limit } });
    });
    const all = await collect(new ApiClient(http).iterateKeywordSearch({ q: 'k', limit: 20 }));
    expect(all.map((h) => h.name)).toEqual(Array.from({ length: total }, (_, i) => `K${i}`));
  });
});

describe('iterateRelations', () => {
  function relationsHttp(total: number, delays = true) {
    let inflight = 0;
    let maxInflight = 0;
    const http = fakeHttp(async (req) => {
      inflight++;
      maxInflight = Math.max(maxInflight, inflight);
      const offset = Number(req.query?.offset ?? 0);
      const limit = Number(req.query?.limit ?? 25);
      // Later pages answer sooner: order must still hold.
      if (delays) await new Promise((r) => setTimeout(r, Math.max(0, 20 - offset / limit)));
      inflight--;
      const data = [];
      for (let i = offset; i < Math.min(total, offset + limit); i++) data.push({ id: UUID, name: `R${i}`, count: total - i });
      return reply(200, { data, meta: { relation: 'assets', total, limit, offset } });
    });
    return { http, maxInflight: () => maxInflight };
  }

  it('yields every item exactly once, in order, with bounded concurrency', async () => {
    const { http, maxInflight } = relationsHttp(1037);
    const items = await collect(new ApiClient(http).iterateRelations(UUID, { relation: 'assets', pageSize: 100, concurrency: 4 }));
    expect(items.map((r) => r.name)).toEqual(Array.from({ length: 1037 }, (_, i) => `R${i}`));
    // Eleven pages of data, and the empty page at offset 1037 that ends the walk: a total alone
    // never ends it.
    expect(http.calls).toHaveLength(12);
    expect(maxInflight()).toBeGreaterThan(1);
    expect(maxInflight()).toBeLessThanOrEqual(4);
    const offsets = http.calls.map((c) => Number(c.query?.offset));
    expect(new Set(offsets).size).toBe(offsets.length);
  });

  it('an empty relation makes one request', async () => {
    const { http } = relationsHttp(0, false);
    expect(await collect(new ApiClient(http).iterateRelations(UUID, { relation: 'assets' }))).toEqual([]);
    expect(http.calls).toHaveLength(1);
  });
});

describe('iterateKeywordSearch look-ahead', () => {
  for (const total of [0, 19, 20, 40, 41, 133]) {
    it(`${total} hits: each once, in order, at most 2 pages past the end`, async () => {
      const http = fakeHttp(async (req) => {
        const page = Number(req.query?.page);
        const limit = Number(req.query?.limit);
        await new Promise((r) => setTimeout(r, (page * 7) % 5));
        const data = [];
        for (let i = (page - 1) * limit; i < Math.min(total, page * limit); i++) data.push(hit(i));
        return reply(200, { data, meta: { page, pageSize: limit } });
      });
      const all = await collect(new ApiClient(http).iterateKeywordSearch({ q: 'k', limit: 20 }));
      expect(all.map((h) => h.name)).toEqual(Array.from({ length: total }, (_, i) => `K${i}`));
      // Every page of data and the empty page after it: only an empty page ends the walk.
      const needed = Math.ceil(total / 20) + 1;
      expect(http.calls.length).toBeGreaterThanOrEqual(needed);
      expect(http.calls.length).toBeLessThanOrEqual(needed + 2);
    });
  }

  it('an error on a later page rejects the iteration', async () => {
    const http = fakeHttp((req) => {
      const page = Number(req.query?.page);
      if (page === 3) return reply(503, { error: 'busy' });
      return reply(200, { data: Array.from({ length: 20 }, (_, i) => hit(page * 20 + i)), meta: { page, pageSize: 20 } });
    });
    await expect(collect(new ApiClient(http).iterateKeywordSearch({ q: 'k', limit: 20 }))).rejects.toBeInstanceOf(ServiceUnavailableError);
  });
});

describe('iterateRelations errors', () => {
  it('a failing page rejects the iteration without unhandled rejections from pages in flight', async () => {
    const http = fakeHttp(async (req) => {
      const offset = Number(req.query?.offset ?? 0);
      if (offset >= 200) {
        await new Promise((r) => setTimeout(r, 5));
        return reply(502, '<html>bad</html>', 'text/html');
      }
      const data = Array.from({ length: 100 }, (_, i) => ({ id: UUID, name: `R${offset + i}` }));
      return reply(200, { data, meta: { relation: 'assets', total: 1000, limit: 100, offset } });
    });
    await expect(
      collect(new ApiClient(http).iterateRelations(UUID, { relation: 'assets', pageSize: 100, concurrency: 4 })),
    ).rejects.toBeInstanceOf(ServiceUnavailableError);
  });

  it('stopping early (break) lets the pages in flight settle', async () => {
    const { http } = (() => {
      const h = fakeHttp(async (req) => {
        const offset = Number(req.query?.offset ?? 0);
        const data = Array.from({ length: 100 }, (_, i) => ({ id: UUID, name: `R${offset + i}` }));
        return reply(200, { data, meta: { relation: 'assets', total: 1000, limit: 100, offset } });
      });
      return { http: h };
    })();
    let n = 0;
    for await (const _ of new ApiClient(http).iterateRelations(UUID, { relation: 'assets', pageSize: 100, concurrency: 4 })) {
      if (++n === 150) break;
    }
    expect(n).toBe(150);
    expect(http.calls.length).toBeLessThanOrEqual(6);
  });
});

describe('errorFor', () => {
  it('a 409 setup-missing reached through raw (rsi api) still hints the setup URL', () => {
    const client = new ApiClient(fakeHttp(() => reply(200, {})));
    const err = client.errorFor(
      reply(409, { error: 'Scoring setup is missing for this project.' }),
      `POST /projects/${UUID}/analyses`,
    ) as ConflictError;
    expect(err).toBeInstanceOf(ConflictError);
    expect(err.hint).toContain(`https://rsi.example/projects/${UUID}/overview?setup=1`);
  });
  it('a 409 whose text names no cause names both spec causes', () => {
    const client = new ApiClient(fakeHttp(() => reply(200, {})));
    const err = client.errorFor(reply(409, { error: 'Conflict' }), `POST /projects/${UUID}/analyses`) as ConflictError;
    expect(err.setupUrl).toBeUndefined();
    expect(err.hint).toContain(`https://rsi.example/projects/${UUID}/overview?setup=1`);
    expect(err.hint).toContain(`rsi signals ${UUID}`);
  });
  it('a 409 selection conflict points at the signals', () => {
    const client = new ApiClient(fakeHttp(() => reply(200, {})));
    const err = client.errorFor(
      reply(409, { error: 'Selection does not match the finished scan' }),
      `POST /projects/${UUID}/analyses`,
    ) as ConflictError;
    expect(err.hint).toContain('rsi signals');
  });
});

/**
 * A relations server that pages its own way: `served(offset, asked)` says how many rows it returns,
 * `total` what it reports in meta.total (not necessarily the truth, `rows`).
 */
function pagingServer(o: { rows: number; total: (rows: number) => number; served: (offset: number, asked: number) => number }) {
  let inflight = 0;
  let maxInflight = 0;
  const http = fakeHttp(async (req) => {
    inflight++;
    maxInflight = Math.max(maxInflight, inflight);
    const offset = Number(req.query?.offset ?? 0);
    const asked = Number(req.query?.limit ?? 20);
    await new Promise((r) => setTimeout(r, (offset * 7) % 3));
    inflight--;
    const end = Math.min(o.rows, offset + o.served(offset, asked));
    const data = [];
    for (let i = offset; i < end; i++) data.push({ id: UUID, name: `R${i}` });
    return reply(200, { data, meta: { relation: 'assets', total: o.total(o.rows), limit: asked, offset } });
  });
  return { http, maxInflight: () => maxInflight };
}

async function walkRelations(http: Http, concurrency = 4) {
  const warnings: string[] = [];
  const items = await collect(
    new ApiClient(http).iterateRelations(UUID, { relation: 'assets', pageSize: 100, concurrency, onWarning: (m) => warnings.push(m) }),
  );
  return { names: items.map((r) => r.name), warnings };
}

const names = (n: number, prefix = 'R') => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

describe('iterateRelations follows the data', () => {
  it('a server that pages at 50 when asked for 100: every row once (the issue: 100 of 120)', async () => {
    const { http, maxInflight } = pagingServer({ rows: 120, total: (n) => n, served: () => 50 });
    const { names: got, warnings } = await walkRelations(http);
    expect(got).toEqual(names(120));
    expect(warnings).toEqual([]);
    expect(maxInflight()).toBeLessThanOrEqual(4);
  });

  it('pages of varying size: every row once, in order, never more than `concurrency` in flight', async () => {
    const { http, maxInflight } = pagingServer({ rows: 1000, total: (n) => n, served: (offset) => 1 + ((offset * 31) % 97) });
    const { names: got } = await walkRelations(http, 3);
    expect(got).toEqual(names(1000));
    expect(maxInflight()).toBeLessThanOrEqual(3);
    const offsets = http.calls.map((c) => Number(c.query?.offset));
    expect(Math.max(...offsets)).toBe(1000);
  });

  it('a total lower than the data: every row, and one warning', async () => {
    const { http } = pagingServer({ rows: 430, total: () => 250, served: (_, asked) => asked });
    const { names: got, warnings } = await walkRelations(http);
    expect(got).toEqual(names(430));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/total of 250 .*ended at 430/);
  });

  it('a total higher than the data: ends at the empty page, with one warning', async () => {
    const { http } = pagingServer({ rows: 130, total: () => 100_000, served: (_, asked) => asked });
    const { names: got, warnings } = await walkRelations(http);
    expect(got).toEqual(names(130));
    expect(warnings).toHaveLength(1);
    expect(http.calls.length).toBeLessThan(10);
  });

  it('a server that ignores the offset: stops with an error instead of looping', async () => {
    const http = fakeHttp(() =>
      reply(200, { data: [{ id: UUID, name: 'same' }], meta: { relation: 'assets', total: 5, limit: 100, offset: 0 } }),
    );
    await expect(walkRelations(http)).rejects.toThrow(/same rows .*cannot loop/);
    expect(http.calls.length).toBeLessThanOrEqual(5);
  });
});

describe('iterateKeywordSearch follows the data', () => {
  /** Page-numbered search over `rows` hits with the server's own page size; `total` optional. */
  function searchServer(rows: number, pageSize: number, total?: number) {
    return fakeHttp(async (req) => {
      const page = Number(req.query?.page);
      await new Promise((r) => setTimeout(r, (page * 7) % 3));
      const data = [];
      for (let i = (page - 1) * pageSize; i < Math.min(rows, page * pageSize); i++) data.push(hit(i));
      return reply(200, { data, meta: { page, pageSize, ...(total === undefined ? {} : { total }) } });
    });
  }

  async function walkSearch(http: Http) {
    const warnings: string[] = [];
    const items = await collect(new ApiClient(http).iterateKeywordSearch({ q: 'k', limit: 20, onWarning: (m) => warnings.push(m) }));
    return { names: items.map((h) => h.name), warnings };
  }

  it('a server that caps pages at 7 (asked 20): all 23 hits (the issue: 7 of 23)', async () => {
    const { names: got, warnings } = await walkSearch(searchServer(23, 7));
    expect(got).toEqual(names(23, 'K'));
    expect(warnings).toEqual([]);
  });

  it('a total higher than the data: ends at the empty page, with one warning', async () => {
    const http = searchServer(23, 7, 40);
    const { names: got, warnings } = await walkSearch(http);
    expect(got).toEqual(names(23, 'K'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/40 hits .* sent 23/);
  });

  it('a total lower than the data: every hit, with one warning', async () => {
    const { names: got, warnings } = await walkSearch(searchServer(45, 10, 12));
    expect(got).toEqual(names(45, 'K'));
    expect(warnings).toHaveLength(1);
  });

  it('a server that ignores the page number: stops with an error instead of looping', async () => {
    const http = fakeHttp(() => reply(200, { data: [hit(1), hit(2)], meta: { page: 1, pageSize: 2 } }));
    await expect(walkSearch(http)).rejects.toThrow(/same rows .*cannot loop/);
    expect(http.calls.length).toBeLessThanOrEqual(5);
  });
});

describe('path ids', () => {
  it('an id that is not a UUID never reaches a URL', async () => {
    const http = fakeHttp(() => reply(200, {}));
    const client = new ApiClient(http);
    for (const bad of ['..', '.', 'a/b', '', `${UUID}/..`]) {
      await expect(client.getKeyword(bad)).rejects.toBeInstanceOf(UsageError);
      await expect(client.getProjectStatus(bad)).rejects.toBeInstanceOf(UsageError);
      await expect(client.runAnalyses(bad, {})).rejects.toBeInstanceOf(UsageError);
    }
    expect(http.calls).toEqual([]);
  });
});

describe('iterateRelations from an offset', () => {
  it('starts at --offset, and an offset past the end is no disagreement', async () => {
    const { http } = pagingServer({ rows: 120, total: (n) => n, served: () => 50 });
    const warnings: string[] = [];
    const client = new ApiClient(http);
    const from = await collect(client.iterateRelations(UUID, { relation: 'assets', offset: 70, onWarning: (m) => warnings.push(m) }));
    expect(from.map((r) => r.name)).toEqual(names(120).slice(70));
    const past = await collect(client.iterateRelations(UUID, { relation: 'assets', offset: 500, onWarning: (m) => warnings.push(m) }));
    expect(past).toEqual([]);
    expect(warnings).toEqual([]);
  });
});

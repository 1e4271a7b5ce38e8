/** rsi api: flags → options, and run with a fake client's raw(). */
import { describe, expect, it } from 'vitest';
import * as api from '../../../src/commands/api/api.js';
import { NotFoundError, UsageError } from '../../../src/errors.js';
import type { HttpResponse } from '../../../src/http/types.js';
import { fakeClient, parseFlags } from '../../support/commands.js';
import { fakeCtx, fakeIo } from '../../support/fakes.js';

/** The options a plain `rsi api METHOD PATH` gives beyond method, path, fields and input. */
const plain = { headers: {}, paginate: false, include: false, silent: false, postedFields: [] };

const reply = (status: number, json: unknown): HttpResponse => ({
  status,
  headers: { 'content-type': 'application/json' },
  text: JSON.stringify(json),
  json,
  isJson: true,
});

describe('api: flags', () => {
  it.each([
    [['get', '/keywords'], { method: 'GET', path: '/keywords', fields: [], input: undefined, ...plain }],
    [
      ['GET', '/keywords', '--field', 'q=egfr', '--field', 'limit=5', '--field', 'x=a=b'],
      {
        method: 'GET',
        path: '/keywords',
        fields: [
          ['q', 'egfr'],
          ['limit', 5],
          ['x', 'a=b'],
        ],
        input: undefined,
        ...plain,
      },
    ],
    [
      ['post', '/projects', '--field', 'name=X', '--field', 'public=false', '--field', 'brief=null', '--field', 'id=00123456789012345'],
      {
        method: 'POST',
        path: '/projects',
        fields: [
          ['name', 'X'],
          ['public', false],
          ['brief', null],
          ['id', '00123456789012345'],
        ],
        input: undefined,
        ...plain,
      },
    ],
    [['PATCH', '/api/v1/projects/p1', '--input', '-'], { method: 'PATCH', path: '/api/v1/projects/p1', fields: [], input: '-', ...plain }],
    // gh's habits: the method may be left out (GET, or POST when a body is given) or given with -X.
    [['/keywords'], { method: 'GET', path: '/keywords', fields: [], input: undefined, ...plain }],
    [
      ['/projects', '--field', 'name=X'],
      { method: 'POST', path: '/projects', fields: [['name', 'X']], input: undefined, ...plain, postedFields: ['-F', 'name=X'] },
    ],
    [['/projects', '--input', '-'], { method: 'POST', path: '/projects', fields: [], input: '-', ...plain }],
    [
      ['/keywords', '--field', 'q=a', '--paginate'],
      { method: 'GET', path: '/keywords', fields: [['q', 'a']], input: undefined, ...plain, paginate: true },
    ],
    [['/projects/p', '-X', 'delete'], { method: 'DELETE', path: '/projects/p', fields: [], input: undefined, ...plain }],
    // gh's `gh api repos/o/r`: no leading slash; -F typed, -f (--raw-field) always a string.
    [['keywords'], { method: 'GET', path: '/keywords', fields: [], input: undefined, ...plain }],
    [['GET', 'keywords/k1'], { method: 'GET', path: '/keywords/k1', fields: [], input: undefined, ...plain }],
    [
      ['projects', '-F', 'n=1', '-f', 'm=1', '--raw-field', 'flag=true', '-F', 'b=false'],
      {
        method: 'POST',
        path: '/projects',
        fields: [
          ['n', 1],
          ['b', false],
          ['m', '1'],
          ['flag', 'true'],
        ],
        input: undefined,
        ...plain,
        postedFields: ['-F', 'n=1', '-F', 'b=false', '-f', 'm=1', '-f', 'flag=true'],
      },
    ],
    [
      ['/keywords', '-H', 'X-Trace: abc: 1', '--header', 'accept-language:en', '--paginate', '-i', '--silent'],
      {
        method: 'GET',
        path: '/keywords',
        fields: [],
        input: undefined,
        headers: { 'X-Trace': 'abc: 1', 'accept-language': 'en' },
        paginate: true,
        include: true,
        silent: true,
        postedFields: [],
      },
    ],
  ])('%j → options', async (argv, expected) => {
    expect(await parseFlags(api.build, argv)).toEqual(expected);
  });

  it.each([
    [['FETCH', '/x'], /method must be one of GET, POST, PUT, PATCH, DELETE/],
    [['GET', 'https://evil.example/x'], /not a URL/],
    [['GET', '//evil.example/x'], /not a URL/],
    [['GET', '/x', '--field', 'novalue'], /--field must be KEY=VALUE/],
    [['GET', '/x', '--field', '=v'], /--field must be KEY=VALUE/],
    [['GET', '/x', '--input', 'b.json'], /--input sends a body, which GET does not take/],
    [['POST', '/x', '--input', 'b.json', '--field', 'a=1'], /--input and --field cannot be used together/],
    [['/x', '-H', 'Authorization: Bearer x'], /--header Authorization is set by rsi itself/],
    [['/x', '-H', 'no colon'], /--header must be "Name: value"/],
    // A value with a line break is refused here (exit 2), not by the HTTP stack as "cannot reach
    // the service" (exit 8); the message quotes it on one line.
    [['/x', '-H', 'X-A: 1\nX-B: 2'], /^--header X-A: the value has a control character \(got "1\\nX-B: 2"\)$/],
    [['/x', '-H', 'X\nA: 1'], /^--header must be "Name: value" \(got "X\\nA: 1"\)$/],
    // Outside Latin-1 a header cannot carry it: a usage error, not "cannot reach the service" (exit 8).
    [['/x', '-H', 'X: é€'], /^--header X: HTTP header values cannot carry "€" \(only Latin-1 characters\)$/],
    [['/x', '-f', 'novalue'], /--raw-field must be KEY=VALUE/],
    [['POST', '/keywords', '--paginate'], /--paginate follows GET \/keywords and GET \/keywords\/ID\/relations only/],
    [['/projects', '--paginate'], /--paginate follows/],
    [['GET', '/x', '-X', 'POST'], /give the method once/],
  ])('%j → UsageError', async (argv, message) => {
    const error = await parseFlags(api.build, argv).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(message);
  });
});

describe('api: run', () => {
  it('GET: fields become the query (as strings); the JSON reply is printed', async () => {
    const io = fakeIo(false);
    const { client, calls } = fakeClient({ raw: async () => reply(200, { data: [1] }) });
    await api.run(
      {
        method: 'GET',
        path: '/keywords',
        fields: [
          ['q', 'egfr'],
          ['limit', 5],
        ],
        input: undefined,
        ...plain,
      },
      fakeCtx(io, { format: 'tsv', client }),
    );
    expect(calls).toEqual([
      {
        method: 'raw',
        args: [
          {
            method: 'GET',
            path: '/keywords',
            query: { q: 'egfr', limit: '5' },
            body: undefined,
            signal: expect.any(AbortSignal),
          },
        ],
      },
    ]);
    expect(JSON.parse(io.out())).toEqual({ data: [1] });
    expect(io.err()).toBe('');
  });

  it('POST: fields become the typed JSON body, whatever the format; --input - reads stdin', async () => {
    const io = fakeIo(false);
    const { client, calls } = fakeClient({ raw: async () => reply(201, { id: 'p1' }) });
    await api.run(
      {
        method: 'POST',
        path: '/projects',
        fields: [
          ['name', 'X'],
          ['n', 2],
        ],
        input: undefined,
        ...plain,
      },
      fakeCtx(io, { format: 'json', client }),
    );
    expect(calls[0]!.args[0]).toMatchObject({ method: 'POST', body: { name: 'X', n: 2 }, query: undefined });
    // Whether it may go again is the method's (src/http/resend.ts), not the caller's.
    expect(calls[0]!.args[0]).not.toHaveProperty('idempotent');
    expect(JSON.parse(io.out())).toEqual({ id: 'p1' });

    const piped = fakeIo(false);
    piped.stdinStream.end('{"top": {"limit": 2}}');
    const second = fakeClient({ raw: async () => reply(200, {}) });
    await api.run(
      { method: 'POST', path: '/x', fields: [], input: '-', ...plain },
      fakeCtx(piped, { format: 'tsv', client: second.client }),
    );
    expect(second.calls[0]!.args[0]).toMatchObject({ body: { top: { limit: 2 } } });
  });

  it('a non-2xx reply: the body still on stdout, and the mapped error for the exit code', async () => {
    const io = fakeIo(false);
    const { client, calls } = fakeClient({
      raw: async () => reply(404, { error: 'not_found' }),
      errorFor: () => new NotFoundError('GET /projects/x: not found'),
    });
    await expect(
      api.run({ method: 'GET', path: '/projects/x', fields: [], input: undefined, ...plain }, fakeCtx(io, { format: 'tsv', client })),
    ).rejects.toThrow(NotFoundError);
    expect(JSON.parse(io.out())).toEqual({ error: 'not_found' });
    expect(calls.map((c) => c.method)).toEqual(['raw', 'errorFor']);
  });

  it('--input with broken JSON fails before any request', async () => {
    const io = fakeIo(false);
    io.stdinStream.end('{oops');
    const { client, calls } = fakeClient({});
    await expect(
      api.run({ method: 'POST', path: '/x', fields: [], input: '-', ...plain }, fakeCtx(io, { format: 'tsv', client })),
    ).rejects.toThrow(/--input: stdin is not valid JSON/);
    expect(calls).toEqual([]);
  });

  it('--paginate walks search by page (to an empty page: a short one is not the end) and relations by offset, into one document', async () => {
    const io = fakeIo(false);
    const pages: Record<string, unknown> = {
      '1': { data: [1, 2], meta: { page: 1, pageSize: 2 } },
      '2': { data: [3, 4], meta: { page: 2, pageSize: 2 } },
      '3': { data: [5], meta: { page: 3, pageSize: 2 } },
      '4': { data: [6], meta: { page: 4, pageSize: 2 } },
      '5': { data: [], meta: { page: 5, pageSize: 2 } },
    };
    const { client, calls } = fakeClient({
      raw: async (req: { query?: Record<string, string> }) => reply(200, pages[req.query?.page ?? '1']),
    });
    await api.run(
      { method: 'GET', path: '/keywords', fields: [['q', 'x']], input: undefined, ...plain, paginate: true },
      fakeCtx(io, { format: 'json', client }),
    );
    expect(JSON.parse(io.out())).toEqual({ data: [1, 2, 3, 4, 5, 6], meta: { page: 1, pageSize: 2 } });
    expect(calls.map((c) => (c.args[0] as { query: unknown }).query)).toEqual([
      { q: 'x' },
      { q: 'x', page: '2' },
      { q: 'x', page: '3' },
      { q: 'x', page: '4' },
      { q: 'x', page: '5' },
    ]);

    const rel = fakeIo(false);
    const links = (offset: number) => (offset < 5 ? [offset, offset + 1].filter((n) => n < 5) : []);
    const second = fakeClient({
      raw: async (req: { query?: Record<string, string> }) =>
        reply(200, { data: links(Number(req.query?.offset ?? 0)), meta: { total: 5 } }),
    });
    await api.run(
      { method: 'GET', path: '/keywords/k/relations', fields: [['relation', 'assets']], input: undefined, ...plain, paginate: true },
      fakeCtx(rel, { format: 'json', client: second.client }),
    );
    expect(JSON.parse(rel.out())).toEqual({ data: [0, 1, 2, 3, 4], meta: { total: 5 } });
    expect(second.calls.map((c) => (c.args[0] as { query: { offset?: string } }).query.offset)).toEqual([undefined, '2', '4', '5']);
  });

  it('-H is sent; -i puts the status line and headers on stderr; --silent prints no body', async () => {
    const io = fakeIo(false);
    const { client, calls } = fakeClient({ raw: async () => reply(200, { ok: true }) });
    await api.run(
      {
        method: 'GET',
        path: '/projects',
        fields: [],
        input: undefined,
        ...plain,
        headers: { 'X-Trace': 'a' },
        include: true,
        silent: true,
      },
      fakeCtx(io, { format: 'json', client }),
    );
    expect(calls[0]!.args[0]).toMatchObject({ headers: { 'X-Trace': 'a' } });
    expect(io.out()).toBe('');
    expect(io.err()).toBe('HTTP 200\ncontent-type: application/json\n\n');
  });
});

/** rsi api: flags → options, and run with a fake client's raw(). */
import { describe, expect, it } from 'vitest';
import * as api from '../../../src/commands/api/api.js';
import { NotFoundError, UsageError } from '../../../src/errors.js';
import type { HttpResponse } from '../../../src/http/types.js';
import { fakeClient, parseFlags } from '../../support/commands.js';
import { fakeCtx, fakeIo } from '../../support/fakes.js';

const reply = (status: number, json: unknown): HttpResponse => ({
  status,
  headers: { 'content-type': 'application/json' },
  text: JSON.stringify(json),
  json,
  isJson: true,
});

describe('api: flags', () => {
  it.each([
    [['get', '/keywords'], { method: 'GET', path: '/keywords', fields: [], input: undefined }],
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
      },
    ],
    [['PATCH', '/api/v1/projects/p1', '--input', '-'], { method: 'PATCH', path: '/api/v1/projects/p1', fields: [], input: '-' }],
  ])('%j → options', async (argv, expected) => {
    expect(await parseFlags(api.build, argv)).toEqual(expected);
  });

  it.each([
    [['FETCH', '/x'], /method must be one of GET, POST, PUT, PATCH, DELETE/],
    [['GET', 'keywords'], /path must start with \//],
    [['GET', '//evil.example/x'], /not a URL/],
    [['GET', '/x', '--field', 'novalue'], /--field must be KEY=VALUE/],
    [['GET', '/x', '--field', '=v'], /--field must be KEY=VALUE/],
    [['GET', '/x', '--input', 'b.json'], /--input sends a body, which GET does not take/],
    [['POST', '/x', '--input', 'b.json', '--field', 'a=1'], /--input and --field cannot be used together/],
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
            idempotent: true,
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
      },
      fakeCtx(io, { format: 'json', client }),
    );
    expect(calls[0]!.args[0]).toMatchObject({ method: 'POST', body: { name: 'X', n: 2 }, query: undefined, idempotent: false });
    expect(JSON.parse(io.out())).toEqual({ id: 'p1' });

    const piped = fakeIo(false);
    piped.stdinStream.end('{"top": {"limit": 2}}');
    const second = fakeClient({ raw: async () => reply(200, {}) });
    await api.run({ method: 'POST', path: '/x', fields: [], input: '-' }, fakeCtx(piped, { format: 'tsv', client: second.client }));
    expect(second.calls[0]!.args[0]).toMatchObject({ body: { top: { limit: 2 } } });
  });

  it('a non-2xx reply: the body still on stdout, and the mapped error for the exit code', async () => {
    const io = fakeIo(false);
    const { client, calls } = fakeClient({
      raw: async () => reply(404, { error: 'not_found' }),
      errorFor: () => new NotFoundError('GET /projects/x: not found'),
    });
    await expect(
      api.run({ method: 'GET', path: '/projects/x', fields: [], input: undefined }, fakeCtx(io, { format: 'tsv', client })),
    ).rejects.toThrow(NotFoundError);
    expect(JSON.parse(io.out())).toEqual({ error: 'not_found' });
    expect(calls.map((c) => c.method)).toEqual(['raw', 'errorFor']);
  });

  it('--input with broken JSON fails before any request', async () => {
    const io = fakeIo(false);
    io.stdinStream.end('{oops');
    const { client, calls } = fakeClient({});
    await expect(api.run({ method: 'POST', path: '/x', fields: [], input: '-' }, fakeCtx(io, { format: 'tsv', client }))).rejects.toThrow(
      /--input: stdin is not valid JSON/,
    );
    expect(calls).toEqual([]);
  });
});

// Property-based tests (fast-check): random argument vectors never crash with a stack trace; any
// schema-valid reply renders in every format; any schema-invalid reply is "unexpected reply", exit 1.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { makeOutput } from '../../src/io/formats.js';
import { main } from '../../src/main.js';
import { printRows } from '../../src/io/output.js';
import { ApiClient } from '../../src/client/client.js';
import type { Http, HttpResponse } from '../../src/http/types.js';
import { UnexpectedReplyError } from '../../src/errors.js';
import { fakeIo } from '../support/fakes.js';

const CONTRACT_CODES = new Set([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 130]);
// Real command words and flags mixed with junk; no command that would wait (sandbox, login, doctor).
const WORDS = [
  'keywords',
  'search',
  'get',
  'relations',
  'projects',
  'list',
  'create',
  'status',
  'signals',
  'opportunities',
  'analyses',
  'run',
  'api',
  'GET',
  '/keywords',
  'auth',
  'token',
  'logout',
  'completion',
  'bash',
  'fish',
  'help',
];
const FLAGS = [
  '--json',
  '--format',
  'csv',
  'ndjson',
  'yaml',
  '--limit',
  '--page',
  '--all',
  '--relation',
  'sponsors',
  '--activity',
  '--top',
  '--type',
  '--yes',
  '--name',
  '--goal',
  '--operand',
  '--watch',
  '--interval',
  '--timeout',
  '--select',
  '--profile',
  '--http-timeout',
  '--no-color',
  '--help',
  '-V',
];
const JUNK = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.integer({ min: -5, max: 1000 }).map(String),
  fc.constantFrom('', '-', '--', '0', '1.5', 'EGFR', 'a:b', '00000000-0000-4000-8000-000000000000'),
);
const ARG = fc.oneof(fc.constantFrom(...WORDS), fc.constantFrom(...FLAGS), JUNK);

describe('random argument vectors', () => {
  it('always end with a contract exit code and never a stack trace', async () => {
    const config = mkdtempSync(join(tmpdir(), 'rsi-fuzz-'));
    await fc.assert(
      fc.asyncProperty(fc.array(ARG, { maxLength: 7 }), async (argv) => {
        const io = fakeIo({ stdin: '' });
        const code = await main({ argv, env: { RSI_CONFIG_DIR: config, RSI_CREDENTIAL_STORE: 'file' }, io });
        expect(CONTRACT_CODES.has(code), `rsi ${argv.join(' ')} → ${code}`).toBe(true);
        expect(io.err(), `rsi ${argv.join(' ')}`).not.toMatch(/\n\s+at .+:\d+:\d+/);
        if (code !== 0) expect(io.err(), `rsi ${argv.join(' ')}`).toMatch(/(^|\n)rsi: \S/);
      }),
      { numRuns: 300 },
    );
  });
});

const keywordHit = fc.record({
  id: fc.uuid(),
  name: fc.string({ minLength: 1, maxLength: 40 }),
  type: fc.constantFrom('target', 'disease', 'modality'),
  synonyms: fc.array(fc.string({ maxLength: 20 }), { maxLength: 4 }),
});

describe('schema-valid replies render in every format', () => {
  it.each(['table', 'tsv', 'csv', 'json', 'ndjson'] as const)('%s', async (format) => {
    await fc.assert(
      fc.asyncProperty(fc.array(keywordHit, { maxLength: 15 }), fc.boolean(), async (rows, tty) => {
        const io = fakeIo({ stdoutTTY: tty, stdin: '' });
        const n = await printRows(makeOutput(io, { format }), rows, [
          { header: 'NAME', value: (r) => r.name, flexible: true },
          { header: 'TYPE', value: (r) => r.type },
          { header: 'SYNONYMS', value: (r) => r.synonyms },
          { header: 'ID', value: (r) => r.id, keep: true },
        ]);
        expect(n).toBe(rows.length);
        if (format === 'json') expect(JSON.parse(io.out())).toEqual(rows);
        if (format === 'ndjson')
          expect(
            io
              .out()
              .split('\n')
              .filter(Boolean)
              .map((l) => JSON.parse(l)),
          ).toEqual(rows);
        if (format === 'tsv') expect(io.out().split('\n').filter(Boolean).length).toBe(rows.length);
      }),
      { numRuns: 60 },
    );
  });
});

describe('schema-invalid replies', () => {
  it('are "unexpected reply" errors with exit 1, never undefined in a table', async () => {
    const invalid = fc.oneof(
      fc.record({
        data: fc.array(fc.record({ id: fc.integer(), name: fc.constant(null) }), { minLength: 1 }),
        meta: fc.constant({ page: 1, pageSize: 10 }),
      }),
      fc.record({ data: fc.string(), meta: fc.anything() }),
      fc.array(fc.anything()),
      fc.constantFrom(null, 42, 'text', true),
      fc.record({ meta: fc.record({ page: fc.string() }) }),
    );
    await fc.assert(
      fc.asyncProperty(invalid, async (body) => {
        const http: Http = {
          apiBase: 'http://127.0.0.1:1/api/v1',
          close: async () => undefined,
          request: async (): Promise<HttpResponse> => ({
            status: 200,
            headers: { 'content-type': 'application/json' },
            text: JSON.stringify(body),
            json: body,
            isJson: true,
          }),
        };
        const error = await new ApiClient(http).searchKeywords({ q: 'x' }).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(UnexpectedReplyError);
        expect((error as UnexpectedReplyError).exitCode).toBe(1);
        expect((error as Error).message).toMatch(/^unexpected reply from GET \/keywords: /);
      }),
      { numRuns: 200 },
    );
  });
});

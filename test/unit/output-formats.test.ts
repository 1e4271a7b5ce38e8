// Output formats: csv quoting, tsv, streamed json arrays, ndjson, fitted tables without colour.
import { describe, expect, it } from 'vitest';
import { makeOutput } from '../../src/io/formats.js';
import type { OutputFormat } from '../../src/formats.js';
import { Writable } from 'node:stream';
import { printJson, printRows } from '../../src/io/output.js';
import { write } from '../../src/io/write.js';
import type { Column } from '../../src/io/columns.js';
import { endOf } from '../../src/io/pager.js';
import { fakeIo } from '../support/fakes.js';

interface Row {
  name: string;
  count: number;
  note: string | null;
  id: string;
}
const rows: Row[] = [
  { name: 'Alpha, "the first"', count: 3, note: 'line\nbreak', id: 'aaaaaaaa-0000-4000-8000-000000000001' },
  { name: 'Beta', count: 12, note: null, id: 'aaaaaaaa-0000-4000-8000-000000000002' },
];
const columns: Column<Row>[] = [
  { header: 'NAME', value: (r) => r.name, flexible: true },
  { header: 'COUNT', value: (r) => r.count, numeric: true },
  { header: 'NOTE', value: (r) => r.note },
  { header: 'ID', value: (r) => r.id, keep: true },
];

async function render(format: OutputFormat, data: Iterable<Row> | AsyncIterable<Row> = rows, tty = false, width = 80) {
  const io = fakeIo({ tty, columns: width });
  const n = await printRows(makeOutput(io, { format }), data, columns);
  await new Promise((r) => setImmediate(r));
  return { n, text: io.out() };
}

describe('printRows', () => {
  it('csv quotes per RFC 4180 with a lower_snake header and CRLF', async () => {
    const { text, n } = await render('csv');
    expect(n).toBe(2);
    expect(text).toBe(
      'name,count,note,id\r\n' +
        '"Alpha, ""the first""",3,"line\nbreak",aaaaaaaa-0000-4000-8000-000000000001\r\n' +
        'Beta,12,,aaaaaaaa-0000-4000-8000-000000000002\r\n',
    );
  });

  it('tsv has no header; a tab or newline in a cell shows as \\t / \\n, so a row is one line', async () => {
    const { text } = await render('tsv');
    const lines = text.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]!.split('\t')).toEqual(['Alpha, "the first"', '3', 'line\\nbreak', 'aaaaaaaa-0000-4000-8000-000000000001']);
  });

  it('json streams one parseable array; compact when piped', async () => {
    async function* gen() {
      yield* rows;
    }
    const { text } = await render('json', gen());
    expect(JSON.parse(text)).toEqual(rows);
    expect(text.trimEnd().split('\n')).toHaveLength(1);
  });

  it('json is indented on a TTY and still parses', async () => {
    const { text } = await render('json', rows, true);
    expect(JSON.parse(text)).toEqual(rows);
    expect(text).toContain('\n  {');
  });

  it('empty json is []', async () => {
    const { text, n } = await render('json', []);
    expect(n).toBe(0);
    expect(JSON.parse(text)).toEqual([]);
  });

  it('ndjson prints one item per line', async () => {
    const { text } = await render('ndjson');
    expect(
      text
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as Row),
    ).toEqual(rows);
  });

  it('an empty table prints nothing on stdout', async () => {
    expect((await render('table', [], true)).text).toBe('');
  });

  it('a table fits the terminal width, keeps ids whole and has no colour codes when colour is off', async () => {
    const long = [{ ...rows[1]!, name: 'x'.repeat(200) }];
    const { text } = await render('table', long, true, 80);
    for (const line of text.trimEnd().split('\n')) expect([...line].length).toBeLessThanOrEqual(80);
    expect(text).toContain('aaaaaaaa-0000-4000-8000-000000000002');
    expect(text).toContain('…');
    // eslint-disable-next-line no-control-regex
    expect(text).not.toMatch(/\u001b\[/);
  });
});

describe('printJson', () => {
  it('prints the value exactly: compact when piped, 2-space on a TTY', async () => {
    const body = { data: [], meta: { page: 1, pageSize: 10 } };
    const piped = fakeIo({ columns: 80 });
    await printJson(makeOutput(piped, { format: 'json' }), body);
    const tty = fakeIo({ tty: true, columns: 80 });
    await printJson(makeOutput(tty, { format: 'json' }), body);
    await new Promise((r) => setImmediate(r));
    expect(piped.out()).toBe(`${JSON.stringify(body)}\n`);
    expect(tty.out()).toBe(`${JSON.stringify(body, null, 2)}\n`);
  });
});

describe('write to a reader that went away', () => {
  // A pager quit with q leaves a destroyed stream that neither drains nor fails again: waiting on
  // it hung the process (exit 13, "unsettled top-level await" on Node 22 and 24).
  const full = () => new Writable({ highWaterMark: 4, write: (_chunk, _enc, cb) => setTimeout(cb, 10_000) });

  it('fails with EPIPE at once on a destroyed stream', async () => {
    const stream = full();
    stream.on('error', () => undefined);
    stream.destroy();
    await expect(write(stream, 'row\n')).rejects.toMatchObject({ code: 'EPIPE' });
  });

  it('fails when the stream is destroyed while it waits to drain', async () => {
    const stream = full();
    stream.on('error', () => undefined);
    const pending = write(stream, 'a long row\n');
    stream.destroy();
    await expect(pending).rejects.toBeInstanceOf(Error);
  });

  it('endOf settles for a destroyed stream', async () => {
    const stream = full();
    stream.destroy();
    await expect(endOf(stream)).resolves.toBeUndefined();
  });
});

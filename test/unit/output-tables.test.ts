// Tables for real widths: ids shortened (uniquely) in tables only, columns narrowed then left out
// from the right with one note on stderr, relative times from the context's clock, and a property:
// no line of any table is ever wider than the terminal.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { makeOutput } from '../../src/io/formats.js';
import type { OutputFormat } from '../../src/formats.js';
import { printChecklist, printPairsText, printRows, printText } from '../../src/io/output.js';
import type { Column } from '../../src/io/columns.js';
import { fitWidths, formatTable } from '../../src/io/table.js';
import { hangLine } from '../../src/io/lines.js';
import { idPrefixLength, relativeTime, shortId } from '../../src/io/cells.js';
import { displayWidth, wrap } from '../../src/io/sanitize.js';
import { fakeIo } from '../support/fakes.js';

interface Row {
  name: string;
  score: number;
  id: string;
  created: string;
}
const NOW = Date.parse('2025-06-15T12:00:00Z');
const rows: Row[] = [
  { name: 'Pembrolizumab', score: 91.5, id: '6b107f5c-c600-510c-8de3-c3c548cd2e6f', created: '2025-06-15T11:57:00Z' },
  { name: 'Nivolumab', score: 7, id: 'b1785f36-d987-55fb-96b0-26c754da06a9', created: '2025-06-13T10:00:00Z' },
];
const columns: Column<Row>[] = [
  { header: 'NAME', value: (r) => r.name, flexible: true },
  { header: 'SCORE', value: (r) => r.score, numeric: true },
  { header: 'CREATED', value: (r) => r.created, time: true },
  { header: 'ID', value: (r) => r.id, id: true },
];

async function render<T>(format: OutputFormat, data: T[], cols: Column<T>[], width = 80) {
  const io = fakeIo({ tty: true, columns: width });
  await printRows(makeOutput(io, { format, now: () => NOW }), data, cols);
  await new Promise((r) => setImmediate(r));
  return { out: io.out(), err: io.err() };
}

const widest = (text: string): number => Math.max(0, ...text.split('\n').map((l) => displayWidth(l)));

describe('ids in tables', () => {
  it('shows the first 8 characters and … in a table, names first', async () => {
    const { out } = await render('table', rows, columns);
    expect(out.split('\n')[1]).toMatch(/^Pembrolizumab\s+91\.5\s+3 min ago\s+6b107f5c…$/);
    expect(out).not.toContain('6b107f5c-c600');
  });

  it('keeps ids whole in tsv, csv and json', async () => {
    for (const format of ['tsv', 'csv', 'json', 'ndjson'] as const) {
      const { out } = await render(format, rows, columns);
      expect(out, format).toContain('6b107f5c-c600-510c-8de3-c3c548cd2e6f');
      expect(out, format).toContain('2025-06-15T11:57:00Z');
    }
  });

  it('lengthens the prefix where two ids would read the same', () => {
    expect(idPrefixLength(['abcdefgh-1', 'zzzzzzzz-2'])).toBe(8);
    expect(idPrefixLength(['abcdefgh-1111', 'abcdefgh-1222', 'x'])).toBe(11);
    expect(shortId('abcdefgh-1111', 11)).toBe('abcdefgh-11…');
    // Nothing to gain: a short id stays whole.
    expect(shortId('abcdefgh-', 8)).toBe('abcdefgh-');
  });

  it('shows colliding ids with enough characters to tell them apart', async () => {
    const twins = [
      { ...rows[0]!, id: 'aaaaaaaa-0000-4000-8000-000000000001' },
      { ...rows[1]!, id: 'aaaaaaaa-0000-4000-8000-000000000002' },
    ];
    const { out } = await render('table', twins, columns, 120);
    expect(out).toContain('aaaaaaaa-0000-4000-8000-000000000001');
    const three = [...twins, { ...rows[0]!, id: 'aaaaaaaa-0001-4000-8000-000000000003' }];
    const lines = (await render('table', three, columns, 120)).out.trim().split('\n').slice(1);
    const shown = lines.map((l) => l.trim().split(/\s+/).at(-1));
    expect(new Set(shown).size).toBe(3);
  });
});

describe('fitting the width', () => {
  it('narrows flexible columns first, then the widest others, sharing the cut', () => {
    expect(fitWidths([30, 10, 10], [8, 8, 8], [true, false, false], 40)).toEqual([16, 10, 10]);
    expect(fitWidths([30, 20, 20], [8, 8, 8], [false, false, false], 40)).toEqual([12, 12, 12]);
  });

  it('never cuts a number; leaves out columns from the right, and says so once on stderr', async () => {
    const wide: Column<Row>[] = [
      ...columns.slice(0, 2),
      { header: 'MOMENTUM', value: (r) => r.score, numeric: true },
      { header: 'MATURITY', value: (r) => r.score, numeric: true },
      { header: 'COMPETITION', value: (r) => r.score, numeric: true },
      { header: 'TRANSLATION', value: (r) => r.score, numeric: true },
      ...columns.slice(2),
    ];
    const { out, err } = await render('table', rows, wide, 60);
    expect(widest(out)).toBeLessThanOrEqual(60);
    expect(out).toContain('91.5');
    expect(out.split('\n')[0]).toMatch(/^NAME/);
    expect(out).not.toContain('6b107f5c');
    expect(err.trim().split('\n')).toHaveLength(1);
    expect(err).toBe('left out: ID, CREATED (see all with --format tsv or --json)\n');
    // tsv keeps every column.
    expect((await render('tsv', rows, wide, 60)).out.split('\n')[0]!.split('\t')).toHaveLength(wide.length);
  });

  it('leaves out a picture before any data, without naming it', async () => {
    const pictured: Column<Row>[] = [
      ...columns.slice(0, 2),
      { header: '', value: () => '██████████████████████████████', keep: true },
      ...columns.slice(2),
    ];
    const { out, err } = await render('table', rows, pictured, 62);
    expect(out).not.toContain('█');
    expect(out).toContain('6b107f5c…');
    expect(err).toBe('');
  });

  it('cuts the one column left when even it does not fit', async () => {
    const long = [{ ...rows[0]!, name: 'x'.repeat(100) }];
    const { out } = await render('table', long, [columns[0]!, columns[3]!], 20);
    expect(widest(out)).toBeLessThanOrEqual(20);
  });

  it('fits stderr listings too, with the left-out columns named in the listing', () => {
    const text = formatTable(
      fakeIo({ columns: 30 }),
      [{ header: 'NAME' }, { header: 'TYPE' }, { header: 'FOUND AS', flexible: true }, { header: 'ENTITY ID', id: true }],
      [['Pembrolizumab', 'drug', 'pembrolizumab (Keytruda) in the brief', '6b107f5c-c600-510c-8de3-c3c548cd2e6f']],
    );
    expect(widest(text)).toBeLessThanOrEqual(30);
    expect(text).toMatch(/\(left out to fit: .*ENTITY ID\)\n$/);
  });

  it('random rows at random widths 40–200 never give a line wider than the width', async () => {
    const kind = fc.constantFrom('text', 'flex', 'numeric', 'id', 'keep', 'time');
    const text = fc.oneof(fc.string({ maxLength: 60 }), fc.string({ unit: 'binary', maxLength: 30 }), fc.uuid());
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.string({ maxLength: 24 }), kind), { minLength: 1, maxLength: 12 }),
        fc.array(fc.array(text, { minLength: 12, maxLength: 12 }), { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 40, max: 200 }),
        async (spec, data, width) => {
          const cols: Column<string[]>[] = spec.map(([header, k], i) => ({
            header,
            value: (r) => (k === 'numeric' ? r[i]!.length * 1.5 : k === 'keep' ? '#'.repeat(r[i]!.length % 20) : r[i]),
            flexible: k === 'flex',
            numeric: k === 'numeric',
            id: k === 'id',
            keep: k === 'keep',
            time: k === 'time',
          }));
          const { out } = await render('table', data, cols, width);
          expect(widest(out)).toBeLessThanOrEqual(width);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('relative times', () => {
  it('says minutes, hours, days, then the date', () => {
    expect(relativeTime('2025-06-15T11:59:30Z', NOW)).toBe('just now');
    expect(relativeTime('2025-06-15T11:57:00Z', NOW)).toBe('3 min ago');
    expect(relativeTime('2025-06-15T09:59:00.123+00:00', NOW)).toBe('2 h ago');
    expect(relativeTime('2025-06-10T12:00:00Z', NOW)).toBe('5 d ago');
    expect(relativeTime('2025-04-01T09:00:00Z', NOW)).toBe('2025-04-01');
    expect(relativeTime('2025-06-15T14:00:00Z', NOW)).toBe('in 2 h');
  });

  it('leaves what is not an ISO 8601 time alone', () => {
    for (const odd of ['', 'yesterday', '2025-06-15', '2025-06-15T11:57:00', '2025-13-45T99:00:00Z']) {
      expect(relativeTime(odd, NOW)).toBe(odd);
    }
  });

  it('uses the clock it is given, in tables only', async () => {
    const io = fakeIo({ tty: true, columns: 100 });
    await printRows(makeOutput(io, { format: 'table', now: () => NOW + 3600_000 }), rows, columns);
    await new Promise((r) => setImmediate(r));
    expect(io.out()).toContain('1 h ago');
  });
});

describe('lists of lines (doctor, auth status, the status summary)', () => {
  const long = 'the service at https://rsi.example.org answered 503 three times in a row, so the checks after it were skipped';

  it('continue under the value, broken at spaces, never inside a word', () => {
    expect(wrap('aa bb cc', 5, { breakWords: false })).toEqual(['aa bb', 'cc']);
    const url = `https://example.org/${'x'.repeat(60)}`;
    expect(wrap(`see ${url} now`, 40, { breakWords: false })).toEqual(['see', url, 'now']);
    expect(hangLine(`Summary:  ${long}`, 60).split('\n')).toEqual([
      'Summary:  the service at https://rsi.example.org answered',
      '          503 three times in a row, so the checks after it',
      '          were skipped',
    ]);
  });

  it('fit a 40-column terminal in doctor, pairs and text', async () => {
    const io = fakeIo({ tty: true, columns: 40 });
    await printChecklist(io, [{ state: 'failed', text: long, hint: long }]);
    await printPairsText(io, [['scopes', long]]);
    await printText(io, `Next:     ${long}\n`);
    await new Promise((r) => setImmediate(r));
    expect(widest(io.out())).toBeLessThanOrEqual(40);
    expect(io.out()).toMatch(/^✗ the service at https:\/\/rsi\.example\.org\n {2}answered/m);
    expect(io.out()).toMatch(/^ {2}→ the service at\n {4}https/m);
  });

  it('leave piped text alone', async () => {
    const io = fakeIo({ columns: 40 });
    await printText(io, `Next:     ${long}\n`);
    await new Promise((r) => setImmediate(r));
    expect(io.out()).toBe(`Next:     ${long}\n`);
  });
});

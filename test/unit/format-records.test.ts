// The output format is a type with behaviour (issue 40, item 4): one record per format, which every
// printer asks instead of comparing names. The compiler holds the records to the names (the type
// checks below, run by `tsc --noEmit` over test/); these tests run every printer in every format, so
// a format whose record is missing or writes nothing fails here, and scan src/io so no printer goes
// back to comparing the format's name by hand.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  FORMAT_TRAITS,
  type FormatTraits,
  forPeople,
  OUTPUT_FORMATS,
  type OutputFormat,
  printsDocuments,
  printsWholeReply,
} from '../../src/formats.js';
import { makeOutput, type Output } from '../../src/io/formats.js';
import { allFormats, FORMATS, type FormatRecord, formatOf } from '../../src/io/formats.js';
import type { Column } from '../../src/io/columns.js';
import { printRows, printSections, type Section } from '../../src/io/output.js';
import { printDocumentOr, printListing, printMade, printReply, printReplyOrLines } from '../../src/io/replies.js';
import { fakeIo } from '../support/fakes.js';

type Row = { name: string; count: number };
const ROWS: Row[] = [
  { name: 'Alpha', count: 3 },
  { name: 'Beta', count: 12 },
];
const COLUMNS: Column<Row>[] = [
  { header: 'NAME', value: (r) => r.name },
  { header: 'COUNT', value: (r) => r.count, numeric: true },
];

describe('every format has a record (the compiler)', () => {
  it('the records are keyed by exactly the names, each record naming itself', () => {
    expectTypeOf<keyof typeof FORMATS>().toEqualTypeOf<OutputFormat>();
    expectTypeOf<keyof typeof FORMAT_TRAITS>().toEqualTypeOf<OutputFormat>();
    expectTypeOf(FORMATS).toExtend<{ readonly [F in OutputFormat]: FormatRecord<F> }>();
    expectTypeOf(FORMAT_TRAITS).toExtend<{ readonly [F in OutputFormat]: FormatTraits }>();
    expect(Object.keys(FORMATS).sort()).toEqual([...OUTPUT_FORMATS].sort());
    expect(Object.keys(FORMAT_TRAITS).sort()).toEqual([...OUTPUT_FORMATS].sort());
    for (const name of OUTPUT_FORMATS) {
      const record = formatOf(name);
      expect(record.name).toBe(name);
      expect(typeof record.writeRows).toBe('function');
      // The record carries its traits as the leaf states them.
      expect({ ...record, name: undefined, writeRows: undefined }).toMatchObject(FORMAT_TRAITS[name]);
    }
    expect(allFormats().map((r) => r.name)).toEqual([...OUTPUT_FORMATS]);
  });

  it('the traits are consistent: documents are for programs, and the helpers read them', () => {
    for (const name of OUTPUT_FORMATS) {
      const t: FormatTraits = FORMAT_TRAITS[name];
      expect(printsDocuments(name)).toBe(t.kind === 'documents');
      expect(forPeople(name)).toBe(t.reader === 'people');
      expect(printsWholeReply(name)).toBe(t.kind === 'documents' && t.reply === 'whole');
      if (t.kind === 'documents') expect(t.reader).toBe('programs');
    }
    // Today's formats, as the docs describe them.
    expect(OUTPUT_FORMATS.filter(forPeople)).toEqual(['table']);
    expect(OUTPUT_FORMATS.filter(printsDocuments)).toEqual(['json', 'ndjson']);
    expect(OUTPUT_FORMATS.filter(printsWholeReply)).toEqual(['json']);
  });
});

/** What a format's output must show of the rows: every name, in a shape its kind promises. */
function expectRows(format: OutputFormat, text: string): void {
  expect(text, format).toContain('Alpha');
  expect(text, format).toContain('Beta');
  if (printsDocuments(format)) {
    // Documents: every line (ndjson) or the whole (json) parses.
    if (printsWholeReply(format)) expect(() => JSON.parse(text)).not.toThrow();
    else for (const line of text.trimEnd().split('\n')) expect(() => JSON.parse(line)).not.toThrow();
  } else {
    // Rows: one line per row at least, and the count as a cell.
    expect(text.trimEnd().split('\n').length, format).toBeGreaterThanOrEqual(2);
    expect(text, format).toMatch(/\b12\b/);
  }
}

async function printed(format: OutputFormat, print: (target: Output) => Promise<unknown>) {
  const io = fakeIo({ tty: forPeople(format), columns: 100 });
  await print(makeOutput(io, { format }));
  await new Promise((r) => setImmediate(r));
  return io.out();
}

describe.each(OUTPUT_FORMATS.map((f) => [f]))('every printer writes the data in %s', (format) => {
  it('printRows, streamed or in memory', async () => {
    expectRows(format, await printed(format, (t) => printRows(t, ROWS, COLUMNS)));
    async function* stream() {
      yield* ROWS;
    }
    expectRows(format, await printed(format, (t) => printRows(t, stream(), COLUMNS)));
  });

  it('printListing, with and without the reply it came in', async () => {
    const document = { data: ROWS, meta: { total: 2 } };
    expectRows(format, await printed(format, (t) => printListing(t, { document, rows: ROWS, columns: COLUMNS })));
    expectRows(format, await printed(format, (t) => printListing(t, { rows: ROWS, columns: COLUMNS })));
  });

  it('printSections', async () => {
    const sections: Section<Row>[] = [
      { name: 'first', rows: [ROWS[0]!], columns: COLUMNS },
      { name: 'second', title: 'second', rows: [ROWS[1]!], columns: COLUMNS },
    ];
    // The JSON formats print the parts' rows (a command prints its reply whole before it gets here).
    expectRows(format, await printed(format, (t) => printSections(t, sections)));
  });

  it('printReply, printDocumentOr, printReplyOrLines and printMade', async () => {
    const document = { data: ROWS };
    const view = (t: Output) => () => printRows(t, ROWS, COLUMNS);
    expectRows(format, await printed(format, (t) => printReply(t, document, view(t))));
    expectRows(format, await printed(format, (t) => printDocumentOr(t, document, view(t))));
    expectRows(format, await printed(format, (t) => printReplyOrLines(t, document, ROWS, view(t))));
    const made = await printed(format, (t) =>
      printMade(t, {
        json: { name: 'Alpha', count: 12, more: 'Beta' },
        row: { name: 'Alpha', count: 12 },
        columns: COLUMNS,
        pairs: [
          ['name', 'Alpha'],
          ['count', 12],
        ],
      }),
    );
    expect(made, format).toContain('Alpha');
    expect(made, format).toContain('12');
  });
});

describe('csv and tsv give a loader the same columns whatever the data', () => {
  it('csv is its header when there are no rows; tsv is empty', async () => {
    expect(await printed('csv', (t) => printRows(t, [], COLUMNS))).toBe('name,count\r\n');
    expect(await printed('tsv', (t) => printRows(t, [], COLUMNS))).toBe('');
  });

  it('members no column shows follow the declared columns, in first-seen order; `{}` reads the same at every depth', async () => {
    const rows = [
      { name: 'Alpha', count: 1, zeta: {}, extra: { inner: {}, n: 2 } },
      { name: 'Beta', count: 2, added: true },
    ] as unknown as Row[];
    expect(await printed('csv', (t) => printRows(t, rows, COLUMNS))).toBe(
      'name,count,zeta,extra.inner,extra.n,added\r\nAlpha,1,{},{},2,\r\nBeta,2,,,,true\r\n',
    );
  });

  it('an object one row fills with members: `{}` elsewhere leaves those cells empty', async () => {
    const rows = [
      { name: 'Alpha', count: 1, extra: {} },
      { name: 'Beta', count: 2, extra: { n: 2 } },
    ] as unknown as Row[];
    expect(await printed('csv', (t) => printRows(t, rows, COLUMNS))).toBe('name,count,extra.n\r\nAlpha,1,\r\nBeta,2,2\r\n');
  });

  it('a streamed row with a member the first row lacked: one warning, the columns unchanged', async () => {
    const io = fakeIo({ columns: 100 });
    async function* stream() {
      yield { name: 'Alpha', count: 1 };
      yield { name: 'Beta', count: 2, late: 1 };
      yield { name: 'Gamma', count: 3, late: 2 };
    }
    await printRows(makeOutput(io, { format: 'csv' }), stream() as AsyncIterable<Row>, COLUMNS);
    expect(io.out()).toBe('name,count\r\nAlpha,1\r\nBeta,2\r\nGamma,3\r\n');
    expect(io.err().match(/warning: later rows carry members/g)).toHaveLength(1);
    expect(io.err()).toContain('(late)');
  });
});

describe('no printer compares the format by name', () => {
  it('src/io decides by the records and traits only (src/formats.ts and src/io/formats.ts define them)', () => {
    const dir = join(import.meta.dirname, '../../src/io');
    const names = OUTPUT_FORMATS.join('|');
    const byHand = new RegExp(
      `format\\s*[!=]==|[!=]==\\s*'(?:${names})'|'(?:${names})'\\s*[!=]==|case '(?:${names})'|switch \\(\\w*\\.?format\\)`,
    );
    const found = readdirSync(dir)
      .filter((f) => f.endsWith('.ts') && f !== 'formats.ts')
      .flatMap((f) =>
        readFileSync(join(dir, f), 'utf8')
          .split('\n')
          .map((line, i) => ({ at: `src/io/${f}:${i + 1}`, line }))
          .filter(({ line }) => byHand.test(line) && !line.trim().startsWith('*') && !line.trim().startsWith('//')),
      );
    expect(found).toEqual([]);
  });
});

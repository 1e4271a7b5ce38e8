// The one sanitiser and the writers that use it: hostile text never reaches a terminal raw, CSV
// cells never start a formula, JSON stays exact, and writes are batched.
import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { makeOutput } from '../../src/io/formats.js';
import type { OutputFormat } from '../../src/formats.js';
import { main } from '../../src/main.js';
import { printChecklist, printPairsText, printRows, printSections } from '../../src/io/output.js';
import { csvField, isFormulaLike } from '../../src/io/cells.js';
import { formatTable } from '../../src/io/table.js';
import type { Column } from '../../src/io/columns.js';
import { createProgress } from '../../src/io/progress.js';
import { createPrompter } from '../../src/io/prompter.js';
import { displayUnits, displayWidth, sanitizeLine, sanitizeText, sanitizingStream, truncate } from '../../src/io/sanitize.js';
import { fakeIo } from '../support/fakes.js';

/** What a hostile server puts in its strings: clear screen, OSC 8 link, OSC 52 clipboard, C1 CSI, bidi. */
const HOSTILE =
  'A\u001b[2J\u001b]8;;https://evil.example/\u0007click\u001b]8;;\u0007\u001b]52;c;ZXZpbA==\u0007\u009b31m\u202eevil\u202c\u2066x\u2069\u200f\u007f\r\b\u0000Z';

/** Any raw control byte or bidi control that a person's terminal would act on (the newline aside). */
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

const tick = () => new Promise((r) => setImmediate(r));

describe('sanitizeLine / sanitizeText', () => {
  it('shows C0, DEL, C1 and bidi controls as visible escapes', () => {
    expect(sanitizeLine('a\u001b[31mb')).toBe('a\\x1b[31mb');
    expect(sanitizeLine('\u0007\u0000\u007f\u009b')).toBe('\\x07\\x00\\x7f\\x9b');
    expect(sanitizeLine('\u202eabc\u202c \u2066x\u2069 \u200e\u200f')).toBe('\\u202eabc\\u202c \\u2066x\\u2069 \\u200e\\u200f');
    expect(sanitizeLine('tab\there\r\nnext')).toBe('tab\\there\\r\\nnext');
    expect(RAW.test(sanitizeLine(HOSTILE))).toBe(false);
  });

  it('sanitizeText keeps the newline that ends a line, nothing else', () => {
    expect(sanitizeText('one\ntwo\r\n\u001b[2J')).toBe('one\ntwo\\r\n\\x1b[2J');
    expect(RAW.test(sanitizeText(HOSTILE))).toBe(false);
  });

  it('leaves ordinary text alone, accents, CJK and emoji included, and is idempotent', () => {
    const plain = 'Müller — 非小细胞肺癌 🧬 "quoted" \\ back';
    expect(sanitizeLine(plain)).toBe(plain);
    expect(sanitizeLine(sanitizeLine(HOSTILE))).toBe(sanitizeLine(HOSTILE));
    expect(sanitizeLine(HOSTILE)).not.toBe(HOSTILE);
  });

  it('truncation counts escapes as what they show and never cuts one in half', () => {
    const text = sanitizeLine('abc\u001bdef');
    expect(text).toBe('abc\\x1bdef');
    expect(displayUnits(text)).toEqual(['a', 'b', 'c', '\\x1b', 'd', 'e', 'f']);
    for (let width = 1; width <= 11; width++) {
      const cut = truncate(text, width);
      expect([...cut].length).toBeLessThanOrEqual(width);
      // Either the whole escape or none of it.
      const kept = cut.replace(/…$/, '');
      expect(kept.includes('\\') ? kept.includes('\\x1b') : true).toBe(true);
    }
    expect(truncate(text, 6)).toBe('abc…');
    expect(truncate(text, 8)).toBe('abc\\x1b…');
  });
});

describe('CSV is spreadsheet-safe', () => {
  it.each([
    ['=HYPERLINK("http://evil.example","x")', `"'=HYPERLINK(""http://evil.example"",""x"")"`],
    ['+cmd|/C calc!A0', `"'+cmd|/C calc!A0"`],
    ['-2+3', `"'-2+3"`],
    ['@SUM(A1:A2)', `"'@SUM(A1:A2)"`],
    ['\t=1', `"'\\t=1"`],
    ['\r=1', `"'\\r=1"`],
  ])('neutralises %j the OWASP way', (value, expected) => {
    expect(csvField(value)).toBe(expected);
  });

  it.each(['-1.5', '+3', '42', '-0.25e-3', 'plain', 'a=b', ''])('keeps %j as is', (value) => {
    expect(csvField(value)).toBe(value);
    expect(isFormulaLike(value)).toBe(false);
  });

  it('a whole csv table has no formula cell and no raw control', async () => {
    const io = fakeIo();
    const rows = [{ name: '=1+1', note: HOSTILE, n: -4 }];
    await printRows(makeOutput(io, { format: 'csv' }), rows, [
      { header: 'NAME', value: (r) => r.name },
      { header: 'NOTE', value: (r) => r.note },
      { header: 'N', value: (r) => r.n },
    ]);
    await tick();
    const [header, row] = io.out().split('\r\n');
    expect(header).toBe('name,note,n');
    expect(row).toMatch(/^"'=1\+1",/);
    expect(row).toMatch(/,-4$/);
    expect(RAW.test(io.out().replaceAll('\r\n', ''))).toBe(false);
  });
});

describe('every human format sanitises; JSON stays exact', () => {
  interface Row {
    name: string;
    flag: boolean;
    nested: { a: number[] } | null;
    tags: string[];
  }
  const rows: Row[] = [{ name: HOSTILE, flag: true, nested: { a: [1, 2] }, tags: ['x', 'y'] }];
  const columns: Column<Row>[] = [
    { header: 'NAME', value: (r) => r.name, flexible: true },
    { header: 'FLAG', value: (r) => r.flag },
    { header: 'NESTED', value: (r) => r.nested },
    { header: 'TAGS', value: (r) => r.tags },
  ];
  async function render(format: OutputFormat, columnsWide = 400) {
    const io = fakeIo({ tty: format === 'table', columns: columnsWide });
    await printRows(makeOutput(io, { format }), rows, columns);
    await tick();
    return io.out();
  }

  it.each(['table', 'tsv', 'csv'] as const)('%s: no raw control byte, the same spelling of values', async (format) => {
    const text = await render(format);
    // The format's own separators (CRLF in csv, the tab between tsv fields) are not cell content.
    const body = format === 'csv' ? text.replaceAll('\r\n', '\n') : format === 'tsv' ? text.replaceAll('\t', ' ') : text;
    expect(RAW.test(body)).toBe(false);
    expect(text).toContain('\\x1b[2J');
    expect(text).toContain('\\u202e');
    expect(text).toContain('true');
    // A nested object is dotted columns in csv and tsv (issue 30), JSON in a table's one cell.
    expect(text).toContain(format === 'csv' ? '"[1,2]"' : format === 'tsv' ? '\t[1,2]\t' : '{"a":[1,2]}');
    if (format === 'csv') expect(text.split('\r\n')[0]).toBe('name,flag,nested.a,tags');
    expect(text).toContain(format === 'table' ? 'x, y' : format === 'csv' ? '"[""x"",""y""]"' : '["x","y"]');
  });

  it.each(['json', 'ndjson'] as const)('%s carries the exact strings (JSON escapes what it must)', async (format) => {
    const text = await render(format);
    const parsed =
      format === 'json'
        ? (JSON.parse(text) as Row[])
        : text
            .trimEnd()
            .split('\n')
            .map((l) => JSON.parse(l) as Row);
    expect(parsed[0]!.name).toBe(HOSTILE);
  });

  it('a table measures width after sanitising: no line wider than the terminal', async () => {
    const text = await render('table', 60);
    for (const line of text.trimEnd().split('\n')) expect([...line].length).toBeLessThanOrEqual(60);
    expect(RAW.test(text)).toBe(false);
  });

  it('wide characters count two columns: a table of CJK and emoji names stays aligned and fitted', async () => {
    const io = fakeIo({ tty: true, columns: 40 });
    const wide = [
      { name: '非小细胞肺癌', id: 'a' },
      { name: 'EGFR', id: 'b' },
      { name: '🧬'.repeat(30), id: 'c' },
    ];
    await printRows(makeOutput(io, { format: 'table' }), wide, [
      { header: 'NAME', value: (r) => r.name, flexible: true },
      { header: 'ID', value: (r) => r.id },
    ]);
    await tick();
    const lines = io.out().trimEnd().split('\n');
    const idColumn = lines.map((l) => displayWidth(l.slice(0, l.lastIndexOf(' ') + 1)));
    expect(new Set(idColumn).size).toBe(1);
    for (const l of lines) expect(displayWidth(l)).toBeLessThanOrEqual(40);
    expect(displayWidth('非小')).toBe(4);
    expect(truncate('非小细胞肺癌', 5)).toBe('非小…');
  });

  it('headers, pairs, checklists and stderr tables are sanitised too', async () => {
    const io = fakeIo({ tty: true });
    await printPairsText(io, [[`key${HOSTILE}`, HOSTILE]]);
    await printChecklist(io, [{ state: 'failed', text: HOSTILE, hint: HOSTILE }]);
    await tick();
    expect(RAW.test(io.out())).toBe(false);
    expect(RAW.test(formatTable(io, [{ header: HOSTILE }], [[HOSTILE]]))).toBe(false);
  });
});

describe('printSections: one document for a multi-part reply', () => {
  const sections = [
    {
      name: 'run',
      rows: [{ id: 'r1', keyword_id: 'k1', kind: 'target' }],
      columns: [
        { header: 'RUN ID', key: 'id', value: (r: { id: string }) => r.id },
        { header: 'KEYWORD ID', key: 'keyword_id', value: (r: { keyword_id: string }) => r.keyword_id },
        { header: 'KIND', key: 'kind', value: (r: { kind: string }) => r.kind },
      ],
    },
    {
      name: 'skipped',
      title: 'skipped',
      rows: [{ keyword_id: 'k3', signal_keyword_id: 's3', reason: '=already, analysed' }],
      columns: [
        { header: 'KEYWORD ID', key: 'keyword_id', value: (r: { keyword_id: string }) => r.keyword_id },
        { header: 'SIGNAL KEYWORD ID', key: 'signal_keyword_id', value: (r: { signal_keyword_id: string }) => r.signal_keyword_id },
        { header: 'REASON', key: 'reason', value: (r: { reason: string }) => r.reason },
      ],
    },
  ];

  it('csv: one header, a section column, shared columns merged, CRLF', async () => {
    const io = fakeIo();
    await printSections(makeOutput(io, { format: 'csv' }), sections);
    await tick();
    expect(io.out()).toBe(
      'section,id,keyword_id,kind,signal_keyword_id,reason\r\n' + 'run,r1,k1,target,,\r\n' + `skipped,,k3,,s3,"'=already, analysed"\r\n`,
    );
  });

  it('tsv: the same columns, no header', async () => {
    const io = fakeIo();
    await printSections(makeOutput(io, { format: 'tsv' }), sections);
    await tick();
    expect(io.out()).toBe('run\tr1\tk1\ttarget\t\t\nskipped\t\tk3\t\ts3\t=already, analysed\n');
  });

  it('table: each part as its own block, titled parts under their title', async () => {
    const io = fakeIo({ tty: true });
    await printSections(makeOutput(io, { format: 'table' }), sections);
    await tick();
    expect(io.out()).toMatch(
      /^RUN ID\s+KEYWORD ID\s+KIND\nr1\s+k1\s+target\n\nskipped\nKEYWORD ID\s+SIGNAL KEYWORD ID\s+REASON\nk3\s+s3\s+=already, analysed\n$/,
    );
  });
});

describe('writes are batched while streaming', () => {
  it('5,400 rows in a few writes, not one per row, in every format', async () => {
    for (const format of ['table', 'tsv', 'csv', 'ndjson', 'json'] as const) {
      let writes = 0;
      let text = '';
      const stdout = new Writable({
        write(chunk, _enc, cb) {
          writes++;
          text += String(chunk);
          cb();
        },
      });
      const io = { ...fakeIo({ tty: true, columns: 120 }), stdout };
      async function* rows() {
        for (let i = 0; i < 5400; i++) yield { id: `id-${i}`, name: `name ${i}`, count: i };
      }
      const n = await printRows(makeOutput(io, { format }), rows(), [
        { header: 'NAME', value: (r) => r.name },
        { header: 'COUNT', value: (r) => r.count, numeric: true },
        { header: 'ID', value: (r) => r.id, keep: true },
      ]);
      expect(n).toBe(5400);
      expect(text).toContain('name 5399');
      expect(writes).toBeLessThan(100);
    }
  });
});

describe('stderr writers', () => {
  it('sanitizingStream escapes controls, keeps line breaks and writes through in order', () => {
    let text = '';
    const raw = new Writable({
      write(chunk, _enc, cb) {
        text += String(chunk);
        cb();
      },
    });
    const safe = sanitizingStream(raw);
    safe.write(`rsi: ${HOSTILE}\n`);
    raw.write('\r\u001b[2K');
    safe.write('next\n');
    expect(text.startsWith('rsi: A\\x1b[2J')).toBe(true);
    expect(text.endsWith('\n\r\u001b[2Knext\n')).toBe(true);
    expect(RAW.test(text.replace('\r\u001b[2K', ''))).toBe(false);
  });

  it('progress sanitises its text on a terminal and in plain lines', () => {
    for (const tty of [true, false]) {
      const io = fakeIo({ tty, columns: 200 });
      const progress = createProgress(io, { frameMs: 0 });
      progress.update(`scoring ${HOSTILE}`);
      progress.log(`warning ${HOSTILE}`);
      progress.stop();
      // The live line's own controls (\r, ESC[2K, nothing else) are the only raw ones.
      const own = io.err().replaceAll('\r\u001b[2K', '').replaceAll('\n', '');
      expect(RAW.test(own)).toBe(false);
      expect(io.err()).toContain('\\x1b[2J');
    }
  });

  it('the prompter never shows a raw question, even in its refusal', async () => {
    const io = fakeIo({ tty: false });
    const error = await createPrompter(io)
      .confirm(`Run 1 analysis for "${HOSTILE}"?`)
      .catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect(RAW.test((error as Error).message)).toBe(false);
  });

  it('main prints `rsi:` and `hint:` lines with server or user text escaped', async () => {
    const io = fakeIo();
    const code = await main({ argv: ['keywords', 'search', 'x', '--limit', `\u001b]52;c;ZXZpbA==\u0007\u202e`], env: {}, io });
    await tick();
    expect(code).toBe(2);
    expect(io.err()).toContain('rsi: --limit must be');
    expect(io.err()).toContain('\\x1b]52;c;ZXZpbA==\\x07\\u202e');
    expect(RAW.test(io.err().replaceAll('\n', ''))).toBe(false);
  });

  it('the process stderr of main is the sanitising stream (a PassThrough proves nothing raw passes)', () => {
    const sink = new PassThrough();
    let text = '';
    sink.on('data', (c) => (text += c));
    const safe = sanitizingStream(sink);
    safe.write('\u009b2J\n');
    return tick().then(() => expect(text).toBe('\\x9b2J\n'));
  });
});

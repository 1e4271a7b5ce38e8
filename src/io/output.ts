/**
 * The one output module: every command writes its data through here, in one of the formats of
 * `formats.ts`:
 *
 * - `table` (TTY default): aligned columns fitted to the terminal, for people; cells sanitised.
 * - `tsv` (piped default): no header; cells sanitised, so a tab or newline inside a value shows
 *   as `\t` / `\n` and every row stays one line.
 * - `csv`: RFC 4180 (CRLF, quotes doubled, one lower_snake header row), cells sanitised and
 *   neutralised against spreadsheet formulas (a leading `'`).
 * - `json` / `ndjson`: the API's JSON exactly (indented on a TTY, compact when piped).
 *
 * Cell spelling is the same in every command: booleans `true`/`false`, times as the server sent
 * them (ISO 8601), null as an empty cell, nested members JSON-encoded in the cell. A reply with
 * several parts (a keyword card with sections, an analyses result with runs and skipped items, a
 * status with its analyses) goes through `printSections`: one document in tsv/csv whose first
 * column, `section`, names the part each row belongs to. See docs/scripting.md, "Formats".
 *
 * Output is written in batches (a few KiB at a time, and at least every 100 ms while rows keep
 * coming), waiting for the stream to drain, so `--all` streams with flat memory and without one
 * write() per row.
 */
import type { Writable } from 'node:stream';
import type { Io } from './io.js';
import type { OutputFormat } from './formats.js';
import { displayWidth, sanitizeLine, sanitizeText, truncate } from './sanitize.js';

export interface Column<T> {
  /** The table header (people); upper case by convention. */
  header: string;
  /** The csv header; default: `header` in lower_snake case (`RUN ID` → `run_id`). */
  key?: string;
  value: (row: T) => unknown;
  /** Right-align numbers in tables. */
  numeric?: boolean;
  /** Column gives up width first when the table is too wide. */
  flexible?: boolean;
  /** Never shortened (ids people copy); the table may then be wider than the terminal. */
  keep?: boolean;
}

export interface OutputTarget {
  io: Io;
  format: OutputFormat;
}

/** Writes and waits for the stream to drain, so streaming large outputs keeps memory flat. */
export async function write(stream: Writable, text: string): Promise<void> {
  if (!stream.write(text)) {
    await new Promise<void>((resolve, reject) => {
      const done = (): void => {
        stream.off('error', fail);
        resolve();
      };
      const fail = (error: Error): void => {
        stream.off('drain', done);
        reject(error);
      };
      stream.once('drain', done);
      stream.once('error', fail);
    });
  }
}

const BATCH_BYTES = 16 * 1024;
const BATCH_MS = 100;

/** Collects text and writes it in batches: by size, by age, and at the end. */
class Batch {
  private text = '';
  private since = performance.now();
  constructor(private readonly stream: Writable) {}

  async add(text: string): Promise<void> {
    this.text += text;
    if (this.text.length >= BATCH_BYTES || performance.now() - this.since >= BATCH_MS) await this.flush();
  }

  async flush(): Promise<void> {
    this.since = performance.now();
    if (this.text === '') return;
    const text = this.text;
    this.text = '';
    await write(this.stream, text);
  }
}

export function jsonText(value: unknown, io: Io): string {
  return io.stdoutIsTTY ? JSON.stringify(value, null, 2) : JSON.stringify(value);
}

/** Prints one JSON document (the API's body) and a newline; exact, never sanitised. */
export async function printJson(io: Io, value: unknown): Promise<void> {
  await write(io.stdout, `${jsonText(value, io)}\n`);
}

/** Prints one compact JSON document on its own line (ndjson, or a document in a stream of them). */
export async function printJsonLine(io: Io, value: unknown): Promise<void> {
  await write(io.stdout, `${JSON.stringify(value)}\n`);
}

/**
 * Writes one compact JSON document on its own line without waiting (for callbacks such as the
 * watch's per-status line, which cannot await); the stream buffers, order is kept.
 */
export function writeJsonLine(io: Io, value: unknown): void {
  io.stdout.write(`${JSON.stringify(value)}\n`);
}

/** Prints a machine document in the format asked: indented json on a TTY, else one compact line. */
export async function printDocument(target: OutputTarget, value: unknown): Promise<void> {
  if (target.format === 'json') await printJson(target.io, value);
  else await printJsonLine(target.io, value);
}

/**
 * A value as cell text, before sanitising and quoting. Arrays of plain values read as a list in a
 * table; everywhere else nested members are JSON, so nothing is lost and a script can parse it.
 */
export function cell(value: unknown, format: OutputFormat = 'tsv'): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (Array.isArray(value) && format === 'table' && value.every((v) => v === null || typeof v !== 'object')) {
    return value.map((v) => cell(v, format)).join(', ');
  }
  return JSON.stringify(value);
}

const PLAIN_NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * Whether a spreadsheet would read the cell as a formula (OWASP's list: `=`, `+`, `-`, `@`, tab,
 * carriage return) and it is not a plain number such as `-1.5`.
 */
export function isFormulaLike(text: string): boolean {
  const first = text.charCodeAt(0);
  // = + - @ \t \r
  if (first !== 0x3d && first !== 0x2b && first !== 0x2d && first !== 0x40 && first !== 0x09 && first !== 0x0d) return false;
  return !PLAIN_NUMBER.test(text);
}

/**
 * A CSV field per RFC 4180. Controls other than the line feed become visible escapes; a cell a
 * spreadsheet would run as a formula gets OWASP's leading `'` (and is quoted), so opening an
 * export never executes server-supplied text.
 */
export function csvField(value: unknown): string {
  const raw = cell(value, 'csv');
  let text = sanitizeText(raw);
  if (isFormulaLike(raw) || isFormulaLike(text)) text = `'${text}`;
  else if (!/[",\n]/.test(text)) return text;
  return `"${text.replaceAll('"', '""')}"`;
}

/** A TSV field: sanitised, with tab and newline as `\t` / `\n`, so a row is one line. */
export function tsvField(value: unknown): string {
  return sanitizeLine(cell(value, 'tsv'));
}

/** A table cell: sanitised to one line. */
export function tableField(value: unknown): string {
  return sanitizeLine(cell(value, 'table'));
}

export function columnKey(column: Column<never> | Column<unknown> | { header: string; key?: string }): string {
  return (
    column.key ??
    column.header
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
      .replace(/^_|_$/g, '')
  );
}

/**
 * Prints rows in a tabular format (table, tsv, csv) or as items (json array, ndjson), streaming
 * from an iterable. Only a table holds rows: the first ones, to size its columns.
 * Returns the number of rows printed.
 */
export async function printRows<T>(
  target: OutputTarget,
  rows: AsyncIterable<T> | Iterable<T>,
  columns: readonly Column<T>[],
  toJson: (row: T) => unknown = (row) => row,
): Promise<number> {
  const { io, format } = target;
  const out = new Batch(io.stdout);
  let count = 0;
  if (format === 'json') {
    // One JSON array, streamed: "[", items joined by ",", "]".
    const pretty = io.stdoutIsTTY;
    for await (const row of rows) {
      const item = pretty ? JSON.stringify(toJson(row), null, 2).replace(/\n/g, '\n  ') : JSON.stringify(toJson(row));
      await out.add(`${count === 0 ? '[' : ','}${pretty ? '\n  ' : ''}${item}`);
      count++;
    }
    await out.add(count === 0 ? '[]\n' : `${pretty ? '\n' : ''}]\n`);
  } else if (format === 'ndjson') {
    for await (const row of rows) {
      await out.add(`${JSON.stringify(toJson(row))}\n`);
      count++;
    }
  } else if (format === 'tsv') {
    for await (const row of rows) {
      await out.add(`${columns.map((c) => tsvField(c.value(row))).join('\t')}\n`);
      count++;
    }
  } else if (format === 'csv') {
    for await (const row of rows) {
      if (count === 0) await out.add(`${columns.map((c) => csvField(columnKey(c))).join(',')}\r\n`);
      await out.add(`${columns.map((c) => csvField(c.value(row))).join(',')}\r\n`);
      count++;
    }
  } else {
    count = await streamTable(io, columns, rows, out);
  }
  await out.flush();
  return count;
}

/** Rows a table reads before it fixes its column widths; later rows are fitted to them. */
const TABLE_WINDOW = 1000;

async function streamTable<T>(io: Io, columns: readonly Column<T>[], rows: AsyncIterable<T> | Iterable<T>, out: Batch): Promise<number> {
  const first: string[][] = [];
  let layout: TableLayout | undefined;
  let count = 0;
  for await (const row of rows) {
    const cells = columns.map((c) => tableField(c.value(row)));
    count++;
    if (layout === undefined) {
      first.push(cells);
      if (first.length < TABLE_WINDOW) continue;
      layout = tableLayout(io, columns, first, true);
      await out.add(layout.head);
      for (const r of first) await out.add(layout.line(r));
      first.length = 0;
    } else {
      await out.add(layout.line(cells));
    }
  }
  if (layout === undefined && first.length > 0) {
    layout = tableLayout(io, columns, first);
    await out.add(layout.head);
    for (const r of first) await out.add(layout.line(r));
  }
  return count;
}

interface TableLayout {
  head: string;
  line: (cells: readonly string[]) => string;
}

/**
 * Column widths from the rows seen (sanitised cells), shrunk to the terminal: flexible columns
 * first, `keep` columns never. Two spaces between columns, no borders, trailing spaces trimmed.
 * `more`: rows beyond the measured window will follow and are fitted to these widths.
 */
function tableLayout(
  io: Io,
  columns: readonly { header: string; numeric?: boolean; flexible?: boolean; keep?: boolean }[],
  rows: string[][],
  more = false,
): TableLayout {
  const natural = columns.map((c, i) => {
    let w = displayWidth(c.header);
    for (const r of rows) w = Math.max(w, displayWidth(r[i] ?? ''));
    return w;
  });
  const widths = fitWidths(
    natural,
    columns.map((c) => (c.keep ? 'keep' : c.flexible ? 'flex' : 'fixed')),
    Math.max(40, io.columns),
  );
  if (more) {
    // More rows will come than were measured: give the columns headroom from the terminal's spare
    // width, so a later, slightly longer cell ("name 10000" after "name 999") is not cut.
    let spare = Math.max(40, io.columns) - widths.reduce((a, b) => a + b, 0) - 2 * (widths.length - 1);
    for (let i = 0; i < widths.length && spare > 0; i++) {
      if (columns[i]!.keep) continue;
      const extra = Math.min(spare, Math.ceil(widths[i]! / 2) + 2);
      widths[i]! += extra;
      spare -= extra;
    }
  }
  const last = columns.length - 1;
  const line = (cells: readonly string[], bold = false): string => {
    let text = '';
    for (let i = 0; i <= last; i++) {
      const raw = cells[i] ?? '';
      const width = widths[i]!;
      const shown = columns[i]!.keep ? raw : truncate(raw, width);
      const pad = width - displayWidth(shown);
      const padded = pad <= 0 ? shown : columns[i]!.numeric ? ' '.repeat(pad) + shown : i === last ? shown : shown + ' '.repeat(pad);
      text += i === 0 ? '' : '  ';
      text += bold && io.color ? `\x1b[1m${padded}\x1b[22m` : padded;
    }
    return `${text.trimEnd()}\n`;
  };
  return {
    head: line(
      columns.map((c) => sanitizeLine(c.header)),
      true,
    ),
    line: (cells) => line(cells),
  };
}

/** A whole table as text (for stderr listings such as the confirmation's signals); no colour. */
export function formatTable(
  io: Io,
  columns: readonly { header: string; numeric?: boolean; flexible?: boolean; keep?: boolean }[],
  rows: readonly unknown[][],
): string {
  const cells = rows.map((r) => r.map((v) => tableField(v)));
  const layout = tableLayout({ ...io, color: false }, columns, cells);
  return layout.head + cells.map((r) => layout.line(r)).join('');
}

function fitWidths(natural: number[], kinds: Array<'keep' | 'flex' | 'fixed'>, total: number): number[] {
  const widths = [...natural];
  const gap = 2 * (widths.length - 1);
  let excess = widths.reduce((a, b) => a + b, 0) + gap - total;
  // Shrink the widest flexible column first, then the widest of any, never below 8.
  for (const pass of [true, false]) {
    while (excess > 0) {
      let widest = -1;
      for (let i = 0; i < widths.length; i++) {
        if (kinds[i] === 'keep' || (pass && kinds[i] !== 'flex') || widths[i]! <= 8) continue;
        if (widest < 0 || widths[i]! > widths[widest]!) widest = i;
      }
      if (widest < 0) break;
      const cut = Math.min(excess, widths[widest]! - 8);
      widths[widest]! -= cut;
      excess -= cut;
    }
  }
  return widths;
}

/** Key/value pairs, for single objects in human formats (a keyword card's fields, `auth status`). */
export async function printPairs(target: OutputTarget, pairs: ReadonlyArray<readonly [string, unknown]>): Promise<void> {
  const { io, format } = target;
  if (format === 'table') {
    await write(io.stdout, pairsText(pairs, io.color));
    return;
  }
  await printRows(target, pairs, [
    { header: 'field', value: (p) => p[0] },
    { header: 'value', value: (p) => p[1] },
  ]);
}

/** Aligned `key  value` lines, sanitised; the key dimmed when colour is on. */
export function pairsText(pairs: ReadonlyArray<readonly [string, unknown]>, color = false): string {
  const width = Math.max(0, ...pairs.map(([k]) => displayWidth(sanitizeLine(k))));
  let text = '';
  for (const [k, v] of pairs) {
    const key = sanitizeLine(k).padEnd(width);
    text += `${color ? `\x1b[2m${key}\x1b[22m` : key}  ${tableField(v)}\n`;
  }
  return text;
}

/**
 * A machine value exactly as is (the sandbox's URL, `auth token`, a completion script): data a
 * program reads, not text for a person, so it is not sanitised.
 */
export async function printVerbatim(io: Io, text: string): Promise<void> {
  await write(io.stdout, text);
}

/** Aligned `key  value` lines on stdout in every non-JSON format (`auth status`: a view, not a table). */
export async function printPairsText(io: Io, pairs: ReadonlyArray<readonly [string, unknown]>): Promise<void> {
  await write(io.stdout, pairsText(pairs, io.color));
}

/** One check of a checklist (`doctor`). */
export interface CheckLine {
  state: 'ok' | 'failed' | 'skipped';
  text: string;
  hint?: string | undefined;
}

/** `✓ name: detail` lines with an indented `→ hint` under failures; marks coloured on a TTY. */
export async function printChecklist(io: Io, checks: readonly CheckLine[]): Promise<void> {
  const paint = (code: number, text: string): string => (io.color ? `\x1b[${code}m${text}\x1b[${code === 2 ? 22 : 39}m` : text);
  let text = '';
  for (const c of checks) {
    const mark = c.state === 'skipped' ? paint(2, '-') : c.state === 'ok' ? paint(32, '✓') : paint(31, '✗');
    text += `${mark} ${sanitizeLine(c.text)}\n`;
    if (c.state === 'failed' && c.hint) text += `  ${paint(2, '→')} ${sanitizeLine(c.hint)}\n`;
  }
  await write(io.stdout, text);
}

/** Free text for a person on stdout (a status summary): sanitised, line breaks kept. */
export async function printText(io: Io, text: string): Promise<void> {
  await write(io.stdout, sanitizeText(text));
}

/** One line for a person on stderr (a note, a warning), sanitised whatever stream it goes to. */
export function note(io: Io, line: string): void {
  io.stderr.write(`${sanitizeText(line)}\n`);
}

/** One part of a multi-part reply. */
export interface Section<T = never> {
  /** The `section` cell of its rows in tsv/csv (`keyword`, `indications`, `run`, `skipped`). */
  name: string;
  /** A heading above the part in a table; none for the first, main part. */
  title?: string;
  rows: Iterable<T>;
  columns: readonly Column<T>[];
  /** In a table, show the (single) row as aligned `field  value` lines instead of columns. */
  card?: boolean;
  /** Columns for the table only, when people should see fewer or friendlier ones. */
  tableColumns?: readonly Column<T>[];
}

/**
 * A reply made of parts, as one document. tsv/csv: one table whose first column is `section`,
 * followed by the union of the parts' columns (by key, in order of first appearance); a row
 * leaves the columns of other parts empty. Table: each part as its own block, parts with a title
 * under it. JSON formats are the command's business (the API's body, exactly).
 */
export async function printSections(target: OutputTarget, sections: ReadonlyArray<Section<any>>): Promise<void> {
  const { io, format } = target;
  if (format === 'table') {
    let first = true;
    for (const s of sections) {
      const rows = [...s.rows];
      if (rows.length === 0 && s.title === undefined) continue;
      if (!first) await write(io.stdout, '\n');
      first = false;
      if (s.title !== undefined) await write(io.stdout, `${sanitizeLine(s.title)}\n`);
      const columns = s.tableColumns ?? s.columns;
      if (s.card && rows.length === 1) {
        await write(
          io.stdout,
          pairsText(
            columns.map((c) => [c.header, c.value(rows[0])] as const),
            io.color,
          ),
        );
      } else if (rows.length > 0) await printRows(target, rows, columns);
    }
    return;
  }
  const keys: string[] = [];
  for (const s of sections) for (const c of s.columns) if (!keys.includes(columnKey(c))) keys.push(columnKey(c));
  type Flat = { section: string; cells: Map<string, unknown> };
  function* flatten(): Generator<Flat> {
    for (const s of sections) {
      for (const row of s.rows) {
        const cells = new Map<string, unknown>();
        for (const c of s.columns) cells.set(columnKey(c), c.value(row));
        yield { section: s.name, cells };
      }
    }
  }
  await printRows<Flat>(target, flatten(), [
    { header: 'section', value: (f) => f.section },
    ...keys.map((k): Column<Flat> => ({ header: k, key: k, value: (f) => f.cells.get(k) })),
  ]);
}

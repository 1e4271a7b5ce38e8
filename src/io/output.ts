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
 * Cell spelling is the same in every command: booleans `true`/`false`, numbers and times as the
 * server sent them, null as an empty cell, arrays JSON-encoded in the cell; in tsv/csv a nested
 * object is dotted columns (`composite.score`, src/io/columns.ts), in a table JSON. A reply with
 * several parts (a keyword card with sections, an analyses result with runs and skipped items, a
 * status with its analyses) goes through `printSections`: one document in tsv/csv whose first
 * column, `section`, names the part each row belongs to (with `--fields`, only when chosen). See
 * docs/scripting.md, "Formats" and "Exact data".
 *
 * Output is written in batches (a few KiB at a time, and at least every 100 ms while rows keep
 * coming), waiting for the stream to drain, so `--all` streams with flat memory and without one
 * write() per row.
 */
import type { Writable } from 'node:stream';
import type { Io } from './io.js';
import type { OutputFormat } from '../formats.js';
import { colourJson, paint } from './colors.js';
import { escapeHiddenJson, ExactNumber, keepLiterals, numberText, stringifyJson } from './json.js';
import { type Column, columnKey, exactInRow, expandColumns, pickFields, selectColumns } from './columns.js';
import { displayUnits, displayWidth, sanitizeCell, sanitizeLine, sanitizeText, truncate, wrap } from './sanitize.js';

export type { Column } from './columns.js';
export { columnKey, pickFields, selectColumns } from './columns.js';

/** What a table needs to know about a column to lay it out. */
export type TableColumn = Pick<Column<never>, 'header' | 'numeric' | 'flexible' | 'keep' | 'id' | 'time'>;

export interface OutputTarget {
  io: Io;
  format: OutputFormat;
  /** "Now" for relative times in tables (the context's clock); the system clock when absent. */
  now?: (() => number) | undefined;
  /** --time absolute: tables show times as UTC timestamps, not "5 min ago". */
  time?: 'relative' | 'absolute' | undefined;
  /** --wide: tables keep full ids and every column, whatever the terminal's width. */
  wide?: boolean | undefined;
  /**
   * Where the headers tables leave out are collected until every section is printed
   * (printSections), so the `left out:` note never lands between two blocks; absent: each table
   * writes its own note after itself.
   */
  leftOut?: string[] | undefined;
}

/** Writes and waits for the stream to drain, so streaming large outputs keeps memory flat. */
export async function write(stream: Writable, text: string): Promise<void> {
  // A reader that went away (a pager quit with `q`) leaves a destroyed stream: it will neither
  // drain nor fail again, so waiting on it would hang (on Node 22 and 24 the process then stops
  // with an unsettled top-level await). Treat it as the closed pipe it is.
  if (stream.destroyed) throw closedOutput(stream);
  if (!stream.write(text)) {
    await new Promise<void>((resolve, reject) => {
      const settle = (error?: Error): void => {
        stream.off('drain', drained);
        stream.off('error', settle);
        stream.off('close', closed);
        if (error) reject(error);
        else resolve();
      };
      const drained = (): void => settle();
      const closed = (): void => settle(closedOutput(stream));
      stream.once('drain', drained);
      stream.once('error', settle);
      stream.once('close', closed);
    });
  }
}

function closedOutput(stream: Writable): Error {
  return stream.errored ?? Object.assign(new Error('the output was closed'), { code: 'EPIPE' });
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

/**
 * What `--fields` and `--jq` ask of a run's output. Set once per Io, after the flags are checked
 * (`shapeOutput`), and read by every printer below, so each command's JSON, rows and sections are
 * shaped the same way without the twenty call sites passing it along.
 */
export interface OutputShape {
  /** `--fields`: the members/columns to keep, in this order. */
  fields?: readonly string[] | undefined;
  /**
   * Where a JSON document's rows are: the member holding the list (`data`, `projects`) or
   * undefined when the document is the row (a card, a status) or an array of rows.
   */
  rows?: string | undefined;
  /** `--jq`: a compiled expression (src/io/jq.ts); applied to each document printed, as JSON text. */
  jq?: { run(json: string, pretty: boolean, emit: (outputs: string[]) => Promise<void>): Promise<void> } | undefined;
}

const shapes = new WeakMap<Io, OutputShape>();

export function shapeOutput(io: Io, shape: OutputShape): void {
  shapes.set(io, shape);
}

/** `--fields` applied to a whole JSON document: to its rows, wherever the command keeps them. */
function shapeDocument(value: unknown, shape: OutputShape | undefined): unknown {
  const fields = shape?.fields;
  if (!fields) return value;
  if (Array.isArray(value)) return value.map((r) => pickFields(r, fields));
  if (shape.rows !== undefined && value !== null && typeof value === 'object') {
    const rows = (value as Record<string, unknown>)[shape.rows];
    if (Array.isArray(rows)) {
      const copy = { ...value, [shape.rows]: rows.map((r) => pickFields(r, fields)) };
      keepLiterals(value, copy);
      return copy;
    }
  }
  return pickFields(value, fields);
}

/**
 * Runs `--jq` on one document's JSON text and writes its results through `out`, one a line:
 * strings raw (like `jq -r`), everything else as jq wrote it (indented on a terminal, like jq), so
 * numbers print as jq prints them; hidden characters in JSON escaped as everywhere in rsi's JSON.
 * Results written before a jq error are printed before the error is thrown.
 */
async function writeJq(io: Io, jq: NonNullable<OutputShape['jq']>, json: string, pretty: boolean, out: Batch): Promise<void> {
  try {
    await jq.run(json, pretty, async (outputs) => {
      let text = '';
      // A raw string is text from the service: exact to a pipe, made safe on a terminal (issue 20).
      for (const o of outputs)
        text += `${o.startsWith('"') ? (io.stdoutIsTTY ? sanitizeText(JSON.parse(o) as string) : (JSON.parse(o) as string)) : terminalJson(io, escapeHiddenJson(o))}\n`;
      await out.add(text);
    });
  } catch (error) {
    await out.flush();
    throw error;
  }
}

/** One document through `--jq`, written out before this returns. */
async function printJq(io: Io, jq: NonNullable<OutputShape['jq']>, json: string, pretty: boolean): Promise<void> {
  const out = new Batch(io.stdout);
  await writeJq(io, jq, json, pretty, out);
  await out.flush();
}

export function jsonText(value: unknown, io: Io): string {
  return io.stdoutIsTTY ? terminalJson(io, stringifyJson(value, 2)) : stringifyJson(value);
}

/** JSON for a person: coloured as gh does at a terminal; never in a pipe, whatever FORCE_COLOR says. */
function terminalJson(io: Io, text: string): string {
  return io.stdoutIsTTY && io.color ? colourJson(text, paint(true)) : text;
}

/**
 * Prints one JSON document (the API's body) and a newline; exact, never sanitised. `text` is the
 * document as the service sent it, when the caller has it: `--jq` reads that, as jq would.
 */
export async function printJson(io: Io, value: unknown, text?: string): Promise<void> {
  const shape = shapes.get(io);
  const shaped = shapeDocument(value, shape);
  if (shape?.jq) return printJq(io, shape.jq, text !== undefined && shaped === value ? text : stringifyJson(shaped), io.stdoutIsTTY);
  await write(io.stdout, `${jsonText(shaped, io)}\n`);
}

/**
 * Prints one compact JSON document on its own line (ndjson, or a document in a stream of them):
 * `--fields` and `--jq` apply to each.
 */
export async function printJsonLine(io: Io, value: unknown): Promise<void> {
  const shape = shapes.get(io);
  const shaped = shapeDocument(value, shape);
  if (shape?.jq) return printJq(io, shape.jq, stringifyJson(shaped), false);
  await write(io.stdout, `${stringifyJson(shaped)}\n`);
}

/**
 * Writes one compact JSON document on its own line (for callbacks such as the watch's per-status
 * line); without `--jq` the stream buffers and this returns at once, order kept.
 */
export function writeJsonLine(io: Io, value: unknown): Promise<void> | undefined {
  const shape = shapes.get(io);
  if (shape?.jq) return printJsonLine(io, value);
  io.stdout.write(`${stringifyJson(shapeDocument(value, shape))}\n`);
  return undefined;
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
  // A number as the service spelled it (`1.10` where its place is known, all the digits of a big integer).
  if (value instanceof ExactNumber) return value.literal;
  if (typeof value === 'number') return numberText(value);
  if (typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (Array.isArray(value) && format === 'table' && value.every((v) => v === null || typeof v !== 'object')) {
    return value.map((v) => cell(v, format)).join(', ');
  }
  return stringifyJson(value);
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
  let text = sanitizeCell(raw, true);
  if (isFormulaLike(raw) || isFormulaLike(text)) text = `'${text}`;
  else if (!/[",\n]/.test(text)) return text;
  return `"${text.replaceAll('"', '""')}"`;
}

/** A TSV field: sanitised, with tab and newline as `\t` / `\n`, so a row is one line. */
export function tsvField(value: unknown): string {
  return sanitizeCell(cell(value, 'tsv'), false);
}

/** A table cell: sanitised to one line. */
export function tableField(value: unknown): string {
  return sanitizeLine(cell(value, 'table'));
}

/**
 * Prints rows in a tabular format (table, tsv, csv) or as items (json array, ndjson), streaming
 * from an iterable. Only a table holds rows: the first ones, to size its columns.
 * Returns the number of rows printed.
 */
export async function printRows<T>(
  target: OutputTarget,
  rows: AsyncIterable<T> | Iterable<T>,
  allColumns: readonly Column<T>[],
  rowJson: (row: T) => unknown = (row) => row,
): Promise<number> {
  const out = new Batch(target.io.stdout);
  try {
    return await printRowsTo(out, target, rows, allColumns, rowJson, shapes.get(target.io)?.fields);
  } catch (error) {
    // A walk that fails part way (a page cap, a dropped connection): the rows it gave are printed,
    // then the error, so what stdout holds is every row received, never a cut batch.
    await out.flush().catch(() => undefined);
    throw error;
  }
}

async function printRowsTo<T>(
  out: Batch,
  target: OutputTarget,
  rows: AsyncIterable<T> | Iterable<T>,
  allColumns: readonly Column<T>[],
  rowJson: (row: T) => unknown,
  fields: readonly string[] | undefined,
): Promise<number> {
  const { io, format } = target;
  let count = 0;
  const shape = shapes.get(io);
  const toJson = fields ? (row: T) => pickFields(rowJson(row), fields) : rowJson;
  let columns = fields ? selectColumns(allColumns, fields, rowJson) : allColumns;
  if (format === 'csv' || format === 'tsv') {
    // Objects become dotted columns, fixed before the first line from the rows known by then: all
    // of a list in memory, the first row of a stream (and the columns' declared members).
    if (Array.isArray(rows)) columns = expandColumns(columns, rows);
    else {
      const { first, rest } = await peek(rows);
      columns = expandColumns(columns, first);
      rows = rest;
    }
    // A number keeps the service's spelling where the row shows which member it is.
    columns = columns.map((c) => ({ ...c, value: (row: T) => exactInRow(c.value(row), rowJson(row)) }));
  }
  if (shape?.jq && (format === 'json' || format === 'ndjson')) {
    // jq sees what it would see in `--json | jq`: the whole collection as one array (held in
    // memory, as jq would), or with ndjson each item on its own.
    const all: unknown[] = [];
    for await (const row of rows) {
      if (format === 'ndjson') await writeJq(io, shape.jq, stringifyJson(toJson(row)), false, out);
      else all.push(toJson(row));
      count++;
    }
    if (format === 'json') await writeJq(io, shape.jq, stringifyJson(all), io.stdoutIsTTY, out);
    await out.flush();
    return count;
  }
  if (format === 'json') {
    // One JSON array, streamed: "[", items joined by ",", "]".
    const pretty = io.stdoutIsTTY;
    for await (const row of rows) {
      const item = pretty ? stringifyJson(toJson(row), 2).replace(/\n/g, '\n  ') : stringifyJson(toJson(row));
      await out.add(`${count === 0 ? '[' : ','}${pretty ? '\n  ' : ''}${item}`);
      count++;
    }
    await out.add(count === 0 ? '[]\n' : `${pretty ? '\n' : ''}]\n`);
  } else if (format === 'ndjson') {
    for await (const row of rows) {
      await out.add(`${stringifyJson(toJson(row))}\n`);
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
    const table = await streamTable(target, columns, rows, out);
    count = table.count;
    await out.flush();
    // After the table, so the note does not land between its lines on a terminal.
    // Wrapped at words to the width, so a narrow terminal does not break it mid-word.
    if (target.leftOut) target.leftOut.push(...table.dropped);
    else if (table.dropped.length > 0) leftOutNote(io, table.dropped, table.width);
    return count;
  }
  await out.flush();
  return count;
}

/** The first row of a stream, and the whole stream again (that row first). */
async function peek<T>(rows: AsyncIterable<T> | Iterable<T>): Promise<{ first: T[]; rest: AsyncIterable<T> }> {
  const it = Symbol.asyncIterator in rows ? rows[Symbol.asyncIterator]() : (rows as Iterable<T>)[Symbol.iterator]();
  const head = await it.next();
  async function* rest(): AsyncGenerator<T> {
    if (head.done) return;
    yield head.value;
    for (let next = await it.next(); !next.done; next = await it.next()) yield next.value;
  }
  return { first: head.done ? [] : [head.value], rest: rest() };
}

/** Rows a table reads before it fixes its column widths; later rows are fitted to them. */
const TABLE_WINDOW = 1000;

async function streamTable<T>(
  target: OutputTarget,
  columns: readonly Column<T>[],
  rows: AsyncIterable<T> | Iterable<T>,
  out: Batch,
): Promise<{ count: number; dropped: string[]; width: number }> {
  const { io } = target;
  const now = target.now ?? Date.now;
  const first: string[][] = [];
  let layout: TableLayout | undefined;
  let count = 0;
  for await (const row of rows) {
    const cells = tableCells(columns, row, now, target.time);
    count++;
    if (layout === undefined) {
      first.push(cells);
      if (first.length < TABLE_WINDOW) continue;
      layout = tableLayout(io, columns, first, true, target.wide);
      await out.add(layout.head);
      for (const r of first) await out.add(layout.line(r));
      first.length = 0;
    } else {
      await out.add(layout.line(cells));
    }
  }
  if (layout === undefined && first.length > 0) {
    layout = tableLayout(io, columns, first, false, target.wide);
    await out.add(layout.head);
    for (const r of first) await out.add(layout.line(r));
  }
  return { count, dropped: layout?.dropped ?? [], width: layout?.width ?? 0 };
}

/** One row's table cells: sanitised, times relative to `now` (or absolute); ids are shortened by the layout. */
function tableCells<T>(columns: readonly Column<T>[], row: T, now: () => number, time?: 'relative' | 'absolute'): string[] {
  return columns.map((c) => {
    const value = c.value(row);
    if (!c.time || typeof value !== 'string') return tableField(value);
    return sanitizeLine(time === 'absolute' ? absoluteTime(value) : relativeTime(value, now()));
  });
}

/**
 * An ISO 8601 time for an audit trail: `2026-05-01 14:03:07Z`, in UTC, to the second. Anything that
 * is not an ISO 8601 time with a zone comes back unchanged.
 */
export function absoluteTime(text: string): string {
  if (!ISO_TIME.test(text)) return text;
  const t = Date.parse(text);
  if (Number.isNaN(t)) return text;
  return `${new Date(t).toISOString().slice(0, 19).replace('T', ' ')}Z`;
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)$/i;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * An ISO 8601 time as people say it: `just now`, `3 min ago`, `2 h ago`, `5 d ago` (or `in 2 h`
 * for a time ahead), and its date (as the server wrote it) beyond 30 days. Anything that is not
 * an ISO 8601 time with a zone comes back unchanged, so a missing or odd value is never invented.
 */
export function relativeTime(text: string, now: number): string {
  if (!ISO_TIME.test(text)) return text;
  const t = Date.parse(text);
  if (Number.isNaN(t)) return text;
  const ms = now - t;
  const abs = Math.abs(ms);
  if (abs < MINUTE) return 'just now';
  if (abs >= 30 * DAY) return text.slice(0, 10);
  const [n, unit] =
    abs < HOUR ? [Math.floor(abs / MINUTE), 'min'] : abs < DAY ? [Math.floor(abs / HOUR), 'h'] : [Math.floor(abs / DAY), 'd'];
  return ms >= 0 ? `${n} ${unit} ago` : `in ${n} ${unit}`;
}

/** Characters of an id a table shows at least. */
const ID_CHARS = 8;

/**
 * How many characters of each id a table shows so that no two ids of the column read the same:
 * 8, or one more than the longest prefix two of them share.
 */
export function idPrefixLength(ids: readonly string[]): number {
  const distinct = [...new Set(ids)].filter((id) => id !== '').sort();
  let n = ID_CHARS;
  for (let i = 1; i < distinct.length; i++) {
    const a = displayUnits(distinct[i - 1]!);
    const b = displayUnits(distinct[i]!);
    let k = 0;
    while (k < a.length && k < b.length && a[k] === b[k]) k++;
    n = Math.max(n, k + 1);
  }
  return n;
}

/** An id's first `n` characters and `…`; in full when that would not be shorter. */
export function shortId(id: string, n: number): string {
  const units = displayUnits(id);
  return units.length <= n + 1 ? id : `${units.slice(0, n).join('')}…`;
}

interface TableLayout {
  head: string;
  line: (cells: readonly string[]) => string;
  /** Headers of the columns left out to fit the width (pictures are left out without a name). */
  dropped: string[];
  /** The width the table was fitted to. */
  width: number;
}

/**
 * Lays a table out in `io.columns` (at least 20), from the rows seen (sanitised cells):
 *
 * 1. Ids are shortened to a prefix unique within the column (`idPrefixLength`).
 * 2. Too wide: the flexible columns give up width first, then the widest of the others, each down
 *    to its least width: text 8 (cut with `…`), numbers and ids their longest cell (a number or an
 *    id is never cut; a header may be), pictures and `keep` columns their full width.
 * 3. Still too wide: columns are left out, pictures (`keep`, no header) first, then from the right (the least
 *    important; names come first), never the first; the caller says which on stderr.
 * 4. One column left and still too wide: it is cut to the width.
 *
 * Two spaces between columns, no borders, trailing spaces trimmed; no line is wider than the
 * width. `more`: rows beyond the measured window will follow and are fitted to these widths.
 */
function tableLayout(io: Io, columns: readonly TableColumn[], rows: string[][], more = false, wide = false): TableLayout {
  const idLength = columns.map((c, i) => (c.id && !wide ? idPrefixLength(rows.map((r) => r[i] ?? '')) : 0));
  const shown = (i: number, raw: string): string => (columns[i]!.id && !wide ? shortId(raw, idLength[i]!) : raw);
  // One header style in every table: upper case words, spaces between them (`KEYWORD_ID` and
  // `KEYWORD ID` alike read `KEYWORD ID`); the csv header row keeps its lower_snake keys.
  const headers = columns.map((c) => sanitizeLine(c.header).replace(/_/g, ' ').toUpperCase());
  const cellMax = columns.map((_, i) => {
    let w = 0;
    for (const r of rows) w = Math.max(w, displayWidth(shown(i, r[i] ?? '')));
    return w;
  });
  const natural = columns.map((_, i) => Math.max(cellMax[i]!, displayWidth(headers[i]!)));
  // --wide: every column at its natural width, however wide the line gets (a pager scrolls it).
  const total = wide ? natural.reduce((a, b) => a + b, 0) + 2 * columns.length : Math.max(20, io.columns);
  const least = columns.map((c, i) => {
    if (c.keep) return natural[i]!;
    if (c.numeric || c.id) return Math.max(cellMax[i]!, Math.min(displayWidth(headers[i]!), ID_CHARS));
    return Math.min(natural[i]!, ID_CHARS);
  });
  const visible = columns.map((_, i) => i);
  const need = (): number => visible.reduce((a, i) => a + least[i]!, 0) + 2 * (visible.length - 1);
  const picture = (i: number): boolean => columns[i]!.keep === true && headers[i] === '';
  const dropOrder = [...visible.filter(picture).reverse(), ...visible.filter((i) => i > 0 && !picture(i)).reverse()];
  const dropped: string[] = [];
  for (const i of dropOrder) {
    if (need() <= total || visible.length === 1) break;
    visible.splice(visible.indexOf(i), 1);
    if (!picture(i)) dropped.push(headers[i]!);
  }
  const widths = new Map<number, number>();
  if (visible.length === 1 && least[visible[0]!]! > total) widths.set(visible[0]!, total);
  else {
    const fitted = fitWidths(
      visible.map((i) => natural[i]!),
      visible.map((i) => least[i]!),
      visible.map((i) => columns[i]!.flexible === true),
      total,
    );
    for (const [k, i] of visible.entries()) widths.set(i, fitted[k]!);
  }
  if (more) {
    // More rows will come than were measured: give the text columns headroom from the terminal's
    // spare width, so a later, slightly longer cell ("name 10000" after "name 999") is not cut.
    let spare = total - [...widths.values()].reduce((a, b) => a + b, 0) - 2 * (visible.length - 1);
    for (const i of visible) {
      if (spare <= 0) break;
      if (columns[i]!.keep || columns[i]!.id) continue;
      const extra = Math.min(spare, Math.ceil(widths.get(i)! / 2) + 2);
      widths.set(i, widths.get(i)! + extra);
      spare -= extra;
    }
  }
  const last = visible[visible.length - 1];
  const line = (cells: readonly string[], bold = false, head = false): string => {
    let text = '';
    for (const i of visible) {
      const width = widths.get(i)!;
      const cut = truncate(head ? (cells[i] ?? '') : shown(i, cells[i] ?? ''), width);
      const pad = width - displayWidth(cut);
      const padded = pad <= 0 ? cut : columns[i]!.numeric ? ' '.repeat(pad) + cut : i === last ? cut : cut + ' '.repeat(pad);
      text += i === visible[0] ? '' : '  ';
      text += bold ? paint(io.color).bold(padded) : padded;
    }
    return `${text.trimEnd()}\n`;
  };
  return { head: line(headers, true, true), line: (cells) => line(cells), dropped, width: total };
}

/** The stderr note for columns a table left out. */
function droppedNote(dropped: readonly string[]): string {
  return `left out: ${dropped.join(', ')} (see all with --format tsv or --json)`;
}

/** That note, wrapped at words to `width`, so a narrow terminal does not break it mid-word. */
export function leftOutNote(io: Io, dropped: readonly string[], width = Math.max(20, io.columns)): void {
  for (const l of wrap(droppedNote(dropped), width, { breakWords: false })) note(io, l);
}

/** A whole table as text (for stderr listings such as the confirmation's signals); no colour. */
export function formatTable(io: Io, columns: readonly TableColumn[], rows: readonly unknown[][], now: () => number = Date.now): string {
  const cells = rows.map((r) =>
    r.map((v, i) => (columns[i]?.time && typeof v === 'string' ? sanitizeLine(relativeTime(v, now())) : tableField(v))),
  );
  const layout = tableLayout({ ...io, color: false }, columns, cells);
  const text = layout.head + cells.map((r) => layout.line(r)).join('');
  return layout.dropped.length > 0 ? `${text}(left out to fit: ${layout.dropped.join(', ')})\n` : text;
}

/**
 * Widths from `natural` down to at most `total` (cells plus two-space gaps) where the least widths
 * allow: flexible columns first, then any; the widest column is narrowed to the next widest each
 * step, so the cut is shared rather than taken from one column.
 */
export function fitWidths(natural: readonly number[], least: readonly number[], flexible: readonly boolean[], total: number): number[] {
  const widths = [...natural];
  const gap = 2 * (widths.length - 1);
  let excess = widths.reduce((a, b) => a + b, 0) + gap - total;
  for (const pass of [true, false]) {
    while (excess > 0) {
      let widest = -1;
      let next = 0;
      for (let i = 0; i < widths.length; i++) {
        if ((pass && !flexible[i]) || widths[i]! <= least[i]!) continue;
        if (widest < 0 || widths[i]! > widths[widest]!) {
          if (widest >= 0) next = Math.max(next, widths[widest]!);
          widest = i;
        } else next = Math.max(next, widths[i]!);
      }
      if (widest < 0) break;
      const floor = Math.max(least[widest]!, next, widths[widest]! - excess);
      // Equal widths: one character at a time, so the cut goes round them.
      const cut = Math.max(1, widths[widest]! - floor);
      widths[widest]! -= cut;
      excess -= cut;
    }
  }
  return widths;
}

/** Aligned `key  value` lines, sanitised; the key dimmed when colour is on. */
export function pairsText(pairs: ReadonlyArray<readonly [string, unknown]>, color = false, columns?: number): string {
  const width = Math.max(0, ...pairs.map(([k]) => displayWidth(sanitizeLine(k))));
  // On a terminal a value wider than what is left of the line continues under itself, so a long
  // description does not wrap back under the keys.
  const room = columns === undefined ? Number.POSITIVE_INFINITY : Math.max(20, columns - width - 2);
  let text = '';
  for (const [k, v] of pairs) {
    const key = sanitizeLine(k).padEnd(width);
    const [first = '', ...rest] = room === Number.POSITIVE_INFINITY ? [tableField(v)] : wrap(tableField(v), room, { breakWords: false });
    text += `${paint(color).dim(key)}  ${first}\n`;
    for (const more of rest) text += `${' '.repeat(width + 2)}${more}\n`;
  }
  return text;
}

/**
 * A line for a person fitted to `columns`: what does not fit continues under itself, indented
 * as far as the line's value starts (after `key:  ` or `✓ `), so the labels stay a column.
 */
export function hangLine(line: string, columns: number, indent?: number): string {
  if (displayWidth(line) <= columns) return line;
  // An indented line continues at its indent; a `key:  value` line under its value.
  const gap = /^ +|^\S.*?\S( {2,})/.exec(line);
  let at = indent ?? (gap ? gap.index + gap[0].length : 0);
  if (at > columns / 2) at = 2;
  const [first = '', ...rest] = wrap(line.slice(at), Math.max(20, columns - at), { breakWords: false });
  return [line.slice(0, at) + first, ...rest.map((r) => ' '.repeat(at) + r)].join('\n');
}

/** Text fitted line by line to the terminal when stdout is one; piped text is left alone. */
function fitText(io: Io, text: string): string {
  if (!io.stdoutIsTTY) return text;
  return text
    .split('\n')
    .map((l) => hangLine(l, Math.max(20, io.columns)))
    .join('\n');
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
  await write(io.stdout, pairsText(pairs, io.color, io.stdoutIsTTY ? io.columns : undefined));
}

/** One check of a checklist (`doctor`). */
export interface CheckLine {
  state: 'ok' | 'failed' | 'skipped';
  text: string;
  hint?: string | undefined;
}

/** `✓ name: detail` lines with an indented `→ hint` under failures; marks coloured on a TTY. */
export async function printChecklist(io: Io, checks: readonly CheckLine[]): Promise<void> {
  const colour = paint(io.color);
  let text = '';
  // On a terminal a long check continues under its text, a hint under the hint's text.
  const fitLine = (line: string, indent: number): string => (io.stdoutIsTTY ? hangLine(line, Math.max(20, io.columns), indent) : line);
  for (const check of checks) {
    const mark = check.state === 'skipped' ? colour.dim('-') : check.state === 'ok' ? colour.green('✓') : colour.red('✗');
    const [first = '', ...rest] = fitLine(`- ${sanitizeLine(check.text)}`, 2).split('\n');
    text += `${mark}${first.slice(1)}\n${rest.map((r) => `${r}\n`).join('')}`;
    if (check.state === 'failed' && check.hint) {
      const [h = '', ...more] = fitLine(`  - ${sanitizeLine(check.hint)}`, 4).split('\n');
      text += `  ${colour.dim('→')}${h.slice(3)}\n${more.map((r) => `${r}\n`).join('')}`;
    }
  }
  await write(io.stdout, text);
}

/** Free text for a person on stdout (a status summary): sanitised, line breaks kept. */
export async function printText(io: Io, text: string): Promise<void> {
  await write(io.stdout, fitText(io, sanitizeText(text)));
}

/**
 * A body the service sent as text (a `text/plain` reply, JSON that did not parse, an MCP text
 * result): exact to a pipe or file, where a script reads it; sanitised on a terminal, where an
 * escape sequence in it would clear the screen, retitle the window or write the clipboard.
 * Ends with a newline either way.
 */
export async function printServiceText(io: Io, text: string): Promise<void> {
  const shown = io.stdoutIsTTY ? sanitizeText(text) : text;
  await write(io.stdout, shown.endsWith('\n') ? shown : `${shown}\n`);
}

/** One line for a person on stderr (a note, a warning), sanitised whatever stream it goes to. */
export function note(io: Io, line: string): void {
  // On a terminal a long note continues under itself, broken at spaces (see `hangLine`).
  const text = sanitizeText(line);
  io.stderr.write(
    `${
      io.stderrIsTTY
        ? text
            .split('\n')
            .map((l) => hangLine(l, Math.max(20, io.columns)))
            .join('\n')
        : text
    }\n`,
  );
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
  const { format, io } = target;
  // `--fields` picks among the parts' columns here; the rows printed below are not shaped again.
  const fields = shapes.get(io)?.fields;
  if (format === 'table') {
    // A name picks the table's column; a dotted path reads into the part's data columns or its row.
    const pick = (s: Section<any>): readonly Column<any>[] => {
      const shown = s.tableColumns ?? s.columns;
      if (!fields) return shown;
      return fields.flatMap((f) => selectColumns(f.includes('.') ? s.columns : shown, [f], (row) => row));
    };
    // Notes after the last block, not between two of them (and the caller's own, if it collects).
    const own = target.leftOut === undefined;
    const leftOut: string[] = target.leftOut ?? [];
    target = { ...target, leftOut };
    let first = true;
    for (const s of sections) {
      const rows = [...s.rows];
      if (rows.length === 0 && s.title === undefined) continue;
      if (!first) await write(io.stdout, '\n');
      first = false;
      if (s.title !== undefined) await write(io.stdout, `${sanitizeLine(s.title)}\n`);
      const columns = pick(s);
      if (columns.length === 0) continue;
      if (s.card && rows.length === 1) {
        await write(
          io.stdout,
          pairsText(
            columns.map((c) => [c.header, c.value(rows[0])] as const),
            io.color,
            io.stdoutIsTTY ? io.columns : undefined,
          ),
        );
      } else if (rows.length > 0) await printRowsOf(target, rows, columns);
    }
    if (own && leftOut.length > 0) leftOutNote(io, leftOut);
    return;
  }
  // One table: `section`, then the union of the parts' columns by key, in order of first appearance.
  type Flat = { part: number; row: unknown };
  const byKey = sections.map((s) => new Map(s.columns.map((c) => [columnKey(c), c] as const)));
  const keys: string[] = [];
  for (const s of sections) for (const c of s.columns) if (!keys.includes(columnKey(c))) keys.push(columnKey(c));
  let columns: Column<Flat>[] = [
    { header: 'section', value: (f) => sections[f.part]!.name },
    ...keys.map(
      (k): Column<Flat> => ({
        header: k,
        key: k,
        value: (f) => byKey[f.part]!.get(k)?.value(f.row),
        members: byKey.find((m) => m.get(k)?.members)?.get(k)?.members,
      }),
    ),
  ];
  // Chosen fields: those columns only, in that order; `section` too only when it is chosen.
  if (fields) columns = selectColumns(columns, fields, (f) => f.row);
  const rows: Flat[] = [];
  for (const [part, s] of sections.entries()) for (const row of s.rows) rows.push({ part, row });
  await printRowsOf(target, rows, columns, (f) => f.row);
}

/** printRows for columns already chosen (the parts of `printSections`): `--fields` is not applied again. */
async function printRowsOf<T>(
  target: OutputTarget,
  rows: readonly T[],
  columns: readonly Column<T>[],
  rowJson: (row: T) => unknown = (row) => row,
): Promise<number> {
  const out = new Batch(target.io.stdout);
  return printRowsTo(out, target, rows, columns, rowJson, undefined);
}

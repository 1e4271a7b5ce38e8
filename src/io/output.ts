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
 * write() per row (src/io/write.ts).
 *
 * This module holds the printers, the one place that decides per format; what they are made of
 * lives beside it: cell spelling in `cells.ts`, the table for people in `table.ts`, lines for people
 * (notes, pairs, fitted text) in `lines.ts`, csv/tsv columns in `columns.ts`.
 */
import type { Io } from './io.js';
import type { OutputFormat } from '../formats.js';
import { colourJson, paint } from './colors.js';
import { escapeHiddenJson, keepLiterals, stringifyJson } from './json.js';
import { type Column, columnKey, exactInRow, expandColumns, pickFields, selectColumns } from './columns.js';
import { csvField, tsvField } from './cells.js';
import { fitText, hangLine, leftOutNote, pairsText } from './lines.js';
import { streamTable } from './table.js';
import { sanitizeLine, sanitizeText } from './sanitize.js';
import { Batch, write } from './write.js';
import { printRecordLines } from './record.js';

// The parts the printers are made of, for the commands and tests that use one directly.
export type { Column } from './columns.js';
export { columnKey, pickFields, selectColumns } from './columns.js';
export { absoluteTime, cell, csvField, idPrefixLength, isFormulaLike, relativeTime, shortId, tableField, tsvField } from './cells.js';
export { fitWidths, formatTable, type TableColumn } from './table.js';
export { hangLine, leftOutNote, note, pairsText } from './lines.js';
export { write } from './write.js';

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
  if (format === 'table') allColumns = tableView(allColumns, target.wide);
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

/** The columns as a table shows them: `tableValue` for `value`, `wideOnly` ones only with --wide. */
export function tableView<T>(columns: readonly Column<T>[], wide: boolean | undefined): readonly Column<T>[] {
  return columns.filter((c) => wide || !c.wideOnly).map((c) => (c.tableValue ? { ...c, value: c.tableValue } : c));
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
  /** Not shown in a table (a summary above it says the same); tsv and csv still have its rows. */
  tableless?: boolean;
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
      if (s.tableless) continue;
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
  if (format === 'tsv' && sections.length === 1 && sections[0]!.card && rows.length === 1)
    return printRecordLines(io, rows[0]!, fields ? columns : columns.slice(1), (f) => f.row);
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

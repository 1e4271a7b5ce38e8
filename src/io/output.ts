/**
 * The one output module: every command writes its data through here, in one of the formats of
 * `formats.ts` (the names) and `io/formats.ts` (each one's record: documents or rows, for people
 * or for programs, and its writer). The printers ask the record, never the name:
 *
 * - `table` (TTY default): aligned columns fitted to the terminal, for people; cells sanitised.
 * - `tsv` (piped default): no header; cells sanitised, so a tab or newline inside a value shows
 *   as `\t` / `\n` and every row stays one line.
 * - `csv`: RFC 4180 (CRLF, quotes doubled, one lower_snake header row, written even when no row
 *   follows), cells sanitised and neutralised against spreadsheet formulas (a leading `'`).
 * - `json` / `ndjson`: the API's JSON exactly (indented on a TTY, compact when piped).
 *
 * Cell spelling is the same in every command: booleans `true`/`false`, numbers and times as the
 * server sent them, null as an empty cell, arrays JSON-encoded in the cell; in tsv/csv a nested
 * object is dotted columns (`composite.score`, src/io/columns.ts), in a table JSON; tsv/csv columns
 * are the declared ones whatever the data, then one per member no column shows (a member the spec
 * does not list), in first-seen order. A reply with several parts (a keyword card with sections,
 * an analyses result with runs and skipped items, a status with its analyses) goes through
 * `printSections`: one document in tsv/csv whose first column, `section`, names the part each row
 * belongs to (with `--fields`, only when chosen). See docs/scripting.md, "Formats", "Loading
 * csv and tsv" and "Exact data".
 *
 * Output is written in batches (a few KiB at a time, and at least every 100 ms while rows keep
 * coming), waiting for the stream to drain, so `--all` streams with flat memory and without one
 * write() per row (src/io/write.ts).
 *
 * What the printers are made of lives beside them: the format records and their writers in
 * `formats.ts`, JSON documents and `--jq` in `documents.ts`, cell spelling in `cells.ts`, the table
 * for people in `table.ts`, lines for people (notes, pairs, fitted text) in `lines.ts`, csv/tsv
 * columns in `columns.ts`.
 */
import type { Io } from './io.js';
import { paint } from './colors.js';
import { type JqProgram, jsonText, writeJq } from './documents.js';
import { keepLiterals, stringifyJson } from './json.js';
import { type Column, columnKey, memberColumns, pickFields, selectColumns, unknownMembers } from './columns.js';
import { forPeople, printsRecordAsLines, printsWholeReply } from '../formats.js';
import type { Output, OutputShape, RowsJob } from './formats.js';
import { fitText, hangLine, leftOutNote, pairsText } from './lines.js';
import { sanitizeLine, sanitizeText } from './sanitize.js';
import { Batch, write } from './write.js';
import { printRecordLines } from './record.js';

/** `--fields` applied to a whole JSON document: to its rows, wherever the command keeps them. */
function shapeDocument(value: unknown, shape: OutputShape): unknown {
  const fields = shape.fields;
  if (!fields) return value;
  const pick = shape.project ?? ((r: unknown) => pickFields(r, fields));
  if (Array.isArray(value)) return value.map(pick);
  if (shape.rows !== undefined && value !== null && typeof value === 'object') {
    const rows = (value as Record<string, unknown>)[shape.rows];
    if (Array.isArray(rows)) {
      const copy = { ...value, [shape.rows]: rows.map(pick) };
      keepLiterals(value, copy);
      return copy;
    }
  }
  return pick(value);
}

/** One document through `--jq`, written out before this returns. */
async function printJq(io: Io, jq: JqProgram, json: string, pretty: boolean): Promise<void> {
  const out = new Batch(io.stdout);
  await writeJq(io, jq, json, pretty, out);
  await out.flush();
}

/**
 * Prints one JSON document (the API's body) and a newline; exact, never sanitised. `text` is the
 * document as the service sent it, when the caller has it: `--jq` reads that, as jq would.
 */
export async function printJson(output: Output, value: unknown, text?: string): Promise<void> {
  const { io, jq } = output;
  const shaped = shapeDocument(value, output);
  if (jq) return printJq(io, jq, text !== undefined && shaped === value ? text : stringifyJson(shaped), io.stdoutIsTTY);
  await write(io.stdout, `${jsonText(shaped, io)}\n`);
}

/**
 * Prints one compact JSON document on its own line (ndjson, or a document in a stream of them):
 * `--fields` and `--jq` apply to each.
 */
export async function printJsonLine(output: Output, value: unknown): Promise<void> {
  const { io, jq } = output;
  const shaped = shapeDocument(value, output);
  if (jq) return printJq(io, jq, stringifyJson(shaped), false);
  await write(io.stdout, `${stringifyJson(shaped)}\n`);
}

/**
 * Writes one compact JSON document on its own line (for callbacks such as the watch's per-status
 * line); without `--jq` the stream buffers and this returns at once, order kept.
 */
export function writeJsonLine(output: Output, value: unknown): Promise<void> | undefined {
  if (output.jq) return printJsonLine(output, value);
  output.io.stdout.write(`${stringifyJson(shapeDocument(value, output))}\n`);
  return undefined;
}

/**
 * Prints a reply that is one document in a format of documents: as the one document (indented on
 * a terminal) where the format prints replies whole, else as one compact line.
 */
export async function printDocument(output: Output, value: unknown): Promise<void> {
  if (printsWholeReply(output.format)) await printJson(output, value);
  else await printJsonLine(output, value);
}

/**
 * Prints rows in the format asked (src/io/formats.ts: a table, tsv, csv, a JSON array, ndjson),
 * streaming from an iterable. Only a table holds rows: the first ones, to size its columns.
 * Returns the number of rows printed.
 */
export async function printRows<T>(
  output: Output,
  rows: AsyncIterable<T> | Iterable<T>,
  allColumns: readonly Column<T>[],
  rowJson: (row: T) => unknown = (row) => row,
): Promise<number> {
  return writeRows({
    out: new Batch(output.io.stdout),
    target: output,
    rows,
    columns: allColumns,
    rowJson,
    fields: output.fields,
    project: output.project,
    jq: output.jq,
    addUnknown: true,
  });
}

async function writeRows<T>(job: RowsJob<T>): Promise<number> {
  try {
    return await job.target.record.writeRows(job);
  } catch (error) {
    // A walk that fails part way (a page cap, a dropped connection): the rows it gave are printed,
    // then the error, so what stdout holds is every row received, never a cut batch.
    await job.out.flush().catch(() => undefined);
    throw error;
  }
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
  /**
   * Members of this part's rows that other parts show (a card's `--include` sections, a status's
   * `analyses`): no columns of their own here. Every other member no column shows gets one in
   * tsv/csv, after every part's declared columns.
   */
  elsewhere?: readonly string[];
}

/**
 * A reply made of parts, as one document. tsv/csv: one table whose first column is `section`,
 * followed by the union of the parts' declared columns (by key, in order of first appearance), then
 * columns for members no part declares; a row leaves the columns of other parts empty. Table: each
 * part as its own block, parts with a title under it. JSON formats are the command's business (the
 * API's body, exactly).
 */
export async function printSections(target: Output, sections: ReadonlyArray<Section<any>>): Promise<void> {
  const { format, io, fields } = target;
  // `--fields` picks among the parts' columns here; the rows printed below are not shaped again.
  if (forPeople(format)) {
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
  // One table: `section`, then the union of the parts' columns by key, in order of first
  // appearance, then each part's members no column shows (without --fields, which chose).
  type Flat = { part: number; row: unknown };
  const parts = sections.map((s) => ({ ...s, rows: [...s.rows] }));
  const extra = parts.map((s) =>
    fields
      ? []
      : memberColumns(
          unknownMembers(s.columns, s.rows, (row) => row, s.elsewhere),
          (row: unknown) => row,
        ),
  );
  const byKey = parts.map((s, i) => new Map([...s.columns, ...extra[i]!].map((c) => [columnKey(c), c] as const)));
  const keys: string[] = [];
  for (const list of [...parts.map((s) => s.columns), ...extra])
    for (const c of list) if (!keys.includes(columnKey(c))) keys.push(columnKey(c));
  let columns: Column<Flat>[] = [
    { header: 'section', value: (f) => parts[f.part]!.name },
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
  for (const [part, s] of parts.entries()) for (const row of s.rows) rows.push({ part, row });
  // A card as `field<TAB>value` lines, unless --header asked for a table to load (then one row under its header).
  if (printsRecordAsLines(format) && !target.header && sections.length === 1 && sections[0]!.card && rows.length === 1)
    return printRecordLines(io, rows[0]!, fields ? columns : columns.slice(1), (f) => f.row);
  await printRowsOf(target, rows, columns, (f) => f.row);
}

/** printRows for columns already chosen (the parts of `printSections`): `--fields` is not applied again. */
async function printRowsOf<T>(
  target: Output,
  rows: readonly T[],
  columns: readonly Column<T>[],
  rowJson: (row: T) => unknown = (row) => row,
): Promise<number> {
  return writeRows({
    out: new Batch(target.io.stdout),
    target,
    rows,
    columns,
    rowJson,
    fields: undefined,
    jq: target.jq,
    addUnknown: false,
  });
}

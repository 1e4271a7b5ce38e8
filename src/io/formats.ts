/**
 * The output formats as records (issue 40, item 4): what each is made of (JSON documents or rows of
 * cells) and who reads it (a person at a terminal or a program), from `FORMAT_TRAITS` in the leaf
 * src/formats.ts, and its writer. Every printer in src/io asks the record or its traits, never the
 * format's name, so a new format is its name and traits in src/formats.ts and its record here: the
 * compiler asks for both and everything they must say. test/unit/format-records.test.ts holds the
 * printers to it and runs every printer in every format.
 */
import type { Io } from './io.js';
import { FORMAT_TRAITS, type FormatTraits, OUTPUT_FORMATS, type OutputFormat } from '../formats.js';
import { csvField, tsvField } from './cells.js';
import {
  type Column,
  columnKey,
  exactInRow,
  expandColumns,
  memberColumns,
  pickFields,
  selectColumns,
  shownMembers,
  tableView,
  unknownMembers,
} from './columns.js';
import { type JqProgram, writeJq } from './documents.js';
import { stringifyJson } from './json.js';
import { leftOutNote, note } from './lines.js';
import { streamTable } from './table.js';
import type { Batch } from './write.js';
import { csvReader, ndjsonReader, type RowReader, tsvReader } from './read-back.js';

/**
 * What `--fields` and `--jq` ask of a run's output, checked against the command's declaration and
 * compiled before any request (src/commands/shared/scripting.ts).
 */
export interface OutputShape {
  /** `--fields`: the members/columns to keep, in this order. */
  fields?: readonly string[] | undefined;
  /**
   * Where a JSON document's rows are: the member holding the list (`data`, `projects`) or
   * undefined when the document is the row (a card, a status) or an array of rows.
   */
  rows?: string | undefined;
  /** `--fields` in JSON: a row with the chosen members at their paths (src/commands/shared/fields.ts). */
  project?: ((row: unknown) => unknown) | undefined;
  /** `--jq`: a compiled expression (src/io/jq.ts); applied to each document printed, as JSON text. */
  jq?: JqProgram | undefined;
}

/**
 * A run's one output (`ctx.output()`, built once after the global flags are checked): where it
 * goes, in which format (its name and record), how tables show times and width, and what
 * `--fields`/`--jq` ask. Every printer that shapes data takes it as its first argument, so what
 * a command's output is made of is in the call.
 */
export interface Output extends OutputShape {
  io: Io;
  format: OutputFormat;
  /** The format's record (`FORMATS[format]`): what the printers ask, never the name. */
  record: FormatRecord;
  /** "Now" for relative times in tables (the context's clock). */
  now: () => number;
  /** --time absolute: tables show times as UTC timestamps, not "5 min ago". */
  time: 'relative' | 'absolute';
  /** --wide: tables keep full ids and every column, whatever the terminal's width. */
  wide: boolean;
  /** --header: tsv starts with a header row, as csv always does. */
  header?: boolean | undefined;
  /**
   * Where the headers tables leave out are collected until every section is printed
   * (printSections, on a copy of the run's output), so the `left out:` note never lands between
   * two blocks; absent: each table writes its own note after itself.
   */
  leftOut?: string[] | undefined;
  /** The output continues a file that already holds its header row (`--resume`): csv and tsv print none. */
  headerWritten?: boolean | undefined;
}

/** The output of a run: its streams, its format and table settings, and the shape `--fields`/`--jq` chose. */
export function makeOutput(
  io: Io,
  settings: {
    format: OutputFormat;
    time?: 'relative' | 'absolute' | undefined;
    wide?: boolean | undefined;
    header?: boolean | undefined;
    now?: (() => number) | undefined;
  },
  shape: OutputShape = {},
): Output {
  return {
    io,
    format: settings.format,
    record: formatOf(settings.format),
    now: settings.now ?? Date.now,
    time: settings.time ?? 'relative',
    wide: settings.wide ?? false,
    header: settings.header ?? false,
    fields: shape.fields,
    rows: shape.rows,
    project: shape.project,
    jq: shape.jq,
  };
}

/** Rows to write, and how the run shapes them. */
export interface RowsJob<T> {
  out: Batch;
  target: Output;
  rows: AsyncIterable<T> | Iterable<T>;
  /** The command's columns, before `--fields` chose among them. */
  columns: readonly Column<T>[];
  /** A row as JSON: what the JSON formats print, and where csv/tsv find members no column shows. */
  rowJson: (row: T) => unknown;
  /** `--fields`, when given: those columns or members only, in that order. */
  fields: readonly string[] | undefined;
  /** `--fields` in JSON: the row with the chosen members at their declared paths; absent: picked by name. */
  project?: ((row: unknown) => unknown) | undefined;
  jq: JqProgram | undefined;
  /**
   * csv/tsv: add a column for each member of the rows no column shows (`unknownMembers`). Off where
   * the caller already did (the parts of a reply, each with its own columns) or `--fields` chose.
   */
  addUnknown: boolean;
}

/**
 * A format's record: its name, what it is (`FORMAT_TRAITS` in src/formats.ts: documents or rows,
 * for people or for programs) and its writer.
 */
export type FormatRecord<F extends OutputFormat = OutputFormat> = FormatTraits & {
  readonly name: F;
  /** Writes rows (a list, or the parts of a reply) to `job.out`, flushed; the number written. */
  writeRows<T>(job: RowsJob<T>): Promise<number>;
  /** Reads back rows this format wrote (`--resume`, read-back.ts); absent where a file cannot be continued. */
  readBack?: ((fields: readonly string[] | undefined) => RowReader) | undefined;
};

/** The columns `--fields` chose (with the row's JSON, a member no column declares too). */
function chosen<T>(columns: readonly Column<T>[], job: RowsJob<T>): readonly Column<T>[] {
  return job.fields ? selectColumns(columns, job.fields, job.rowJson) : columns;
}

/**
 * csv and tsv columns, fixed before the first line: the declared ones (or those `--fields` chose)
 * whatever the data, then a column for each member no column shows, in first-seen order; objects
 * as dotted columns. Known from the rows in hand by then: all of a list in memory, the first row
 * of a stream. `later(row)` warns once when a later row of a stream carries a member the columns
 * lack (the JSON formats keep it).
 */
async function programColumns<T>(
  given: RowsJob<T>,
): Promise<{ columns: Column<T>[]; rows: AsyncIterable<T> | Iterable<T>; later: (row: T) => void }> {
  // Each column asks for the row's JSON (a member column, the number literal check below), and
  // `rowJson` may build it anew (a batch row led by its input): once a row, not once a column.
  const rowJson = lastRowMemo(given.rowJson);
  const job: RowsJob<T> = { ...given, rowJson };
  let rows = job.rows;
  let sample: readonly T[];
  if (Array.isArray(rows)) sample = rows;
  else {
    const { first, rest } = await peek(rows);
    sample = first;
    rows = rest;
  }
  let columns = [...chosen(job.columns, job)];
  let later = (_row: T): void => undefined;
  if (job.addUnknown && !job.fields) {
    const unknown = unknownMembers(columns, sample, rowJson);
    columns = [...columns, ...memberColumns(unknown, rowJson)];
    if (!Array.isArray(job.rows)) later = laterMembers(job, columns);
  }
  columns = expandColumns(columns, sample);
  // A number keeps the service's spelling where the row shows which member it is.
  columns = columns.map((c) => ({
    ...c,
    value: (row: T) => {
      const value = c.value(row);
      return typeof value === 'number' ? exactInRow(value, rowJson(row)) : value;
    },
  }));
  return { columns, rows, later };
}

/**
 * `rowJson` remembering the last row it was asked about: the columns of one row ask in turn, and a
 * row's JSON may be a new object each time (`ledBy`), which at a million rows is most of what a
 * batch allocates (docs/performance.md, "Batches and walks at the latency limit").
 */
function lastRowMemo<T>(rowJson: (row: T) => unknown): (row: T) => unknown {
  let lastRow: T | undefined;
  let lastJson: unknown;
  let seen = false;
  return (row) => {
    if (!seen || row !== lastRow) {
      lastJson = rowJson(row);
      lastRow = row;
      seen = true;
    }
    return lastJson;
  };
}

/** Warns once when a streamed row's JSON has a top-level member none of the columns reads. */
function laterMembers<T>(job: RowsJob<T>, columns: readonly Column<T>[]): (row: T) => void {
  const known = new Set(columns.flatMap((c) => shownMembers(c).map((m) => m.split('.')[0])));
  let warned = false;
  return (row) => {
    if (warned) return;
    const json = job.rowJson(row);
    if (json === null || typeof json !== 'object' || Array.isArray(json)) return;
    const extra = Object.keys(json).filter((k) => !known.has(k));
    if (extra.length === 0) return;
    warned = true;
    note(
      job.target.io,
      `warning: later rows carry members the columns were fixed without (${extra.join(', ')}): --format ndjson or json keeps them, or name them with --fields`,
    );
  };
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

/** A row as the JSON formats print it: `--fields` picks its members. */
function jsonOf<T>(job: RowsJob<T>): (row: T) => unknown {
  const fields = job.fields;
  if (!fields) return job.rowJson;
  const pick = job.project ?? ((r: unknown) => pickFields(r, fields));
  return (row) => pick(job.rowJson(row));
}

/**
 * One line per row, cells joined by `separator`; a header first where `header` says (csv always,
 * tsv with --header), even when there are no rows.
 */
function programRows(field: (value: unknown) => string, separator: string, end: string, header: (target: Output) => boolean) {
  return async <T>(job: RowsJob<T>): Promise<number> => {
    const { columns, rows, later } = await programColumns(job);
    const { out } = job;
    // A loader gets the same header whatever the data, and an empty result is that header alone.
    if (header(job.target) && !job.target.headerWritten) await out.add(`${columns.map((c) => field(columnKey(c))).join(separator)}${end}`);
    let count = 0;
    for await (const row of rows) {
      later(row);
      const wait = out.push(`${columns.map((c) => field(c.value(row))).join(separator)}${end}`);
      if (wait) await wait;
      count++;
    }
    await out.flush();
    return count;
  };
}

/**
 * Every output format. `satisfies` with a mapped type: a name in OUTPUT_FORMATS without its
 * record, or a record without a writer or reader, does not compile.
 */
export const FORMATS = {
  table: {
    ...FORMAT_TRAITS.table,
    name: 'table',
    async writeRows(job) {
      const { target, out } = job;
      const table = await streamTable(target, chosen(tableView(job.columns, target.wide || job.fields !== undefined), job), job.rows, out);
      await out.flush();
      // After the table, so the note does not land between its lines on a terminal; wrapped at
      // words to the width, so a narrow terminal does not break it mid-word.
      if (target.leftOut) target.leftOut.push(...table.dropped);
      else if (table.dropped.length > 0) leftOutNote(target.io, table.dropped, table.width);
      return table.count;
    },
  },
  // tsv: no header unless asked (`cut -f2`, `while read` and `sort` see data only, as the contract
  // has settled); --header gives loaders (pandas, R, csv.DictReader) the names.
  tsv: {
    ...FORMAT_TRAITS.tsv,
    name: 'tsv',
    writeRows: programRows(tsvField, '\t', '\n', (target) => target.header === true),
    readBack: tsvReader,
  },
  csv: { ...FORMAT_TRAITS.csv, name: 'csv', writeRows: programRows(csvField, ',', '\r\n', () => true), readBack: csvReader },
  json: {
    ...FORMAT_TRAITS.json,
    name: 'json',
    async writeRows(job) {
      const { io } = job.target;
      const { out, jq } = job;
      const toJson = jsonOf(job);
      let count = 0;
      if (jq) {
        // jq sees what it would see in `--json | jq`: the whole collection as one array (held in
        // memory, as jq would).
        const all: unknown[] = [];
        for await (const row of job.rows) {
          all.push(toJson(row));
          count++;
        }
        await writeJq(io, jq, stringifyJson(all), io.stdoutIsTTY, out);
      } else {
        // One JSON array, streamed: "[", items joined by ",", "]".
        const pretty = io.stdoutIsTTY;
        for await (const row of job.rows) {
          const item = pretty ? stringifyJson(toJson(row), 2).replace(/\n/g, '\n  ') : stringifyJson(toJson(row));
          const wait = out.push(`${count === 0 ? '[' : ','}${pretty ? '\n  ' : ''}${item}`);
          if (wait) await wait;
          count++;
        }
        await out.add(count === 0 ? '[]\n' : `${pretty ? '\n' : ''}]\n`);
      }
      await out.flush();
      return count;
    },
  },
  ndjson: {
    ...FORMAT_TRAITS.ndjson,
    name: 'ndjson',
    readBack: ndjsonReader,
    async writeRows(job) {
      const { out, jq } = job;
      const toJson = jsonOf(job);
      let count = 0;
      for await (const row of job.rows) {
        // With --jq each item on its own, as `--format ndjson | jq` would see it.
        if (jq) await writeJq(job.target.io, jq, stringifyJson(toJson(row)), false, out);
        else {
          const wait = out.push(`${stringifyJson(toJson(row))}\n`);
          if (wait) await wait;
        }
        count++;
      }
      await out.flush();
      return count;
    },
  },
} as const satisfies { readonly [F in OutputFormat]: FormatRecord<F> };

/** The record of a format. */
export function formatOf(format: OutputFormat): FormatRecord {
  return FORMATS[format];
}

/** Every record, in OUTPUT_FORMATS' order. */
export function allFormats(): FormatRecord[] {
  return OUTPUT_FORMATS.map(formatOf);
}

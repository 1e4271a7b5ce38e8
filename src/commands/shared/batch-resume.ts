/**
 * `--resume FILE` (issue 57): a batch stopped part way (SIGTERM, a lost connection, a laptop lid)
 * continues where its output ends, `rsi … - --resume out.ndjson < ids >> out.ndjson`.
 *
 * The file is the previous run's output in this run's format (ndjson, csv with its header, tsv with
 * or without one). Its rows are read in order beside the input lines: each answer must be for the
 * next input line (or for an earlier one whose answer was transient, see below), else the file is
 * not this input's output and the run stops before any request. Inputs answered for good (a card,
 * links, a 404, a validation error) are skipped; inputs whose error was transient (`error_code`
 * `unavailable`: a timeout, a 5xx, a 429) are asked again, first, and their rows follow the file's
 * end. A command whose answer spans rows (an input's links) asks the file's last input again and
 * leaves out the rows the file already holds, as a stop may have cut that answer short.
 *
 * Memory: the file is read as the input is, one row at a time; only transient inputs are held.
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { csvField, tsvField } from '../../io/cells.js';
import type { BatchLine } from './batch-lines.js';
import type { BatchOptions } from './batch.js';

/** The `error_code` of an answer that may pass when asked again (ServiceUnavailableError's code). */
const TRANSIENT = 'unavailable';

/** One answer in the file: the input cell as printed, whether it was transient, its rows. */
interface Answer {
  input: string;
  transient: boolean;
  rows: number;
}

export interface Resumed {
  /** Inputs the file answered for good (known once `skip` has read the file). */
  readonly skipped: number;
  /** Whether the file already holds a header row (csv, or tsv with one): this run prints none. */
  readonly hasHeader: boolean;
  /** The input lines this run still has to answer: the transient ones first, then those after the file's end. */
  skip(lines: AsyncIterable<BatchLine>): AsyncGenerator<BatchLine>;
  /** Rows of `input`'s answer the file already holds (a cut answer of many rows); once. */
  alreadyPrinted(input: string): number;
}

/** How a row of the file is read: which cell is the input, and whether it is a transient error. */
interface RowReader {
  /** The input as this format prints it (to compare with the file's cell). */
  printed(item: string): string;
  /** undefined: not a row (a header). */
  read(line: string, n: number): { input: string; transient: boolean; rest: string } | undefined;
  hasHeader(): boolean;
}

export async function readResume(ctx: Context, options: BatchOptions): Promise<Resumed> {
  const file = options.resume!;
  const { format, fields, jq } = ctx.globals() as { format: string; fields?: string[] | undefined; jq?: unknown };
  if (jq !== undefined)
    throw new UsageError('--resume continues a file of rows, which --jq does not print', { hint: 'use --format ndjson, csv or tsv' });
  if (format === 'json' || format === 'table')
    throw new UsageError(`--resume continues a file of rows, which --format ${format} cannot do`, {
      hint: `use --format ndjson, csv or tsv, e.g. … - --format ndjson --resume ${file} >> ${file}`,
    });
  if (fields && !fields.includes('input')) throw new UsageError('--resume reads the input column of the file: --fields must include input');
  // A file that is not there yet is a run that has not started: nothing to skip.
  const handle = await open(file, 'r').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw new UsageError(`--resume: cannot read ${file}: ${error.code === 'EACCES' ? 'permission denied' : error.message}`);
  });
  let size = 0;
  let firstLine: string | undefined;
  if (handle) {
    try {
      const info = await handle.stat();
      if (info.isDirectory()) throw new UsageError(`--resume: ${file} is a directory`);
      size = info.size;
      if (size > 0) {
        // The first line says whether the file has a header row, which this run then leaves out.
        const head = Buffer.alloc(Math.min(size, 64 * 1024));
        await handle.read(head, 0, head.length, 0);
        const end = head.indexOf(0x0a);
        firstLine = head
          .subarray(0, end < 0 ? head.length : end)
          .toString('utf8')
          .replace(/\r$/, '');
        const last = Buffer.alloc(1);
        await handle.read(last, 0, 1, size - 1);
        // Appending to a cut line would glue two rows into one.
        if (last[0] !== 0x0a)
          throw new UsageError(`--resume: ${file} ends in a cut line (a run killed while writing it)`, {
            hint: `remove that last line (sed -i '$d' ${file}), then resume again`,
          });
      }
    } finally {
      await handle.close();
    }
  }
  const reader = rowReader(format, fields);
  if (firstLine !== undefined && firstLine !== '') reader.read(firstLine, 1);
  let skipped = 0;
  const partial = new Map<string, number>();
  async function* answers(): AsyncGenerator<Answer> {
    if (size === 0) return;
    const lines = createInterface({ input: createReadStream(file), crlfDelay: Number.POSITIVE_INFINITY });
    let current: (Answer & { first: string }) | undefined;
    let n = 0;
    for await (const text of lines) {
      n++;
      if (text === '' || (n === 1 && reader.hasHeader())) continue;
      const row = reader.read(text, n);
      if (!row) continue;
      // Rows of one answer are consecutive, each different; a row like the answer's first starts another.
      if (options.rows === 'many' && current && current.input === row.input && current.first !== row.rest && !row.transient) {
        current.rows++;
        continue;
      }
      if (current) yield current;
      current = { input: row.input, transient: row.transient, rows: 1, first: row.rest };
    }
    if (current) yield current;
  }
  return {
    get skipped() {
      return skipped;
    },
    get hasHeader() {
      return reader.hasHeader();
    },
    async *skip(lines) {
      const input = lines[Symbol.asyncIterator]();
      // Transient inputs by their printed input, in line order, until a later answer settles them.
      const pending = new Map<string, BatchLine[]>();
      let last: { line: BatchLine; answer: Answer } | undefined;
      let count = 0;
      for await (const answer of answers()) {
        count++;
        let line = pending.get(answer.input)?.shift();
        if (line === undefined) {
          const next = await input.next();
          if (next.done)
            throw new UsageError(`--resume: ${file} answers more inputs than stdin holds (answer ${count}, for "${answer.input}")`, {
              hint: 'resume with the input (and the command) that made the file',
            });
          line = next.value;
          if (reader.printed(line.item) !== answer.input)
            throw new UsageError(
              `--resume: ${file} is not this input's output: its answer ${count} is for "${answer.input}", but stdin line ${line.line} is "${line.item}"`,
              { hint: 'resume with the input (and the command) that made the file' },
            );
        }
        if (answer.transient) {
          const list = pending.get(answer.input) ?? [];
          list.push(line);
          pending.set(answer.input, list);
        } else skipped++;
        last = { line, answer };
      }
      const again = [...pending.values()].flat();
      // The file's last answer may have been cut short: asked again first, its rows in the file left out.
      if (options.rows === 'many' && last && !last.answer.transient) {
        skipped--;
        partial.set(last.line.item, last.answer.rows);
        yield last.line;
      }
      for (const line of again.sort((a, b) => a.line - b.line)) yield line;
      for (let next = await input.next(); !next.done; next = await input.next()) yield next.value;
    },
    alreadyPrinted(item) {
      const rows = partial.get(item) ?? 0;
      partial.delete(item);
      return rows;
    },
  };
}

/**
 * The reader of the file's rows for this run's format: ndjson reads `input` and `error_code`; csv
 * finds them by its header; tsv by its header when it has one, else `input` first (or where
 * `--fields` put it) and `error_code` where `--fields` put it, or the last cell of an error row.
 */
function rowReader(format: string, fields: readonly string[] | undefined): RowReader {
  let header = false;
  if (format === 'ndjson') {
    return {
      printed: (item) => item,
      hasHeader: () => false,
      read(line, n) {
        let row: unknown;
        try {
          row = JSON.parse(line);
        } catch {
          throw new UsageError(`--resume: line ${n} of the file is not JSON: is it this batch's --format ndjson output?`);
        }
        const { input, error_code: code } = (row ?? {}) as { input?: unknown; error_code?: unknown };
        if (typeof input !== 'string')
          throw new UsageError(`--resume: line ${n} of the file has no "input": is it the output of a batch (… - --format ndjson)?`);
        const rest = JSON.stringify({ ...(row as object), input: undefined });
        return { input, transient: code === TRANSIENT, rest };
      },
    };
  }
  const csv = format === 'csv';
  const split = csv ? csvFields : (line: string) => line.split('\t');
  const unquote = (cell: string | undefined): string | undefined =>
    cell !== undefined && csv && cell.startsWith('"') ? cell.slice(1, -1).replaceAll('""', '"') : cell;
  let inputAt = fields ? fields.indexOf('input') : 0;
  let codeAt = fields ? fields.indexOf('error_code') : -1;
  let first = true;
  return {
    printed: csv ? (item) => csvField(item) : (item) => tsvField(item),
    hasHeader: () => header,
    read(line, n) {
      const cells = split(line);
      if (first) {
        first = false;
        const names = cells.map((c) => unquote(c)!);
        // csv always has its header; tsv when it was asked for (its cells are the column keys).
        if (csv || (names.includes('input') && names.some((c) => c === 'error' || c === 'error_code' || c === 'id'))) {
          header = true;
          inputAt = names.indexOf('input');
          codeAt = names.indexOf('error_code');
          if (inputAt < 0) throw new UsageError('--resume: the file has no input column: is it the output of a batch (… - )?');
          return undefined;
        }
      }
      const input = cells[inputAt];
      if (input === undefined) throw new UsageError(`--resume: line ${n} of the file has no input cell`);
      let code: string | undefined;
      if (codeAt >= 0) code = unquote(cells[codeAt]);
      else if (!fields) {
        // tsv without a header: an error row's cells end with its error and code.
        const filled = cells.filter((c) => c !== '');
        code = filled.length === 3 ? filled[2] : undefined;
      }
      const rest = cells.filter((_, i) => i !== inputAt).join('\t');
      return { input, transient: code === TRANSIENT, rest };
    },
  };
}

/** A csv line's fields as written (quotes kept): commas inside quotes do not split. */
function csvFields(line: string): string[] {
  const out: string[] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '"') quoted = !quoted;
    else if (c === ',' && !quoted) {
      out.push(line.slice(start, i));
      start = i + 1;
    }
  }
  out.push(line.slice(start));
  return out;
}

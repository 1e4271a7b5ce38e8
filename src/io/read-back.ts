/**
 * Reading back what a format wrote (issue 57, `--resume`): a row of a previous run's output, as
 * the input cell it leads with (spelled as this format spells it), whether it is an error row
 * whose code is transient, and the rest of the row (to tell the rows of one answer apart). One
 * reader per format of rows for programs, beside its writer in formats.ts: ndjson reads `input` and
 * `error_code`; csv finds them by its header; tsv by its header when it has one, else `input`
 * first (or where `--fields` put it) and `error_code` where `--fields` put it, or the last cell of
 * an error row (an error row fills only its input, error and code).
 */
import { UsageError } from '../errors.js';
import { csvField, tsvField } from './cells.js';

/** A row read back: undefined for a header. */
export interface RowBack {
  input: string;
  /** The row's `error_code`, when it is an error row and the file carries the code. */
  code: string | undefined;
  rest: string;
}

export interface RowReader {
  /** An input as this format prints it (to compare with the file's cell). */
  printed(item: string): string;
  /** A line of the file; undefined when it is the header. */
  read(line: string, n: number): RowBack | undefined;
  /** Whether the file's first line was a header row. */
  hasHeader(): boolean;
}

/** Reads back ndjson rows. */
export function ndjsonReader(): RowReader {
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
      return { input, code: typeof code === 'string' ? code : undefined, rest };
    },
  };
}

/** Reads back csv rows (its header names the columns). */
export function csvReader(fields: readonly string[] | undefined): RowReader {
  return cellsReader(true, fields);
}

/** Reads back tsv rows, with or without a header row. */
export function tsvReader(fields: readonly string[] | undefined): RowReader {
  return cellsReader(false, fields);
}

function cellsReader(csv: boolean, fields: readonly string[] | undefined): RowReader {
  let header = false;
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
        const filled = cells.filter((c) => c !== '');
        code = filled.length === 3 ? filled[2] : undefined;
      }
      const rest = cells.filter((_, i) => i !== inputAt).join('\t');
      return { input, code, rest };
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

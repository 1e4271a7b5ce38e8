/**
 * Output formats: `table` (TTY default; cli-table3 fitted to the terminal), `tsv` (piped default; no
 * header, like gh), `csv` (RFC 4180, with a header), `json` (the API's JSON exactly: indented on a
 * TTY, compact when piped) and `ndjson` (one item per line). Data goes to stdout only.
 */
import type { Writable } from 'node:stream';
import type { Io } from './io.js';
import type { OutputFormat } from './formats.js';

export interface Column<T> {
  header: string;
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

export function jsonText(value: unknown, io: Io): string {
  return io.stdoutIsTTY ? JSON.stringify(value, null, 2) : JSON.stringify(value);
}

/** Prints one JSON document (the API's body) and a newline. */
export async function printJson(io: Io, value: unknown): Promise<void> {
  await write(io.stdout, `${jsonText(value, io)}\n`);
}

export function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map(cell).join(', ');
  if (typeof value === 'object') return JSON.stringify(value);
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return String(value);
}

function tsvCell(value: unknown): string {
  return cell(value).replace(/[\t\r\n]+/g, ' ');
}

function csvCell(value: unknown): string {
  const text = cell(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * Prints rows in a tabular format (table, tsv, csv) or as items (json array, ndjson), streaming
 * from an iterable: nothing but the table format holds more than one row in memory.
 * Returns the number of rows printed.
 */
export async function printRows<T>(
  target: OutputTarget,
  rows: AsyncIterable<T> | Iterable<T>,
  columns: readonly Column<T>[],
  toJson: (row: T) => unknown = (row) => row,
): Promise<number> {
  const { io, format } = target;
  let count = 0;
  if (format === 'json') {
    // One JSON array, streamed: "[", items joined by ",", "]".
    const pretty = io.stdoutIsTTY;
    for await (const row of rows) {
      const item = pretty ? JSON.stringify(toJson(row), null, 2).replace(/\n/g, '\n  ') : JSON.stringify(toJson(row));
      await write(io.stdout, `${count === 0 ? '[' : ','}${pretty ? '\n  ' : ''}${item}`);
      count++;
    }
    await write(io.stdout, count === 0 ? '[]\n' : `${pretty ? '\n' : ''}]\n`);
    return count;
  }
  if (format === 'ndjson') {
    for await (const row of rows) {
      await write(io.stdout, `${JSON.stringify(toJson(row))}\n`);
      count++;
    }
    return count;
  }
  if (format === 'tsv') {
    for await (const row of rows) {
      await write(io.stdout, `${columns.map((c) => tsvCell(c.value(row))).join('\t')}\n`);
      count++;
    }
    return count;
  }
  if (format === 'csv') {
    let headed = false;
    for await (const row of rows) {
      if (!headed) {
        await write(io.stdout, `${columns.map((c) => csvCell(c.header)).join(',')}\r\n`);
        headed = true;
      }
      await write(io.stdout, `${columns.map((c) => csvCell(c.value(row))).join(',')}\r\n`);
      count++;
    }
    return count;
  }
  const all: string[][] = [];
  for await (const row of rows) all.push(columns.map((c) => cell(c.value(row))));
  if (all.length > 0) await write(io.stdout, await renderTable(io, columns, all));
  return all.length;
}

/** A table fitted to the terminal: columns shrink (flexible ones first) and cells end in "…". */
export async function renderTable<T>(io: Io, columns: readonly Column<T>[], rows: string[][]): Promise<string> {
  const [{ default: Table }, { Chalk }] = await Promise.all([import('cli-table3'), import('chalk')]);
  const chalk = new Chalk({ level: io.color ? 1 : 0 });
  const natural = columns.map((c, i) => Math.max(c.header.length, ...rows.map((r) => displayWidth(r[i] ?? ''))));
  const widths = fitWidths(
    natural,
    columns.map((c) => (c.keep ? 'keep' : c.flexible ? 'flex' : 'fixed')),
    Math.max(40, io.columns),
  );
  const table = new Table({
    head: columns.map((c) => chalk.bold(c.header)),
    style: { head: [], border: [], compact: true, 'padding-left': 0, 'padding-right': 2 },
    chars: {
      top: '',
      'top-mid': '',
      'top-left': '',
      'top-right': '',
      bottom: '',
      'bottom-mid': '',
      'bottom-left': '',
      'bottom-right': '',
      left: '',
      'left-mid': '',
      mid: '',
      'mid-mid': '',
      right: '',
      'right-mid': '',
      middle: '',
    },
    colAligns: columns.map((c) => (c.numeric ? 'right' : 'left')),
  });
  for (const r of rows) table.push(r.map((text, i) => truncate(text, widths[i]!)));
  return `${table
    .toString()
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n')}\n`;
}

function fitWidths(natural: number[], kinds: Array<'keep' | 'flex' | 'fixed'>, total: number): number[] {
  const widths = [...natural];
  const gap = 2 * widths.length;
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

function displayWidth(text: string): number {
  return [...text].length;
}

function truncate(text: string, width: number): string {
  const chars = [...text];
  return chars.length <= width ? text : `${chars.slice(0, Math.max(1, width - 1)).join('')}…`;
}

/** Key/value pairs, for single objects in human formats (a keyword card's fields). */
export async function printPairs(target: OutputTarget, pairs: ReadonlyArray<readonly [string, unknown]>): Promise<void> {
  const { io, format } = target;
  if (format === 'table') {
    const width = Math.max(...pairs.map(([k]) => k.length));
    const { Chalk } = await import('chalk');
    const chalk = new Chalk({ level: io.color ? 1 : 0 });
    for (const [k, v] of pairs) await write(io.stdout, `${chalk.dim(k.padEnd(width))}  ${cell(v)}\n`);
    return;
  }
  await printRows(target, pairs, [
    { header: 'field', value: (p) => p[0] },
    { header: 'value', value: (p) => p[1] },
  ]);
}

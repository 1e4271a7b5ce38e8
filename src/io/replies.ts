/**
 * What a command hands to output besides rows and sections: the reply as a document, and the notes
 * around its data. Each helper here decides by the format's record (src/io/formats.ts: documents or
 * rows, for people or for programs), so no command does (the architecture test holds them to it)
 * and no helper names a format: a new format is one record, not an audit of every printer.
 */
import { tableView } from './columns.js';
import { forPeople, printsDocuments as documentsFormat, printsWholeReply } from '../formats.js';
import { note } from './lines.js';
import type { Column } from './columns.js';
import type { Output } from './formats.js';
import { printDocument, printJson, printJsonLine, printPairsText, printRows, printText } from './output.js';

/**
 * `--format json` prints `document` (the reply exactly as the service sent it, shaped by
 * `--fields`/`--jq`); every other format is `view`'s (rows, sections, a checklist).
 */
export async function printReply(target: Output, document: unknown, view: () => Promise<unknown>): Promise<void> {
  if (printsWholeReply(target.format)) await printJson(target, document);
  else await view();
}

/** A list as a command hands it over: its rows and columns, the reply they came in, what to say around them. */
export interface Listing<T> {
  /** The reply as the service sent it: `--format json` prints it whole. None for a walk (`--all`): its rows are the array. */
  document?: unknown;
  rows: AsyncIterable<T> | Iterable<T>;
  columns: readonly Column<T>[];
  /** A row as JSON (ndjson, json without a document), when it is not the row itself. */
  rowJson?: (row: T) => unknown;
  /** Said on stderr when nothing was listed; never under `--format json`, whose document says it. */
  empty?: string | ((count: number) => string | undefined);
  /** Said on stderr under a table after its rows (which page this was, how to see more), given how many were shown. */
  footer?: (count: number) => string | undefined | Promise<string | undefined>;
}

/** Prints a list in the format asked (see `Listing`); the number of rows printed, or undefined when the document went out whole. */
export async function printListing<T>(target: Output, listing: Listing<T>): Promise<number | undefined> {
  if (listing.document !== undefined && printsWholeReply(target.format)) {
    await printJson(target, listing.document);
    return undefined;
  }
  const count = await printRows(target, listing.rows, listing.columns, listing.rowJson);
  if (count === 0 && listing.empty !== undefined && !printsWholeReply(target.format)) {
    const line = typeof listing.empty === 'string' ? listing.empty : listing.empty(count);
    if (line !== undefined) target.io.stderr.write(`${line}\n`);
  } else if (count > 0 && listing.footer) await tableNote(target, () => listing.footer!(count));
  return count;
}

/**
 * Fits a table to the terminal by leaving columns out, in `order` (by header), before the table's
 * own layout would cut a name (`scoreboard` keeps names whole and drops the lesser scores). Only a
 * table on a terminal, and not with --wide; returns the headers left out, for one note.
 */
export async function narrowTable<T>(
  target: Output,
  rows: readonly T[],
  columns: Column<T>[],
  order: readonly string[],
): Promise<string[]> {
  if (!forPeople(target.format) || target.wide) return [];
  const { tableWidth } = await import('./pictures.js');
  const leftOut: string[] = [];
  for (const header of order) {
    if (tableWidth(rows, tableView(columns, true)) <= Math.max(20, target.io.columns)) break;
    columns.splice(
      columns.findIndex((c) => c.header === header),
      1,
    );
    leftOut.push(header);
  }
  return leftOut;
}

/**
 * Both JSON formats print `document` (indented json on a terminal, one ndjson line elsewhere): a
 * reply that is one object (a card, a status, a run's result); the others are `view`'s.
 */
export async function printDocumentOr(target: Output, document: unknown, view: () => Promise<unknown>): Promise<void> {
  if (documentsFormat(target.format)) await printDocument(target, document);
  else await view();
}

/**
 * `--format json` prints `document` whole; ndjson prints `rows`, one item a line, as for every list
 * (a reply whose list sits beside other parts); the other formats are `view`'s.
 */
export async function printReplyOrLines(
  target: Output,
  document: unknown,
  rows: Iterable<unknown>,
  view: () => Promise<unknown>,
): Promise<void> {
  if (printsWholeReply(target.format)) await printJson(target, document);
  else if (documentsFormat(target.format)) await printRows(target, rows, []);
  else await view();
}

/**
 * A person reads `people`'s view (blocks under headings, several kinds of row); a program reading
 * csv or tsv gets `programs`' (one kind of row per output, so a loader keeps every row).
 */
export async function forPeopleOr(target: Output, people: () => Promise<unknown>, programs: () => Promise<unknown>): Promise<void> {
  if (forPeople(target.format)) await people();
  else await programs();
}

/** `text` where a person reads a table (a footer's aside, such as the mode all rows share); '' elsewhere. */
export function inTable(target: Pick<Output, 'format'>, text: string): string {
  return forPeople(target.format) ? text : '';
}

/** Whether the format is one of the JSON documents (json, ndjson): the reply goes out whole, no prose. */
export function printsDocuments(target: Pick<Output, 'format'>): boolean {
  return documentsFormat(target.format);
}

/**
 * A line for a person reading a table (a page's footer, "more may follow", how to call a tool): on
 * stderr, and only under a table; scripts reading tsv, csv or JSON get the data alone. `text` may be
 * a function, for a footer that costs a request: it runs only when the line is shown.
 */
export async function tableNote(
  target: Output,
  text: string | (() => string | undefined | Promise<string | undefined>),
  how: 'raw' | 'note' = 'raw',
): Promise<void> {
  if (!forPeople(target.format)) return;
  const line = typeof text === 'string' ? text : await text();
  if (line === undefined) return;
  if (how === 'note') note(target.io, line);
  else target.io.stderr.write(`${line}\n`);
}

/**
 * A line for a person beside data that is not a table (a card's section totals): on stderr under
 * tsv, csv and JSON; a table says it in its own titles.
 */
export function besideData(target: Output, line: string): void {
  if (!forPeople(target.format)) target.io.stderr.write(`${line}\n`);
}

/**
 * A line for a person on stderr, except under `--format json`, whose document says it (`✓ Created
 * project …`; ndjson, one item a line, has no document that would).
 */
export function noteUnlessJson(target: Output, line: string): void {
  if (!printsWholeReply(target.format)) target.io.stderr.write(`${line}\n`);
}

/** A line for a person on stderr, except under the JSON formats, whose document says it (`✓ Created …`). */
export function noteUnlessDocuments(target: Output, line: string): void {
  if (!printsDocuments(target)) note(target.io, line);
}

/** What a command that made something hands over: the reply, its row, and what a person reads. */
export interface Made<T> {
  /** `--format json`: the reply whole. */
  json: unknown;
  /** ndjson: this document on its line (default: the row). */
  ndjson?: unknown;
  /** tsv and csv (and ndjson without its own document): the one row, in these columns. */
  row: T;
  columns: readonly Column<T>[];
  /** A table: these `key  value` lines (the id and where to go next), not the whole row. */
  pairs: ReadonlyArray<readonly [string, unknown]>;
}

/** Prints what a command made (a project) in the format asked (see `Made`). */
export async function printMade<T>(target: Output, made: Made<T>): Promise<void> {
  if (printsWholeReply(target.format)) await printJson(target, made.json);
  else if (documentsFormat(target.format) && made.ndjson !== undefined) await printJsonLine(target, made.ndjson);
  else if (forPeople(target.format)) await printPairsText(target.io, made.pairs);
  else await printRows(target, [made.row], made.columns);
}

/**
 * A summary above data (a status's project, scoring and next step): on stdout above a table, where
 * a person reads both; on stderr beside tsv and csv, so the data stays parseable.
 */
export async function printSummary(target: Output, text: string, more: boolean): Promise<void> {
  if (forPeople(target.format)) await printText(target.io, `${text}\n${more ? '\n' : ''}`);
  else target.io.stderr.write(`${text}\n`);
}

/** A blank line between blocks of a table; other formats have no blocks to part. */
export async function tableGap(target: Output): Promise<void> {
  if (forPeople(target.format)) await printText(target.io, '\n');
}

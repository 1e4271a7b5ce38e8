/**
 * How one value reads in a cell, the same in every command: booleans `true`/`false`, numbers as
 * the server spelled them, null as an empty cell, arrays JSON-encoded (a list of plain values in a
 * table), csv neutralised against formulas; times as people say them, ids shortened in tables.
 */
import { ExactNumber, numberText, stringifyJson } from './json.js';
import { displayUnits, sanitizeCell, sanitizeLine } from './sanitize.js';

/**
 * A value as cell text, before sanitising and quoting. Arrays of plain values read as a list where
 * people read the cell (`forPeople`: a table); everywhere else nested members are JSON, so nothing
 * is lost and a script can parse it.
 */
export function cell(value: unknown, forPeople = false): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  // A number as the service spelled it (`1.10` where its place is known, all the digits of a big integer).
  if (value instanceof ExactNumber) return value.literal;
  if (typeof value === 'number') return numberText(value);
  if (typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (Array.isArray(value) && forPeople && value.every((v) => v === null || typeof v !== 'object')) {
    return value.map((v) => cell(v, forPeople)).join(', ');
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
  const raw = cell(value);
  let text = sanitizeCell(raw, true);
  if (isFormulaLike(raw) || isFormulaLike(text)) text = `'${text}`;
  else if (!/[",\n]/.test(text)) return text;
  return `"${text.replaceAll('"', '""')}"`;
}

/** A TSV field: sanitised, with tab and newline as `\t` / `\n`, so a row is one line. */
export function tsvField(value: unknown): string {
  return sanitizeCell(cell(value), false);
}

/** A table cell: sanitised to one line. */
export function tableField(value: unknown): string {
  return sanitizeLine(cell(value, true));
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
export const ID_CHARS = 8;

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

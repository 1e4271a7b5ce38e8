/**
 * The table for people: columns fitted to the terminal from the first rows (so a table streams,
 * flat in memory, where cli-table3 needed every row first), ids shortened uniquely, times relative
 * or absolute, columns that do not fit left out with one note on stderr.
 */
import type { Io } from './io.js';
import { paint } from './colors.js';
import type { Column } from './columns.js';
import { absoluteTime, ID_CHARS, idPrefixLength, relativeTime, shortId, tableField } from './cells.js';
import { displayWidth, sanitizeLine, truncate } from './sanitize.js';
import type { Batch } from './write.js';

/** What a table needs to know about a column to lay it out. */
export type TableColumn = Pick<Column<never>, 'header' | 'numeric' | 'flexible' | 'keep' | 'id' | 'time'>;

/** Where a table goes and how it reads: the terminal, "now" for relative times, --time, --wide. */
export interface TableTarget {
  io: Io;
  now?: (() => number) | undefined;
  time?: 'relative' | 'absolute' | undefined;
  wide?: boolean | undefined;
}

/** Rows a table reads before it fixes its column widths; later rows are fitted to them. */
const TABLE_WINDOW = 1000;

/** Streams rows as a table: the first rows fix the widths, later ones are fitted to them. */
export async function streamTable<T>(
  target: TableTarget,
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

/**
 * Small pictures for people at a terminal: bars for scores and counts, and a progress bar for
 * analyses. Only in table output on a TTY (tsv, csv, json and pipes never change), and plain ASCII
 * where the terminal may not draw block characters (NO_COLOR set and non-empty, as no-color.org
 * says: an empty NO_COLOR= changes nothing; or a locale that is not UTF-8).
 */
import type { Io } from './io.js';
import { forPeople, type OutputFormat } from '../formats.js';

type Env = Readonly<Record<string, string | undefined>>;

export interface PictureStyle {
  /** Block characters (█▌░); false: ASCII (#, =, .). */
  unicode: boolean;
  /** Terminal width the pictures fit in. */
  columns: number;
}

/** The locale's character set, as the C library decides it: LC_ALL, then LC_CTYPE, then LANG. */
export function utf8Locale(env: Env): boolean {
  const locale = env.LC_ALL || env.LC_CTYPE || env.LANG || '';
  return /utf-?8/i.test(locale);
}

// No colour in the pictures: the table and the live line measure text by characters, and an
// escape sequence inside a cell would throw that arithmetic off.
function styleFor(io: Io, env: Env, tty: boolean): PictureStyle | undefined {
  if (!tty) return undefined;
  return { unicode: (env.NO_COLOR ?? '') === '' && utf8Locale(env), columns: io.columns };
}

/** Pictures for data on stdout: table format on a terminal only. */
export function pictureStyle(io: Io, format: OutputFormat, env: Env): PictureStyle | undefined {
  return forPeople(format) ? styleFor(io, env, io.stdoutIsTTY) : undefined;
}

/** Pictures for the live progress line on stderr: a terminal only. */
export function progressStyle(io: Io, env: Env): PictureStyle | undefined {
  return styleFor(io, env, io.stderrIsTTY);
}

const EIGHTHS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];

/** A bar of `width` cells for value/max: eighth-cell precision in Unicode, whole cells in ASCII. */
export function bar(value: number, max: number, width: number, style: PictureStyle): string {
  const share = max > 0 && Number.isFinite(value) ? Math.min(1, Math.max(0, value / max)) : 0;
  if (!style.unicode) {
    const filled = Math.round(share * width);
    return `${'#'.repeat(filled)}${'.'.repeat(width - filled)}`;
  }
  const eighths = Math.round(share * width * 8);
  const full = Math.floor(eighths / 8);
  const part = EIGHTHS[eighths % 8]!;
  return `${'█'.repeat(full)}${part}${' '.repeat(width - full - (part ? 1 : 0))}`;
}

/**
 * Labelled bars, one per line: `composite    ████████▎        41.2 Moderate`. Scores run from 0 to
 * `max`; a missing one is a dash without a bar.
 */
export function scoreBars(
  rows: ReadonlyArray<{ label: string; value: number | undefined; note?: string | undefined }>,
  style: PictureStyle,
  max = 100,
): string[] {
  const labelWidth = Math.max(...rows.map((r) => r.label.length));
  const cells = scoreCells(rows, { ...style, columns: style.columns - labelWidth - 2 }, max);
  return rows.map((r, i) => `${r.label.padEnd(labelWidth)}  ${cells[i]}`.trimEnd());
}

/** The bars and figures of `scoreBars` without the labels, for a caller that prints its own. */
export function scoreCells(
  rows: ReadonlyArray<{ value: number | undefined; note?: string | undefined }>,
  style: PictureStyle,
  max = 100,
): string[] {
  const texts = rows.map((r) => (r.value === undefined ? '—' : `${formatNumber(r.value)}${r.note ? ` ${r.note}` : ''}`));
  const textWidth = Math.max(...texts.map((t) => t.length));
  // What is left of the terminal after the figures, within calm limits.
  const width = clamp(style.columns - textWidth - 3, 8, 40);
  return rows.map((r, i) => (r.value === undefined ? texts[i]! : `${bar(r.value, max, width, style)}  ${texts[i]}`));
}

/**
 * The width of a bar column for a table whose other columns need `tableWidth` characters (cells
 * and the two-space gaps), or 0 when a bar would push the table past the terminal: a picture must
 * never cost the reader a name or an id.
 */
export function columnBarWidth(style: PictureStyle, tableWidth: number): number {
  const room = style.columns - 2 - tableWidth - 2;
  const width = Math.min(room, clamp(Math.floor(style.columns / 8), 6, 16));
  return width >= 4 ? width : 0;
}

/**
 * The natural width of a table: each column as wide as its header or widest cell, two spaces
 * between; an id column as its shortened ids (about 9 characters, see output.ts).
 */
export function tableWidth<T>(
  rows: readonly T[],
  columns: ReadonlyArray<{ header: string; value: (row: T) => unknown; id?: boolean | undefined }>,
): number {
  const text = (v: unknown): string => (v === null || v === undefined ? '' : Array.isArray(v) ? v.join(', ') : String(v));
  const cellWidth = (c: { id?: boolean | undefined }, s: string): number => Math.min([...s].length, c.id ? 9 : Number.POSITIVE_INFINITY);
  const widths = columns.map((c) => Math.max(c.header.length, ...rows.map((r) => cellWidth(c, text(c.value(r))))));
  return widths.reduce((a, b) => a + b, 0) + 2 * Math.max(0, columns.length - 1);
}

/**
 * Analyses as a bar: done cells filled, failed cells marked, the rest open:
 * `▕██████▓▓░░░░░░▏ 4/7` (ASCII: `[####xx......] 4/7`).
 */
export function progressBar(counts: { done: number; failed: number; total: number }, style: PictureStyle): string {
  const width = clamp(style.columns - 60, 8, 24);
  const { done, failed, total } = counts;
  if (total <= 0) return '';
  const doneCells = Math.round((done / total) * width);
  const failedCells = Math.min(width - doneCells, failed > 0 ? Math.max(1, Math.round((failed / total) * width)) : 0);
  const open = width - doneCells - failedCells;
  if (!style.unicode) return `[${'#'.repeat(doneCells)}${'x'.repeat(failedCells)}${'.'.repeat(open)}]`;
  return `▕${'█'.repeat(doneCells)}${'▓'.repeat(failedCells)}${'░'.repeat(open)}▏`;
}

function clamp(n: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, n));
}

/** The one style of a score figure in every table: `94.5`, `7` (a whole number), never `54.40`. */
export function formatNumber(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
}

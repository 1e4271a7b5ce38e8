/**
 * Lines for a person: notes on stderr, aligned `key  value` pairs, and lines fitted to the terminal
 * (a long line continues under its value, broken at spaces). Always sanitised.
 */
import type { Io } from './io.js';
import { paint } from './colors.js';
import { tableField } from './cells.js';
import { displayWidth, sanitizeLine, sanitizeText, wrap } from './sanitize.js';

/** The stderr note for columns a table left out. */
function droppedNote(dropped: readonly string[]): string {
  return `left out: ${dropped.join(', ')} (see all with --format tsv or --json)`;
}

/** That note, wrapped at words to `width`, so a narrow terminal does not break it mid-word. */
export function leftOutNote(io: Io, dropped: readonly string[], width = Math.max(20, io.columns)): void {
  for (const l of wrap(droppedNote(dropped), width, { breakWords: false })) note(io, l);
}

/** Aligned `key  value` lines, sanitised; the key dimmed when colour is on. */
export function pairsText(pairs: ReadonlyArray<readonly [string, unknown]>, color = false, columns?: number): string {
  const width = Math.max(0, ...pairs.map(([k]) => displayWidth(sanitizeLine(k))));
  // On a terminal a value wider than what is left of the line continues under itself, so a long
  // description does not wrap back under the keys.
  const room = columns === undefined ? Number.POSITIVE_INFINITY : Math.max(20, columns - width - 2);
  let text = '';
  for (const [k, v] of pairs) {
    const key = sanitizeLine(k).padEnd(width);
    const [first = '', ...rest] = room === Number.POSITIVE_INFINITY ? [tableField(v)] : wrap(tableField(v), room, { breakWords: false });
    text += `${paint(color).dim(key)}  ${first}\n`;
    for (const more of rest) text += `${' '.repeat(width + 2)}${more}\n`;
  }
  return text;
}

/**
 * A line for a person fitted to `columns`: what does not fit continues under itself, indented
 * as far as the line's value starts (after `key:  ` or `✓ `), so the labels stay a column.
 */
export function hangLine(line: string, columns: number, indent?: number): string {
  if (displayWidth(line) <= columns) return line;
  // An indented line continues at its indent; a `key:  value` line under its value.
  const gap = /^ +|^\S.*?\S( {2,})/.exec(line);
  let at = indent ?? (gap ? gap.index + gap[0].length : 0);
  if (at > columns / 2) at = 2;
  const [first = '', ...rest] = wrap(line.slice(at), Math.max(20, columns - at), { breakWords: false });
  return [line.slice(0, at) + first, ...rest.map((r) => ' '.repeat(at) + r)].join('\n');
}

/** Text fitted line by line to the terminal when stdout is one; piped text is left alone. */
export function fitText(io: Io, text: string): string {
  if (!io.stdoutIsTTY) return text;
  return text
    .split('\n')
    .map((l) => hangLine(l, Math.max(20, io.columns)))
    .join('\n');
}

/** One line for a person on stderr (a note, a warning), sanitised whatever stream it goes to. */
export function note(io: Io, line: string): void {
  // On a terminal a long note continues under itself, broken at spaces (see `hangLine`).
  const text = sanitizeText(line);
  io.stderr.write(
    `${
      io.stderrIsTTY
        ? text
            .split('\n')
            .map((l) => hangLine(l, Math.max(20, io.columns)))
            .join('\n')
        : text
    }\n`,
  );
}

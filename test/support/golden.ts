/**
 * The golden files of what a terminal shows (test/system/golden/): read, or rewritten with
 * RSI_UPDATE_GOLDEN=1; and transcripts (each command's output after a marker line), normalised as
 * the files hold them and cut into one command's section. One home for the help, hint and picture
 * tests, in process and in tmux.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

const GOLDEN = fileURLToPath(new URL('../system/golden/', import.meta.url));

/** The golden `file` (rewritten from `actual` first when RSI_UPDATE_GOLDEN=1); fails when it is missing. */
export function goldenFile(file: string, actual?: string): string {
  const path = `${GOLDEN}${file}`;
  if (actual !== undefined && process.env.RSI_UPDATE_GOLDEN === '1') writeFileSync(path, actual);
  expect(existsSync(path), `${file} is missing: run with RSI_UPDATE_GOLDEN=1 and review it`).toBe(true);
  return readFileSync(path, 'utf8');
}

/** Text as the golden files hold it: lines without trailing blanks, none blank at the end, one final newline. */
export function normalize(text: string): string {
  return `${text
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n')
    .trimEnd()}\n`;
}

/**
 * One command's section of a transcript: its marker line `mark` and what follows, up to the next
 * line `isMark` accepts (or the end); '' when the marker is not there.
 */
export function sectionOf(transcript: string, mark: string, isMark: (line: string) => boolean): string {
  const lines = transcript.split('\n');
  const start = lines.indexOf(mark);
  if (start < 0) return '';
  const end = lines.findIndex((l, i) => i > start && isMark(l));
  return normalize(lines.slice(start, end < 0 ? undefined : end).join('\n'));
}

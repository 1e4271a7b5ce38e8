/**
 * The one-line answers to habits of gh, kubectl and az, the quote hint and the other usage hints, as
 * a terminal of 60, 80 and 120 columns shows them: golden files (test/system/golden/
 * hints-<width>.txt; RSI_UPDATE_GOLDEN=1 rewrites them, from the in-process test), each command
 * after a `$ rsi …` line. test/e2e/hints-widths.test.ts checks every line at every width in process;
 * test/system/tmux-hints.test.ts a sample in a real terminal.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { sh } from './tmux.js';

export const HINT_WIDTHS = [60, 80, 120] as const;

export const HINT_LINES: readonly (readonly string[])[] = [
  ['--profile', 'ttl', 'auth', 'login'],
  ['auth', 'refresh', '-s', 'analyses:run'],
  ['version'],
  ['projects', 'list', '-o', 'json'],
  ['projects', 'list', '-o', 'wide'],
  ['projects', 'list', '--query', '[].name'],
  ['projects', 'list', '--template', '{{.name}}'],
  ['projects', 'view', 'My first project'],
  ['signals', 'My first project', '--watch'],
  ['status', 'My', 'first', 'project'],
  ['projects', 'list', '--jq', '.a', '--jq', '.b'],
  ['api', '/keywords', '-H', 'X: é€'],
  ['status'],
];

/** What precedes each command's lines in a transcript. */
export const HINT_MARK = '$ rsi';

/** The line before `args`' answer: `$ rsi 'projects' 'list' '-o' 'json'`. */
export function hintMark(args: readonly string[]): string {
  return `${HINT_MARK} ${args.map(sh).join(' ')}`;
}

/**
 * Every line rsi wrote is an `rsi: …` or `hint: …` line, one per message, and each command said
 * exactly one `rsi: …` line.
 */
export function expectHintLines(transcript: string, commands: number): void {
  const said = transcript.split('\n').filter((l) => l.trim() !== '' && !l.startsWith(HINT_MARK));
  for (const line of said) expect(line, line).toMatch(/^(rsi|hint): \S/);
  expect(said.filter((l) => l.startsWith('rsi: ')).length).toBe(commands);
}

/** A transcript as the golden files hold it: lines without trailing blanks, one final newline. */
export function normalizeHints(text: string): string {
  return `${text
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n')
    .trimEnd()}\n`;
}

const GOLDEN = fileURLToPath(new URL('../system/golden/', import.meta.url));

/** The golden transcript at `width` (rewritten from `actual` when RSI_UPDATE_GOLDEN=1). */
export function goldenHints(width: number, actual?: string): string {
  const file = `${GOLDEN}hints-${width}.txt`;
  if (actual !== undefined && process.env.RSI_UPDATE_GOLDEN === '1') writeFileSync(file, actual);
  expect(existsSync(file), `hints-${width}.txt is missing: run with RSI_UPDATE_GOLDEN=1 and review it`).toBe(true);
  return readFileSync(file, 'utf8');
}

/** One command's part of a transcript: its `$ rsi …` line and what follows, up to the next. */
export function hintsOf(transcript: string, args: readonly string[]): string {
  const lines = transcript.split('\n');
  const start = lines.indexOf(hintMark(args));
  if (start < 0) return '';
  const end = lines.findIndex((l, i) => i > start && l.startsWith(`${HINT_MARK} `));
  return normalizeHints(lines.slice(start, end < 0 ? undefined : end).join('\n'));
}

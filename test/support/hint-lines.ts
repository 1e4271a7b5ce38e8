/**
 * The one-line answers to habits of gh, kubectl and az, the quote hint and the other usage hints, as
 * a terminal of 60, 80 and 120 columns shows them: golden files (test/system/golden/
 * hints-<width>.txt; RSI_UPDATE_GOLDEN=1 rewrites them, from the in-process test), each command
 * after a `$ rsi …` line. test/e2e/hints-widths.test.ts checks every line at every width in process;
 * test/system/tmux-hints.test.ts a sample in a real terminal.
 */
import { expect } from 'vitest';
import { goldenFile, sectionOf } from './golden.js';
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

/** The golden transcript at `width` (rewritten from `actual` when RSI_UPDATE_GOLDEN=1). */
export function goldenHints(width: number, actual?: string): string {
  return goldenFile(`hints-${width}.txt`, actual);
}

/** One command's part of a transcript: its `$ rsi …` line and what follows, up to the next. */
export function hintsOf(transcript: string, args: readonly string[]): string {
  return sectionOf(transcript, hintMark(args), (l) => l.startsWith(`${HINT_MARK} `));
}

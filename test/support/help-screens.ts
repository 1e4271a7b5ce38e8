/**
 * The help screens as a person sees them, at 60, 80 and 120 columns: every visible command path,
 * each screen after a marker line, in golden files (test/system/golden/help-<width>.txt;
 * RSI_UPDATE_GOLDEN=1 rewrites them). test/e2e/help-widths.test.ts renders every screen at every
 * width in process; test/system/tmux-help.test.ts shows some of them in a real terminal and checks
 * it shows the same lines.
 */
import type { Command } from 'commander';
import { loadProgram } from '../../src/program.js';
import { fakeCtx, fakeIo } from './fakes.js';
import { goldenFile, sectionOf } from './golden.js';

export const HELP_WIDTHS = [60, 80, 120] as const;

/** What precedes each screen in a transcript: `=== rsi keywords search`. */
export const MARK = '=== rsi';

/** One screen of a transcript: the command path its marker names, and the words that show it. */
export interface HelpScreen {
  path: string[];
  words: string[];
}

/**
 * Every visible command's `--help`, the top level first (`rsi --help`), then `rsi help environment`
 * (the global options, listed once): the screens of a transcript, in order.
 */
export async function helpScreens(): Promise<HelpScreen[]> {
  const walk = (cmd: Command, prefix: string[]): string[][] => [
    prefix,
    ...cmd.commands.filter((sub) => !(sub as unknown as { _hidden: boolean })._hidden).flatMap((sub) => walk(sub, [...prefix, sub.name()])),
  ];
  const paths = walk(await loadProgram(fakeCtx(fakeIo(), 'tsv')), []);
  return [
    ...paths.map((path) => ({ path, words: [...path, '--help'] })),
    { path: ['help', 'environment'], words: ['help', 'environment'] },
  ];
}

/** A screen's marker line. */
export function markLine(path: readonly string[]): string {
  return `${MARK} ${path.join(' ')}`.trimEnd();
}

/** The golden transcript at `width` (rewritten from `actual` when RSI_UPDATE_GOLDEN=1). */
export function goldenHelp(width: number, actual?: string): string {
  return goldenFile(`help-${width}.txt`, actual);
}

/** One screen's lines in a transcript: from its marker to the next marker (or the end). */
export function screenOf(transcript: string, path: readonly string[]): string {
  return sectionOf(transcript, markLine(path), (l) => l === MARK || l.startsWith(`${MARK} `));
}

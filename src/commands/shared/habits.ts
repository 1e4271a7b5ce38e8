/**
 * Habits of gh, kubectl, az, aws and docker that rsi spells another way. A word or flag commander
 * does not know is looked up here before "unknown command/option" is printed: a known habit gets
 * one line whose answer is always a complete `rsi …` command, the person's own line rewritten by
 * the one quoting function (their --profile, their project, their count kept), which does what
 * they meant; where the meaning is clear and safe, rsi simply does it (`works`: `projects ls`,
 * `--limit` on projects list, `--exit-status`). The one exception says why there is no command (the
 * API cannot delete a project). Each entry's examples are run against the sandbox, and each
 * answer followed, by test/e2e/habits.test.ts; the table is also docs/commands.md's habits table
 * (test/unit/habits.test.ts keeps the two equal).
 */

import { shellCommand } from '../../io/text.js';
import type { Habit, Rewrite, Takes } from './habit-rules.js';

import { FLAG_HABITS } from './habit-flags.js';
import { WORD_HABITS } from './habit-words.js';

export const HABITS: readonly Habit[] = [...WORD_HABITS, ...FLAG_HABITS];

export interface Typed {
  /** The command path commander was at (`auth`, `projects list`, '' for the top level). */
  path: string;
  /** Every word after `rsi` as typed. */
  argv: readonly string[];
  /** What that command accepts (none known: nothing). */
  takes?: Takes;
}

/**
 * The one line for an unknown word under `typed.path`, or undefined when it is no known habit.
 * `rsi auth login --profile ttl` → `… rsi's equivalent: rsi login --profile ttl`.
 */
export function commandHabit(word: string, typed: Typed): string | undefined {
  const habit = HABITS.find((h) => h.command && h.command.under === typed.path && h.command.word === word);
  if (!habit) return undefined;
  const theirs = [typed.path, word].filter(Boolean).join(' ');
  const at = startOf(typed.argv, [...typed.path.split(' ').filter(Boolean), word]);
  return `unknown command '${theirs}' (${habit.from}'s); in rsi: ${rebuild(habit, typed, at)}`;
}

/** The one line for an unknown flag on `typed.path`, or undefined when it is no known habit. */
export function optionHabit(flag: string, typed: Typed): string | undefined {
  const name = flag.split('=')[0]!;
  // -ojson is -o json.
  const short = /^(-[a-zA-Z])(.+)$/.exec(flag);
  const habit =
    HABITS.find((h) => h.option?.names.includes(name) && appliesOn(h, typed.path)) ??
    (short ? HABITS.find((h) => h.option?.names.includes(short[1]!) && appliesOn(h, typed.path)) : undefined);
  if (!habit) return undefined;
  const at = typed.argv.indexOf(flag);
  const command = rebuild(habit, typed, at);
  return `unknown option '${name === flag ? flag : name}' (${habit.from}'s); in rsi: ${command}`;
}

function appliesOn(habit: Habit, path: string): boolean {
  return !habit.option?.on || habit.option.on.includes(path);
}

/** `rsi …` with the habit's words rewritten (or, for the one habit with no command, why there is none). */
function rebuild(habit: Habit, typed: Typed, at: number): string {
  const argv = typed.argv;
  if (!habit.rewrite) return habit.none ?? habit.ours;
  const start = Math.max(0, at);
  const tail = splitValue(argv.slice(start));
  const fix: Rewrite = habit.rewrite(tail.words, typed.takes ?? { options: [], args: [] });
  // A flag's `=value` (one word as typed) counts as one word consumed.
  const consumed = Math.max(0, fix.consumed - (tail.split && fix.consumed >= 2 ? 1 : 0));
  const before = argv.slice(0, start);
  if (fix.instead) return shellCommand(['rsi', ...globalsOf(before), ...fix.instead]);
  const rest = argv.slice(start + consumed);
  const words = [...before, ...fix.words, ...rest];
  // A flag habit can also change the command (`signals P --watch` → `status P --watch`).
  if (fix.command) {
    const i = startOf(words, typed.path.split(' ').filter(Boolean));
    if (i >= 0) words.splice(i, typed.path.split(' ').length, ...fix.command);
  }
  return shellCommand(['rsi', ...words, ...(fix.append ?? [])]);
}

/** The global flags among the words before a command (`--profile work`), kept when the command is replaced. */
function globalsOf(words: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (/^--(profile|base-url|http-timeout)$/.test(w) && words[i + 1] !== undefined) out.push(w, words[++i]!);
    else if (/^--(profile|base-url|http-timeout)=/.test(w) || w === '--debug' || w === '--no-color') out.push(w);
  }
  return out;
}

/** `--output=json` → ['--output', 'json']; `-ojson` → ['-o', 'json']. */
function splitValue(words: readonly string[]): { words: string[]; split: boolean } {
  const [first = '', ...rest] = words;
  const eq = /^(--?[^=]+)=(.*)$/.exec(first);
  if (eq) return { words: [eq[1]!, eq[2]!, ...rest], split: true };
  const short = /^(-[a-zA-Z])(.+)$/.exec(first);
  if (short) return { words: [short[1]!, short[2]!, ...rest], split: true };
  return { words: [...words], split: false };
}

/** Where `seq` starts in `argv` as consecutive words, else -1. */
function startOf(argv: readonly string[], seq: readonly string[]): number {
  for (let i = 0; i + seq.length <= argv.length; i++) {
    if (seq.every((w, j) => argv[i + j] === w)) return i;
  }
  return -1;
}

/**
 * gh's `repo create NAME`: a name given as the argument of a command that takes none but `--name`
 * (`rsi projects create "Lung 2026"`, or unquoted, `rsi projects create Lung 2026`): the person's
 * line with the words moved to `--name`, as one name. Undefined when the command takes arguments or
 * has no `--name`, or a word looks like a flag.
 */
export function nameFlagHint(
  argv: readonly string[],
  operands: readonly string[],
  expected: number,
  options: readonly string[],
): string | undefined {
  if (expected !== 0 || operands.length === 0 || !options.includes('--name')) return undefined;
  if (operands.some((w) => w.startsWith('-') || w === '')) return undefined;
  // The last place the words stand: they follow the command's own words (`rsi projects create projects`).
  let start = -1;
  for (let i = argv.length - operands.length; i >= 0 && start < 0; i--) if (operands.every((w, j) => argv[i + j] === w)) start = i;
  if (start < 0) return undefined;
  const words = [...argv.slice(0, start), '--name', operands.join(' '), ...argv.slice(start + operands.length)];
  return `the name goes with --name: ${shellCommand(['rsi', ...words])}`;
}

/**
 * `rsi status My first project`: the words past the command's last argument look like the rest
 * of an unquoted name. Returns the command line with them quoted as one word, else undefined.
 */
export function quoteHint(argv: readonly string[], operands: readonly string[], expected: number): string | undefined {
  if (expected < 1 || operands.length <= expected) return undefined;
  const nameWords = operands.slice(expected - 1);
  if (nameWords.some((w) => w.startsWith('-') || w === '')) return undefined;
  const start = startOf(argv, nameWords);
  if (start < 0) return undefined;
  const words = [...argv.slice(0, start), nameWords.join(' '), ...argv.slice(start + nameWords.length)];
  return `a name with spaces is one argument: quote it, as in ${shellCommand(['rsi', ...words])}`;
}

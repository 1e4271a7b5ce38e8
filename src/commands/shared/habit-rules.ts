/**
 * What a habit is (src/commands/shared/habits.ts holds the table), and the rewrites the table's
 * entries share: a flag's value moved to the argument, a count to `--limit`, kubectl's resource
 * words to rsi's commands.
 */

export interface Habit {
  /** The tool whose habit it is, for the docs table. */
  from: 'gh' | 'kubectl' | 'az';
  /** As a person used to the other tool types it in rsi, for the docs table: `rsi auth login`. */
  theirs: string;
  /** rsi's equivalent as shown in the docs table (and said when the line cannot be rewritten). */
  ours: string;
  /** A command word: the group it was typed under ('' for the top level) and the word itself. */
  command?: { under: string; word: string };
  /** A flag, and the command paths it is a habit on (none: every command). */
  option?: { names: readonly string[]; on?: readonly string[] };
  /**
   * The person's words from the habit on, rewritten to rsi's (`words[0]` is the habit's word or
   * flag, with any `=value` split off into words[1]); undefined when only `ours` can be said.
   * `takes` is what the command the flag was typed on accepts (a flag habit's rewrite may depend on it).
   */
  rewrite?: (words: readonly string[], takes: Takes) => Rewrite | undefined;
}

/** What the command a flag was typed on accepts: its long options and its arguments' names. */
export interface Takes {
  options: readonly string[];
  args: readonly string[];
}

/** Words replacing the first `consumed` words of the habit's tail (the rest is kept). */
export interface Rewrite {
  words: readonly string[];
  consumed: number;
  /** Words appended at the end of the rewritten command line (a project moved to its argument). */
  append?: readonly string[];
}

export const FORMATS: Record<string, readonly string[]> = {
  json: ['--json'],
  jsonc: ['--json'],
  wide: ['--wide'],
  table: ['--format', 'table'],
  tsv: ['--format', 'tsv'],
  csv: ['--format', 'csv'],
  ndjson: ['--format', 'ndjson'],
  name: ['--jq', '.. | .name? // empty'],
};

/** Replace the habit's word(s) with `words`, keep everything after. */
export const replace =
  (words: readonly string[], consumed = 1) =>
  (): Rewrite => ({ words, consumed });

/** A flag whose value is the project: the value moves to the command's argument, where it takes one. */
export const projectFlag = (words: readonly string[], takes: Takes): Rewrite | undefined =>
  // A number after -n is kubectl's habit of a count, never a project here.
  words[1] === undefined || words[1].startsWith('-') || /^\d+$/.test(words[1]) || !takes.args.includes('project')
    ? undefined
    : { words: [], consumed: 2, append: [words[1]] };

/** A count: `--limit N` where the command takes one, `--top N` on analyses run. */
export const countFlag = (words: readonly string[], takes: Takes): Rewrite | undefined => {
  if (!/^\d+$/.test(words[1] ?? '')) return undefined;
  const flag = ['--limit', '--top'].find((f) => takes.options.includes(f));
  return flag ? { words: [flag, words[1]!], consumed: 2 } : undefined;
};

/** A value word after a habit's word (`rsi browse P`), not a flag. */
export const operand = (word: string | undefined): string | undefined => (word === undefined || word.startsWith('-') ? undefined : word);

/** `get/describe projects|project [NAME]`, `get/describe keyword NAME` (kubectl's resource words). */
export const resource = (w: readonly string[]): Rewrite | undefined => {
  const name = operand(w[2]);
  if (/^projects?$/.test(w[1] ?? '')) return name ? { words: ['status', name], consumed: 3 } : { words: ['projects', 'list'], consumed: 2 };
  if (/^keywords?$/.test(w[1] ?? '')) return name ? { words: ['keywords', 'get', name], consumed: 3 } : undefined;
  return undefined;
};

/** gh's `-q EXPR` is --jq; an expression starts as jq's do (`.name`, `[…]`, `{…}`, `"…"`). */
export const jqFlag = (words: readonly string[]): Rewrite | undefined =>
  /^[.[{"]/.test(words[1] ?? '') ? { words: ['--jq', words[1]!], consumed: 2 } : undefined;

/** `-v`: the version where it is all that was typed (`rsi -v`), else the trace (--debug). */
export const verboseFlag = (words: readonly string[], takes: Takes): Rewrite | undefined =>
  takes.options.includes('--version') && words.length === 1
    ? { words: ['--version'], consumed: 1 }
    : { words: ['--debug'], consumed: words[1] !== undefined && /^\d+$/.test(words[1]) ? 2 : 1 };

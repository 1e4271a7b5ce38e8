/**
 * Habits of gh, kubectl and az that rsi spells another way. A word or flag commander does not know
 * is looked up here before "unknown command/option" is printed: a known habit gets one line naming
 * rsi's equivalent — where it can, the person's own command line rewritten (their --profile, their
 * project name kept), so copying the line does what they meant; where rsi has no such thing (the
 * API cannot delete a project), the line says so. This table is also the one source of the habits
 * table in docs/commands.md (test/unit/habits.test.ts keeps the two equal).
 */

import { shellCommand } from '../../io/text.js';
import { countFlag, FORMATS, type Habit, jqFlag, operand, projectFlag, replace, resource, type Takes, verboseFlag } from './habit-rules.js';

export const HABITS: readonly Habit[] = [
  { from: 'gh', theirs: 'rsi auth login', ours: 'rsi login', command: { under: 'auth', word: 'login' }, rewrite: replace(['login'], 2) },
  {
    from: 'gh',
    theirs: 'rsi auth logout',
    ours: 'rsi logout',
    command: { under: 'auth', word: 'logout' },
    rewrite: replace(['logout'], 2),
  },
  {
    from: 'gh',
    theirs: 'rsi auth refresh -s SCOPE',
    ours: 'rsi login --add-scope SCOPE (tokens are refreshed on their own)',
    command: { under: 'auth', word: 'refresh' },
    rewrite: (words) => ({
      words: ['login', ...words.slice(2).map((w) => (w === '-s' || w === '--scopes' ? '--add-scope' : w))],
      consumed: words.length,
    }),
  },
  {
    from: 'kubectl',
    theirs: 'rsi auth whoami',
    ours: 'rsi auth status',
    command: { under: 'auth', word: 'whoami' },
    rewrite: replace(['auth', 'status'], 2),
  },
  {
    from: 'az',
    theirs: 'rsi account show',
    ours: 'rsi auth status',
    command: { under: '', word: 'account' },
    rewrite: (w) => ({ words: ['auth', 'status'], consumed: w[1] === 'show' ? 2 : 1 }),
  },
  {
    from: 'gh',
    theirs: 'rsi version',
    ours: 'rsi --version',
    command: { under: '', word: 'version' },
    rewrite: (w) => ({ words: ['--version'], consumed: w.length }),
  },
  { from: 'az', theirs: 'rsi configure', ours: 'rsi config set KEY VALUE', command: { under: '', word: 'configure' } },
  {
    from: 'gh',
    theirs: 'rsi completions bash',
    ours: 'rsi completion bash',
    command: { under: '', word: 'completions' },
    rewrite: replace(['completion']),
  },
  { from: 'gh', theirs: 'rsi ls', ours: 'rsi projects list', command: { under: '', word: 'ls' }, rewrite: replace(['projects', 'list']) },
  {
    from: 'kubectl',
    theirs: 'rsi get projects',
    ours: 'rsi projects list (one: rsi status PROJECT; a keyword: rsi keywords get NAME)',
    command: { under: '', word: 'get' },
    rewrite: resource,
  },
  {
    from: 'kubectl',
    theirs: 'rsi describe project PROJECT',
    ours: 'rsi status PROJECT (a keyword: rsi keywords get NAME)',
    command: { under: '', word: 'describe' },
    rewrite: resource,
  },
  {
    from: 'gh',
    theirs: 'rsi search TEXT',
    ours: 'rsi keywords search TEXT',
    command: { under: '', word: 'search' },
    rewrite: replace(['keywords', 'search']),
  },
  {
    from: 'gh',
    theirs: 'rsi browse PROJECT',
    ours: "rsi status PROJECT --web (the project's page)",
    command: { under: '', word: 'browse' },
    rewrite: (w) => (operand(w[1]) ? { words: ['status', w[1]!, '--web'], consumed: 2 } : undefined),
  },
  {
    from: 'kubectl',
    theirs: 'rsi whoami',
    ours: 'rsi auth status',
    command: { under: '', word: 'whoami' },
    rewrite: replace(['auth', 'status']),
  },
  {
    from: 'gh',
    theirs: 'rsi projects delete PROJECT',
    ours: "no such operation: the service's API cannot delete a project (ask the service's administrators)",
    command: { under: 'projects', word: 'delete' },
  },
  {
    from: 'gh',
    theirs: 'rsi projects view PROJECT',
    ours: 'rsi status PROJECT',
    command: { under: 'projects', word: 'view' },
    rewrite: replace(['status'], 2),
  },
  {
    from: 'az',
    theirs: 'rsi projects show PROJECT',
    ours: 'rsi status PROJECT',
    command: { under: 'projects', word: 'show' },
    rewrite: replace(['status'], 2),
  },
  {
    from: 'kubectl',
    theirs: 'rsi projects describe PROJECT',
    ours: 'rsi status PROJECT',
    command: { under: 'projects', word: 'describe' },
    rewrite: replace(['status'], 2),
  },
  {
    from: 'kubectl',
    theirs: 'rsi projects get PROJECT',
    ours: 'rsi status PROJECT',
    command: { under: 'projects', word: 'get' },
    rewrite: replace(['status'], 2),
  },
  {
    from: 'gh',
    theirs: 'rsi keywords view NAME',
    ours: 'rsi keywords get NAME',
    command: { under: 'keywords', word: 'view' },
    rewrite: replace(['keywords', 'get'], 2),
  },
  {
    from: 'az',
    theirs: 'rsi keywords show NAME',
    ours: 'rsi keywords get NAME',
    command: { under: 'keywords', word: 'show' },
    rewrite: replace(['keywords', 'get'], 2),
  },
  {
    from: 'gh',
    theirs: 'rsi keywords list',
    ours: 'rsi keywords search TEXT',
    command: { under: 'keywords', word: 'list' },
    rewrite: replace(['keywords', 'search'], 2),
  },
  {
    from: 'gh',
    theirs: 'rsi analyses list PROJECT',
    ours: 'rsi status PROJECT',
    command: { under: 'analyses', word: 'list' },
    rewrite: replace(['status'], 2),
  },
  {
    from: 'gh',
    theirs: 'rsi analyses view PROJECT',
    ours: 'rsi status PROJECT',
    command: { under: 'analyses', word: 'view' },
    rewrite: replace(['status'], 2),
  },
  {
    from: 'gh',
    theirs: 'rsi analyses watch PROJECT',
    ours: 'rsi status PROJECT --watch',
    command: { under: 'analyses', word: 'watch' },
    rewrite: (w) => ({ words: ['status', ...w.slice(2), '--watch'], consumed: w.length }),
  },
  {
    from: 'kubectl',
    theirs: 'rsi config view',
    ours: 'rsi config list',
    command: { under: 'config', word: 'view' },
    rewrite: replace(['config', 'list'], 2),
  },
  {
    from: 'kubectl',
    theirs: 'rsi config use-context PROFILE',
    ours: 'rsi auth switch PROFILE',
    command: { under: 'config', word: 'use-context' },
    rewrite: replace(['auth', 'switch'], 2),
  },
  {
    from: 'kubectl',
    theirs: 'rsi config get-contexts',
    ours: 'rsi auth status',
    command: { under: 'config', word: 'get-contexts' },
    rewrite: replace(['auth', 'status'], 2),
  },
  {
    from: 'kubectl',
    theirs: 'rsi … -o json|wide|yaml',
    ours: '--json, --wide, --format table|tsv|csv|ndjson (no YAML)',
    option: { names: ['-o', '--output'] },
    rewrite: (words) => {
      const format = FORMATS[words[1] ?? ''];
      return format ? { words: format, consumed: 2 } : undefined;
    },
  },
  {
    from: 'az',
    theirs: "rsi … --query 'JMESPath'",
    ours: "--jq 'jq expression' (jq, not JMESPath: [].name is .[].name)",
    option: { names: ['--query'] },
  },
  {
    from: 'gh',
    theirs: "rsi … --template '{{…}}'",
    ours: `--jq with string interpolation: --jq '"\\(.name)\\t\\(.id)"'`,
    option: { names: ['--template'] },
  },
  {
    from: 'az',
    theirs: 'rsi … --verbose',
    ours: '--debug (the HTTP trace, secrets redacted)',
    option: { names: ['--verbose'] },
    rewrite: replace(['--debug']),
  },
  { from: 'gh', theirs: 'rsi … --hostname HOST', ours: '--base-url URL', option: { names: ['--hostname'] } },
  {
    from: 'kubectl',
    theirs: 'rsi … --context NAME',
    ours: '--profile NAME',
    option: { names: ['--context'] },
    rewrite: (w) => (w[1] ? { words: ['--profile', w[1]], consumed: 2 } : undefined),
  },
  {
    from: 'gh',
    theirs: 'rsi … -R PROJECT',
    ours: 'the project as the argument: rsi status PROJECT',
    option: { names: ['-R', '--repo'] },
    rewrite: projectFlag,
  },
  {
    from: 'kubectl',
    theirs: 'rsi … -n N',
    ours: '--limit N where the command takes a count (--top N on analyses run); --name on projects create; the project as the argument: rsi status PROJECT',
    option: { names: ['-n'] },
    rewrite: (w, takes) =>
      countFlag(w, takes) ??
      (takes.options.includes('--name') && operand(w[1]) ? { words: ['--name', w[1]!], consumed: 2 } : projectFlag(w, takes)),
  },
  {
    from: 'kubectl',
    theirs: 'rsi … --namespace PROJECT',
    ours: 'the project as the argument: rsi status PROJECT',
    option: { names: ['--namespace', '--project'] },
    rewrite: projectFlag,
  },
  {
    from: 'kubectl',
    theirs: 'rsi signals PROJECT --watch',
    ours: 'rsi status PROJECT --watch',
    option: { names: ['--watch', '-w'], on: ['signals', 'opportunities', 'scoreboard'] },
    rewrite: (w) => ({ words: ['--watch'], consumed: w[0] === '--watch' || w[0] === '-w' ? 1 : 0 }),
  },
  {
    from: 'kubectl',
    theirs: 'rsi status PROJECT -w',
    ours: 'rsi status PROJECT --watch',
    option: { names: ['-w'], on: ['status'] },
    rewrite: replace(['--watch']),
  },
  {
    from: 'kubectl',
    theirs: 'rsi projects list -w',
    ours: 'no watching a list: rsi status PROJECT --watch follows one project',
    option: { names: ['-w', '--watch'], on: ['projects list'] },
  },
  {
    from: 'gh',
    theirs: 'rsi … --limit N / -L N',
    ours: "--limit N where the command takes a count, --top N on analyses run; projects list and opportunities print everything: cut with --jq '.[:N]' on the list, or head",
    option: { names: ['--limit', '-L'] },
    rewrite: countFlag,
  },
  {
    from: 'gh',
    theirs: "rsi … -q '.name'",
    ours: "--jq '.name'; for quiet: data goes to stdout and notes to stderr, so 2>/dev/null",
    option: { names: ['-q'] },
    rewrite: jqFlag,
  },
  {
    from: 'kubectl',
    theirs: 'rsi … -v',
    ours: '--debug (the HTTP trace, secrets redacted); the version: rsi --version',
    option: { names: ['-v'] },
    rewrite: verboseFlag,
  },
  {
    from: 'gh',
    theirs: 'rsi projects list --web',
    ours: "rsi status PROJECT --web (each project's page; the service has no page of the list)",
    option: { names: ['--web'], on: ['projects list', 'projects create'] },
  },
  {
    from: 'gh',
    theirs: 'rsi auth status --show-token',
    ours: 'rsi auth token (the access token alone, for scripts)',
    option: { names: ['--show-token', '-t'], on: ['auth status'] },
    rewrite: (w) => ({ words: ['token'], consumed: w.length }),
  },
  {
    from: 'kubectl',
    theirs: 'rsi … --sort FIELD',
    ours: "no --sort: lists keep the service's order; sort with --jq 'sort_by(.FIELD)' on the list, or --format tsv | sort",
    option: { names: ['--sort', '--sort-by'] },
  },
];

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

/** `rsi …` with the habit's words rewritten, else the habit's `ours`. */
function rebuild(habit: Habit, typed: Typed, at: number): string {
  const argv = typed.argv;
  if (at < 0 || !habit.rewrite) return habit.ours;
  const tail = splitValue(argv.slice(at));
  const fix = habit.rewrite(tail.words, typed.takes ?? { options: [], args: [] });
  if (!fix) return habit.ours;
  // A flag's `=value` (one word as typed) counts as one word consumed.
  const consumed = Math.max(0, fix.consumed - (tail.split && fix.consumed >= 2 ? 1 : 0));
  const rest = argv.slice(at + consumed);
  const before = argv.slice(0, at);
  // A flag habit on a command (`signals --watch`) can also change the command word.
  const words = habit.option?.on ? retarget(habit, [...before, ...fix.words, ...rest]) : [...before, ...fix.words, ...rest];
  return shellCommand(['rsi', ...words, ...(fix.append ?? [])]);
}

/** `signals P --watch` → `status P --watch`: the habit's command word becomes rsi's. */
function retarget(habit: Habit, words: readonly string[]): string[] {
  const target = /^rsi (\S+)/.exec(habit.ours)?.[1];
  const out = [...words];
  for (const path of habit.option?.on ?? []) {
    const parts = path.split(' ');
    const i = startOf(out, parts);
    if (i >= 0 && target) {
      out.splice(i, parts.length, target);
      break;
    }
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

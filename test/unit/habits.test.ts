// Habits of gh, kubectl and az: each gets one line naming rsi's equivalent (exit 2, a usage error),
// the rewritten command line parses in rsi (following the line fixes what it names), an unquoted
// name gets a hint to quote it, and docs/commands.md's habits table is rendered from the same table.
import { readFileSync, writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { HABITS } from '../../src/commands/shared/habits.js';
import { shellWords } from '../../src/io/help-text.js';
import { applyToAll, loadProgram } from '../../src/program.js';
import { fakeCtx, fakeIo } from '../support/fakes.js';

async function rsi(...argv: string[]): Promise<{ err: string; code: string | undefined }> {
  const io = fakeIo();
  // The tree a run builds for this line: a word no command has gets the commands listed, not loaded.
  const program = await loadProgram(fakeCtx(io, 'tsv'), argv);
  let code: string | undefined;
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    code = (error as { code?: string }).code;
  }
  return { err: io.err(), code };
}

/** Parses a command line without running anything: every action is replaced by a no-op. */
async function parses(line: string): Promise<string | undefined> {
  const io = fakeIo();
  const program = await loadProgram(fakeCtx(io, 'tsv'));
  applyToAll(program, (cmd: Command) => {
    if ((cmd as unknown as { _actionHandler?: unknown })._actionHandler) cmd.action(() => undefined);
  });
  // Only the preAction hooks of the real program read settings: a parse-only check needs none.
  (program as unknown as { _lifeCycleHooks: Record<string, unknown[]> })._lifeCycleHooks.preAction = [];
  const words = shellWords(line.replace(/^rsi /, '')).map(unquote);
  try {
    await program.parseAsync(words, { from: 'user' });
    return undefined;
  } catch (error) {
    if ((error as { code?: string }).code === 'commander.version') return undefined;
    return `${(error as Error).message} ${io.err()}`;
  }
}

function unquote(word: string): string {
  if (/^".*"$/.test(word)) return word.slice(1, -1);
  if (/^'.*'$/.test(word)) return word.slice(1, -1).replace(/'\\''/g, "'");
  return word;
}

const TABLE: readonly [string, string][] = [
  ['auth login', "unknown command 'auth login' (gh's); in rsi: rsi login"],
  ['--profile ttl auth login', "unknown command 'auth login' (gh's); in rsi: rsi --profile ttl login"],
  ['auth logout', "unknown command 'auth logout' (gh's); in rsi: rsi logout"],
  ['auth refresh -s analyses:run', "unknown command 'auth refresh' (gh's); in rsi: rsi login --add-scope analyses:run"],
  ['auth whoami', "unknown command 'auth whoami' (kubectl's); in rsi: rsi auth status"],
  ['account show', "unknown command 'account' (az's); in rsi: rsi auth status"],
  ['version', "unknown command 'version' (gh's); in rsi: rsi --version"],
  ['completions bash', "unknown command 'completions' (gh's); in rsi: rsi completion bash"],
  ['projects list -o json', "unknown option '-o' (kubectl's); in rsi: rsi projects list --json"],
  ['projects list -ojson', "unknown option '-ojson' (kubectl's); in rsi: rsi projects list --json"],
  ['projects list -o wide', "unknown option '-o' (kubectl's); in rsi: rsi projects list --wide"],
  ['projects list --output=csv', "unknown option '--output' (kubectl's); in rsi: rsi projects list --format csv"],
  ['projects list --output', "unknown option '--output' (kubectl's); in rsi: rsi projects list --json"],
  // JSON is YAML: a YAML reader takes --json's output.
  ['projects list -o yaml', "unknown option '-o' (kubectl's); in rsi: rsi projects list --json"],
  ['projects list -o name', `unknown option '-o' (kubectl's); in rsi: rsi projects list --jq ".projects[].name"`],
  [
    'projects list -o custom-columns=NAME:.name,ROLE:.role',
    "unknown option '-o' (kubectl's); in rsi: rsi projects list --fields name,role",
  ],
  // JMESPath over the list where rsi's document keeps it (`.projects`).
  ['projects list --query [].name', `unknown option '--query' (az's); in rsi: rsi projects list --jq "[.projects[].name]"`],
  [
    "projects list --query [?role=='owner'].name",
    `unknown option '--query' (az's); in rsi: rsi projects list --jq '[.projects[] | select(.role == "owner") | .name]'`,
  ],
  ['projects list --template {{.name}}', `unknown option '--template' (gh's); in rsi: rsi projects list --jq '.projects[] | "\\(.name)"'`],
  [
    'keywords get EGFR --template {{.name}}:{{.papers}}',
    `unknown option '--template' (gh's); in rsi: rsi keywords get EGFR --jq '"\\(.name):\\(.activity.papers)"'`,
  ],
  ['projects view "My project"', `unknown command 'projects view' (gh's); in rsi: rsi status "My project"`],
  ['projects view', "unknown command 'projects view' (gh's); in rsi: rsi status"],
  ['projects show P', "unknown command 'projects show' (az's); in rsi: rsi status P"],
  ['keywords view EGFR', "unknown command 'keywords view' (gh's); in rsi: rsi keywords get EGFR"],
  ['analyses watch P', "unknown command 'analyses watch' (gh's); in rsi: rsi status P --watch"],
  ['signals P --watch', "unknown option '--watch' (kubectl's); in rsi: rsi status P --watch"],
  ['opportunities -w P', "unknown option '-w' (kubectl's); in rsi: rsi status --watch P"],
  ['config view', "unknown command 'config view' (kubectl's); in rsi: rsi config list"],
  ['config use-context work', "unknown command 'config use-context' (kubectl's); in rsi: rsi auth switch work"],
  ['status P --verbose', "unknown option '--verbose' (az's); in rsi: rsi status P --debug"],
  ['status --context work P', "unknown option '--context' (kubectl's); in rsi: rsi status --profile work P"],
  ['signals -R "KRAS inhibitors"', `unknown option '-R' (gh's); in rsi: rsi signals "KRAS inhibitors"`],
  ['status -n P', "unknown option '-n' (kubectl's); in rsi: rsi status P"],
  ['ls', "unknown command 'ls' (gh's); in rsi: rsi projects list"],
  ['get projects', "unknown command 'get' (kubectl's); in rsi: rsi projects list"],
  ['get project P', "unknown command 'get' (kubectl's); in rsi: rsi status P"],
  ['describe project P', "unknown command 'describe' (kubectl's); in rsi: rsi status P"],
  ['describe keyword EGFR', "unknown command 'describe' (kubectl's); in rsi: rsi keywords get EGFR"],
  ['search egfr', "unknown command 'search' (gh's); in rsi: rsi keywords search egfr"],
  ['browse P', "unknown command 'browse' (gh's); in rsi: rsi status P --web"],
  ['browse', "unknown command 'browse' (gh's); in rsi: rsi status --web"],
  ['kw egfr', "unknown command 'kw' (kubectl's); in rsi: rsi keywords search egfr"],
  ['project list', "unknown command 'project' (az's); in rsi: rsi projects list"],
  ['get pods', "unknown command 'get' (kubectl's); in rsi: rsi projects list"],
  ['whoami', "unknown command 'whoami' (kubectl's); in rsi: rsi auth status"],
  [
    'projects delete P',
    "unknown command 'projects delete' (gh's); in rsi: no such operation: the service's API cannot delete a project (ask the service's administrators)",
  ],
  ['keywords search egfr -n 3', "unknown option '-n' (kubectl's); in rsi: rsi keywords search egfr --limit 3"],
  ['projects create -n X', "unknown option '-n' (kubectl's); in rsi: rsi projects create --name X"],
  [
    'keywords relations EGFR --relation indications -n 3',
    "unknown option '-n' (kubectl's); in rsi: rsi keywords relations EGFR --relation indications --limit 3",
  ],
  ['signals P -n 3', "unknown option '-n' (kubectl's); in rsi: rsi signals P --limit 3"],
  ['analyses run P -n 3', "unknown option '-n' (kubectl's); in rsi: rsi analyses run P --top 3"],
  ['status P -w', "unknown option '-w' (kubectl's); in rsi: rsi status P --watch"],
  ['projects list -w', "unknown option '-w' (kubectl's); in rsi: rsi projects list"],
  ['keywords relations EGFR --type assets', "unknown option '--type' (kubectl's); in rsi: rsi keywords relations EGFR --relation assets"],
  ['signals P -L 3', "unknown option '-L' (gh's); in rsi: rsi signals P --limit 3"],
  ['analyses run P --limit 3', "unknown option '--limit' (gh's); in rsi: rsi analyses run P --top 3"],
  ['projects list -L 3', "unknown option '-L' (gh's); in rsi: rsi projects list --limit 3"],
  ['opportunities P --limit 3', `unknown option '--limit' (gh's); in rsi: rsi opportunities P --jq ".keywords[:3]"`],
  ['keywords search in --max-items 30', `unknown option '--max-items' (aws's); in rsi: rsi keywords search in --all --jq ".[:30]"`],
  ['projects list --quiet', `unknown option '--quiet' (docker's); in rsi: rsi projects list --jq ".projects[].id"`],
  ['projects list -q .projects', "unknown option '-q' (gh's); in rsi: rsi projects list --jq .projects"],
  ['projects list -v', "unknown option '-v' (kubectl's); in rsi: rsi projects list --debug"],
  ['-v', "unknown option '-v' (kubectl's); in rsi: rsi --version"],
  ['projects list --web', "unknown option '--web' (gh's); in rsi: rsi status --web"],
  ['auth status --show-token', "unknown option '--show-token' (gh's); in rsi: rsi auth token"],
  ['projects list --sort name', `unknown option '--sort' (kubectl's); in rsi: rsi projects list --jq ".projects | sort_by(.name)"`],
  [
    'keywords search egfr --sort-by=-name',
    `unknown option '--sort-by' (kubectl's); in rsi: rsi keywords search egfr --jq ".data | sort_by(.name) | reverse"`,
  ],
];

describe('habits of gh, kubectl, az, aws and docker', () => {
  for (const [line, expected] of TABLE) {
    it(`rsi ${line}`, async () => {
      const { err, code } = await rsi(...shellWords(line).map(unquote));
      expect(err).toBe(`rsi: ${expected}\n`);
      expect(code).toMatch(/^commander\.unknown/);
    });
  }

  it('following each rewritten line parses in rsi (no usage error)', async () => {
    for (const [line, expected] of TABLE) {
      const fix = /; in rsi: (rsi .*)$/.exec(expected)?.[1];
      // Every answer is a command (the one exception says there is no such operation).
      if (!fix) {
        expect(expected, line).toContain('no such operation');
        continue;
      }
      expect(await parses(fix), `${line} → ${fix}`).toBeUndefined();
    }
  });

  it('leaves unknown words that are no habit to commander', async () => {
    expect((await rsi('projects', 'frobnicate')).err).toBe("rsi: unknown command 'frobnicate'\n");
    expect((await rsi('status', 'P', '--bogus')).err).toBe("rsi: unknown option '--bogus'\n");
    // A habit flag scoped to some commands is not one elsewhere.
    expect((await rsi('keywords', 'search', 'x', '--watch')).err).toBe("rsi: unknown option '--watch'\n");
  });
});

describe('an unquoted name', () => {
  it('gets a hint with the command line quoted', async () => {
    const { err, code } = await rsi('--profile', 'x', 'status', 'My', 'first', 'project', '--json');
    expect(code).toBe('commander.excessArguments');
    expect(err).toBe(
      "rsi: too many arguments for 'status'. Expected 1 argument but got 3: My, first, project.\n" +
        'hint: a name with spaces is one argument: quote it, as in rsi --profile x status "My first project" --json\n',
    );
    const fix = /as in (rsi .*)$/m.exec(err)![1]!;
    expect(await parses(fix)).toBeUndefined();
  });

  it('keeps a name with quotes or $ safe in single quotes', async () => {
    const { err } = await rsi('opportunities', "Bob's", '$HOME', 'plan');
    expect(err).toContain(`as in rsi opportunities 'Bob'\\''s $HOME plan'\n`);
  });
});

describe("a name given as the argument of a command that takes it as --name (gh's repo create NAME)", () => {
  it('gets a hint with the line rewritten to --name, quoted or not, and the fix parses', async () => {
    for (const [typed, fix] of [
      [['projects', 'create', 'Lung 2026', '--brief', 'b'], 'rsi projects create --name "Lung 2026" --brief b'],
      [['--profile', 'x', 'projects', 'create', 'Lung', '2026'], 'rsi --profile x projects create --name "Lung 2026"'],
      [['projects', 'create', 'projects'], 'rsi projects create --name projects'],
    ] as const) {
      const { err, code } = await rsi(...typed);
      expect(code).toBe('commander.excessArguments');
      expect(err.split('\n')[1]).toBe(`hint: the name goes with --name: ${fix}`);
      expect(await parses(fix)).toBeUndefined();
    }
    // A command without --name gets no such hint.
    expect((await rsi('projects', 'list', 'foo')).err).not.toContain('--name');
  });
});

/** A table cell: a pipe would end it. */
const cell = (text: string) => text.replace(/\|/g, '\\|');

/** The command part as code, a note in parentheses as prose. */
function ours(text: string): string {
  const [, code, note] = /^(.*?)( \(.*\))?$/.exec(text)!;
  return /^(rsi |--)/.test(code!) && !code!.includes(': ') ? `\`${cell(code!)}\`${cell(note ?? '')}` : cell(text);
}

describe('docs/commands.md', () => {
  it('shows the habits table rendered from the CLI table', () => {
    const file = new URL('../../docs/commands.md', import.meta.url);
    const doc = readFileSync(file, 'utf8');
    const begin = '<!-- habits: rendered from src/commands/shared/habits.ts by test/unit/habits.test.ts -->\n';
    const end = '<!-- /habits -->';
    const table = [
      '| typed | habit of | in rsi |',
      '|---|---|---|',
      ...HABITS.map((h) => `| \`${cell(h.theirs)}\` | ${h.from} | ${ours(h.ours)} |`),
    ].join('\n');
    const at = doc.indexOf(begin);
    const stop = doc.indexOf(end, at);
    expect(at, 'docs/commands.md has the habits markers').toBeGreaterThan(0);
    const next = `${doc.slice(0, at + begin.length)}${table}\n${doc.slice(stop)}`;
    if (process.env.RSI_UPDATE_GOLDEN === '1') writeFileSync(file, next);
    expect(doc.slice(at + begin.length, stop)).toBe(`${table}\n`);
  });
});

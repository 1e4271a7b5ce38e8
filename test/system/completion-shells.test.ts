// Completion in real shells (issue 20, item 6): project names that are shell code, globs, quotes
// and escape bytes are completed by bash, zsh (through bashcompinit) and fish as the scripts
// `rsi completion <shell>` print. Nothing may be globbed, evaluated or run, and no raw control byte
// may come back; a completed word, typed into the shell, must read back as exactly one argument.
// The names come from the real `rsi __complete projects`, which asks a small foreign service (a
// node:http child process: the shells are run with spawnSync, which would block a server in this one).
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RSI_BIN, CHILD_BOUND_MS } from '../support/cli.js';
import { rawControls } from '../support/sandbox.js';
import { shellPart, skipWithout } from '../support/system.js';

const NAMES = [
  '$(touch pwned-subst)',
  '`touch pwned-backtick`',
  'x; touch pwned-semicolon',
  '/etc/pass*',
  `it's "quoted"`,
  'esc\u001b]52;c;ZXZpbA==\u0007\u001b[2Jend',
  'plain',
];
/** What rsi shows for each name: the ESC and BEL bytes as visible escapes. */
const SHOWN = NAMES.map((n) => n.replace('\u001b]52;c;ZXZpbA==\u0007\u001b[2J', '\\x1b]52;c;ZXZpbA==\\x07\\x1b[2J'));

let work: string;
let cwd: string;
let env: NodeJS.ProcessEnv;
let service: ChildProcess | undefined;

/** Answers GET /api/v1/projects with NAMES; prints its base URL on its first line. */
const SERVICE = `
const names = JSON.parse(process.argv[1]);
const projects = names.map((name, i) => ({ id: '00000000-0000-4000-8000-00000000000' + i, name, role: 'owner' }));
require('node:http')
  .createServer((req, res) => {
    res.writeHead(req.url.startsWith('/api/v1/projects') ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ projects }));
  })
  .listen(0, '127.0.0.1', function () { console.log('http://127.0.0.1:' + this.address().port); });
`;

async function startService(): Promise<string> {
  const child = spawn(process.execPath, ['-e', SERVICE, JSON.stringify(NAMES)], { stdio: ['ignore', 'pipe', 'inherit'] });
  service = child;
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.stdout!.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()));
  });
}

beforeAll(async () => {
  const base = await startService();
  work = mkdtempSync(join(tmpdir(), 'rsi-completion-shells-'));
  cwd = join(work, 'cwd');
  const bin = join(work, 'bin');
  const config = join(work, 'config');
  for (const d of [cwd, bin, config]) mkdirSync(d);
  // `rsi` on PATH, as the scripts call it.
  writeFileSync(join(bin, 'rsi'), `#!/bin/sh\nexec '${process.execPath}' '${RSI_BIN}' "$@"\n`);
  chmodSync(join(bin, 'rsi'), 0o755);
  env = {
    PATH: `${bin}:${process.env.PATH ?? ''}`,
    HOME: work,
    RSI_CONFIG_DIR: config,
    RSI_BASE_URL: base,
    RSI_TOKEN: 'completion-test-token',
    ZDOTDIR: work,
    XDG_CONFIG_HOME: join(work, 'xdg'),
    XDG_DATA_HOME: join(work, 'xdg-data'),
  };
  for (const shell of ['bash', 'zsh', 'fish']) {
    const r = spawnSync(process.execPath, [RSI_BIN, 'completion', shell], { env, encoding: 'utf8' });
    writeFileSync(join(work, `rsi.${shell}`), r.stdout);
  }
});

afterAll(() => {
  service?.kill();
  rmSync(work, { recursive: true, force: true });
});

function sh(shell: string, script: string): { stdout: string; stderr: string; status: number | null } {
  // An outer bound for a shell that hangs, not a speed limit (a busy machine starts zsh late).
  const r = spawnSync(shell, ['-c', script], { cwd, env, encoding: 'utf8', timeout: CHILD_BOUND_MS });
  return { stdout: r.stdout, stderr: r.stderr, status: r.status };
}

/** Nothing ran: no file appeared in the working folder. */
function expectNothingRan(): void {
  expect(readdirSync(cwd)).toEqual([]);
}

/** Each completed word, typed on a command line of `shell`, is read back as one argument: the shown name. */
function expectWordsReadBack(shell: string, replies: string[]): void {
  for (const [i, reply] of replies.entries()) {
    const r = sh(shell, `printf '%s\\0' ${reply}`);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout, `${shell}: ${reply}`).toBe(`${SHOWN[i]}\0`);
  }
  expectNothingRan();
}

const replies = (stdout: string): string[] => stdout.split('\0').slice(0, -1);

describe.skipIf(skipWithout(shellPart('bash')))('bash', () => {
  it('completes hostile project names quoted, unexpanded, with no raw control byte', () => {
    const r = sh(
      'bash',
      `source '${join(work, 'rsi.bash')}'; COMP_WORDS=(rsi status ''); COMP_CWORD=2; _rsi_completion; printf '%s\\0' "\${COMPREPLY[@]}"`,
    );
    expect(r.status, r.stderr).toBe(0);
    const words = replies(r.stdout);
    expect(rawControls(words.join(''))).toEqual([]);
    expect(words).toHaveLength(NAMES.length);
    expect(words).not.toContain('/etc/passwd');
    expectNothingRan();
    expectWordsReadBack('bash', words);
  });

  it('a prefix is compared as text, not as a pattern', () => {
    const r = sh(
      'bash',
      `source '${join(work, 'rsi.bash')}'; COMP_WORDS=(rsi status '/etc/pa'); COMP_CWORD=2; _rsi_completion; printf '%s\\0' "\${COMPREPLY[@]}"`,
    );
    expect(replies(r.stdout)).toEqual(['/etc/pass\\*']);
    expectNothingRan();
  });
});

describe.skipIf(skipWithout(shellPart('zsh')))('zsh (bashcompinit)', () => {
  it('completes hostile project names quoted, unexpanded, with no raw control byte', () => {
    // As zsh's _bash_complete calls a bash completion function: sh emulation, 0-based arrays.
    const r = sh(
      'zsh',
      `autoload -U compinit && compinit -u -D; source '${join(work, 'rsi.zsh')}'
t() { emulate -L sh; setopt kshglob noshglob braceexpand; COMP_WORDS=(rsi status ''); COMP_CWORD=2; _rsi_completion; printf '%s\\0' "\${COMPREPLY[@]}"; }
t`,
    );
    expect(r.status, r.stderr).toBe(0);
    const words = replies(r.stdout);
    expect(rawControls(words.join(''))).toEqual([]);
    expect(words).toHaveLength(NAMES.length);
    expectNothingRan();
    expectWordsReadBack('zsh', words);
  });
});

describe.skipIf(skipWithout(shellPart('fish')))('fish', () => {
  it('completes hostile project names as plain text, nothing run, no raw control byte', () => {
    const r = sh('fish', `source '${join(work, 'rsi.fish')}'; complete -C 'rsi status '`);
    expect(r.status, r.stderr).toBe(0);
    expect(rawControls(r.stdout)).toEqual([]);
    const candidates = r.stdout
      .trimEnd()
      .split('\n')
      .map((l) => l.split('\t')[0]);
    expect([...candidates].sort()).toEqual([...SHOWN].sort());
    expectNothingRan();
    expect(existsSync('/etc/passwd') && candidates.includes('/etc/passwd')).toBe(false);
  });
});

// Progress where a person waits (issue 43, item 6), in a real terminal (tmux, 80 columns): a long
// walk whose rows go to a file shows `fetched N of M` on stderr, in place, and clears it at the end;
// never in CI, never when stderr is not a terminal, never when stdout is the terminal.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RSI_BIN } from '../support/cli.js';
import { obtainTokens } from '../support/oauth.js';
import { type InProcessSandbox, startSandbox } from '../support/inproc.js';
import { skipWithout, tmuxPart } from '../support/system.js';
import { privateTmux, sh } from '../support/tmux.js';

const skip = skipWithout(tmuxPart());
const term = privateTmux('progress');

let sandbox: InProcessSandbox;
let dir: string;
let env: Record<string, string>;
let session = 0;

/** Runs a shell line (rsi's words, then redirections) in a fresh 80x24 window; EXIT=<code> when it ends. */
function start(args: readonly string[], redirect: string, extra: Record<string, string> = {}): string {
  const name = `p${++session}`;
  const envArgs = Object.entries({ ...env, ...extra }).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  const command = `${sh(process.execPath)} ${sh(RSI_BIN)} ${args.map(sh).join(' ')} ${redirect}; echo EXIT=$?; sleep 3600`;
  term.tmux('new-session', '-d', '-s', name, '-x', '80', '-y', '24', ...envArgs, command);
  return name;
}

/** Every screen until EXIT= shows (read each time the pane printed), the last one, and what was printed. */
const watch = (name: string) => term.watch(name, /EXIT=\d+/);

const RELATIONS = ['keywords', 'relations', 'EGFR', '--relation', 'all', '--all', '--format', 'csv'];

describe.skipIf(skip)('progress of long walks (tmux, 80 columns)', () => {
  beforeAll(async () => {
    // Every reply waits 700 ms: each page of the walk stays on screen long enough to be read.
    sandbox = await startSandbox(['--auto-approve', '--quiet', '--latency', '700']);
    const tokens = await obtainTokens(sandbox.url);
    dir = mkdtempSync(join(tmpdir(), 'rsi-progress-'));
    env = { RSI_TOKEN: tokens.access_token, RSI_BASE_URL: sandbox.url, RSI_CONFIG_DIR: dir, TERM: 'xterm-256color' };
  });

  afterAll(async () => {
    term.killServer();
    await sandbox?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('stdout to a file: `fetched N of M` on the terminal while it runs, gone at the end; the file has every row', async () => {
    const file = join(dir, 'all.csv');
    const s = start(RELATIONS, `> ${sh(file)}`);
    const shown = await term.waitFor(s, /fetched \d+ of \d+/);
    const [, n, m] = /fetched (\d+) of (\d+)/.exec(shown)!;
    expect(Number(n)).toBeLessThanOrEqual(Number(m));
    const { last, output } = await watch(s);
    expect(last).toContain('EXIT=0');
    expect(last).not.toContain('fetched');
    // The bytes sent carry each count (what the "never" cases below look for in theirs).
    expect(output).toMatch(/fetched \d+ of \d+/);
    // Cleared in place: the prompt line is the first line, no leftover text above it.
    expect(last.trimStart().startsWith('EXIT=0')).toBe(true);
    const rows = readFileSync(file, 'utf8').trim().split('\r\n');
    expect(rows[0]).toBe('relation,activity,name,count,stage,id');
    expect(rows.length).toBeGreaterThan(1);
  });

  it('a batch from stdin: items fetched of items, then cleared', async () => {
    const input = join(dir, 'genes.txt');
    writeFileSync(input, 'EGFR\nKRAS\nBRAF\nALK\nROS1\nMET\n');
    // One item at a time, so each count stays on screen for a reply's latency.
    const s = start(['keywords', 'get', '-', '--format', 'csv'], `< ${sh(input)} > ${sh(join(dir, 'batch.csv'))}`, {
      RSI_PAGES_IN_FLIGHT: '1',
    });
    await term.waitFor(s, /fetched [1-5] of 6/);
    const { last } = await watch(s);
    expect(last).toContain('EXIT=0');
    expect(last).not.toContain('fetched');
  });

  it.each([
    ['in CI', `> ${'/dev/null'}`, { CI: 'true' }],
    ['stderr not a terminal', `> /dev/null 2> ${'/dev/null'}`, {}],
    ['stdout the terminal', '', {}],
  ])('never %s', async (_what, redirect, extra) => {
    const s = start(RELATIONS, redirect, extra);
    const { seen, last, output } = await watch(s);
    expect(last).toContain('EXIT=0');
    expect(seen.filter((screen) => screen.includes('fetched'))).toEqual([]);
    // Not even for an instant no screen caught: the bytes the terminal was sent.
    expect(output).not.toContain('fetched');
  });
});

// The pager in a real terminal (tmux): a long table on a terminal goes through `less -FRX` (or
// RSI_PAGER / PAGER); `q` leaves with exit 0, and so does Ctrl-C then `q`; --no-pager, a pipe and a
// short table never keep the screen.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { skipWithout, tmuxPart } from '../support/system.js';
import { privateTmux } from '../support/tmux.js';
import { startSandbox, type InProcessSandbox } from '../support/inproc.js';
import { FAKE_BROWSER } from '../support/browser.js';

const skip =
  skipWithout(tmuxPart()) ||
  skipWithout({ name: 'less', available: existsSync('/usr/bin/less'), reason: 'less not found (apt-get install less)' });
const term = privateTmux('pager');
const LONG = ['keywords', 'relations', 'Non-small cell lung cancer', '--relation', 'assets', '--all'];
let sb: InProcessSandbox;
let env: Record<string, string>;
let session = 0;

const start = (args: string[], extra: Record<string, string> = {}) =>
  term.start(`g${++session}`, args, { width: 100, height: 20, env: { ...env, LANG: 'C.UTF-8', ...extra } });

describe.skipIf(skip)('the pager in a real terminal (tmux)', () => {
  beforeAll(async () => {
    term.tmux('new-session', '-d', '-s', 'keeper', 'sleep 3600');
    sb = await startSandbox(['--auto-approve', '--quiet']);
    const dir = mkdtempSync(join(tmpdir(), 'rsi-pager-'));
    env = { RSI_CONFIG_DIR: dir, RSI_CREDENTIAL_STORE: 'file', TERM: 'xterm-256color' };
    const r = await runCli(['login', '--base-url', sb.url], { env: { ...env, BROWSER: FAKE_BROWSER } });
    expect(r.code, r.stderr).toBe(0);
  });

  afterAll(async () => {
    term.killServer();
    await sb?.stop();
    if (env) rmSync(env.RSI_CONFIG_DIR!, { recursive: true, force: true });
  });

  it('a long table waits in less; q leaves with exit 0', async () => {
    const name = start(LONG);
    // less's prompt on the last line, and rsi still running.
    const screen = await term.waitFor(name, /^:\s*$/m);
    expect(screen).not.toMatch(/EXIT=/);
    expect(screen).toMatch(/^NAME +COUNT/m);
    term.tmux('send-keys', '-t', name, 'q');
    expect(await term.waitFor(name, /EXIT=\d+/)).toMatch(/EXIT=0/);
  });

  it('Ctrl-C in the pager, then q: the terminal given back, 0 if all was read, else 130', async () => {
    const name = start(LONG);
    await term.waitFor(name, /^:\s*$/m);
    term.tmux('send-keys', '-t', name, 'C-c');
    // less flushes what was typed ahead when it takes an interrupt, so a q sent at once can be
    // dropped: q is pressed again, once a second, until the shell prints the exit status (the
    // second is a resend interval, not a bound: the bound is 120 s).
    let screen = '';
    const end = Date.now() + 120_000;
    while (!/EXIT=\d+/.test(screen) && Date.now() < end) {
      term.tmux('send-keys', '-t', name, 'q');
      screen = await term.waitFor(name, /EXIT=\d+/, 1_000).catch(() => '');
    }
    // Ctrl-C stops rsi if it was still fetching pages (130, "interrupted"); less keeps the screen
    // until q either way, and nothing but that one line follows.
    screen = await term.waitFor(name, /EXIT=\d+/);
    expect(screen).toMatch(/EXIT=(0|130)\n/);
    expect(screen).not.toMatch(/unexpected|Error|at .*\.js/);
  });

  it('--no-pager prints straight through', async () => {
    const name = start([...LONG, '--no-pager']);
    expect(await term.waitFor(name, /EXIT=\d+/)).toMatch(/EXIT=0/);
  });

  it('a table that fits the screen leaves at once (less -F)', async () => {
    const name = start(['projects', 'list']);
    const screen = await term.waitFor(name, /EXIT=\d+/);
    expect(screen).toMatch(/EXIT=0/);
    expect(screen).toMatch(/^NAME +ROLE/m);
  });

  it('RSI_PAGER wins over PAGER', async () => {
    const name = start(['projects', 'list'], { RSI_PAGER: "sed 's/^/paged: /'", PAGER: "sed 's/^/wrong: /'" });
    const screen = await term.waitFor(name, /EXIT=\d+/);
    expect(screen).toMatch(/^paged: NAME +ROLE/m);
    expect(screen).not.toContain('wrong:');
  });

  it('never for piped output, --watch or a format other than table', async () => {
    const marker = join(env.RSI_CONFIG_DIR!, 'paged');
    const pager = { RSI_PAGER: `touch ${marker}; cat` };
    const piped = await runCli(['projects', 'list'], { env: { ...env, ...pager } });
    expect(piped.code).toBe(0);
    const csv = start(['projects', 'list', '--format', 'csv'], pager);
    expect(await term.waitFor(csv, /EXIT=\d+/)).toMatch(/EXIT=0/);
    const watch = start(['status', 'KRAS inhibitors', '--watch', '--timeout', '1'], pager);
    await term.waitFor(watch, /EXIT=\d+/);
    expect(existsSync(marker)).toBe(false);
  });
});

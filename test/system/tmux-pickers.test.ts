// Pickers at a real terminal (tmux): a left-out project is picked from a searchable list (most
// recent first), `analyses run P` with nothing chosen offers the unanalysed signals in a checkbox,
// `projects create` asks for the name. RSI_NO_PROMPT=1, the `prompts off` setting and a pipe keep
// today's exit 2 and usage line.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { skipWithout, tmuxPart } from '../support/system.js';
import { privateTmux } from '../support/tmux.js';
import { startSandbox, type InProcessSandbox } from '../support/inproc.js';
import { FAKE_BROWSER } from '../support/browser.js';

const skip = skipWithout(tmuxPart());
const term = privateTmux('pickers');
let sb: InProcessSandbox;
let env: Record<string, string>;
let session = 0;

const start = (args: string[], extra: Record<string, string> = {}) =>
  term.start(`k${++session}`, args, { width: 100, height: 30, env: { ...env, LANG: 'C.UTF-8', RSI_PAGER: 'cat', ...extra } });
const keys = (name: string, ...k: string[]) => term.tmux('send-keys', '-t', name, ...k);

describe.skipIf(skip)('pickers at a real terminal (tmux)', () => {
  beforeAll(async () => {
    term.tmux('new-session', '-d', '-s', 'keeper', 'sleep 3600');
    sb = await startSandbox(['--auto-approve', '--quiet']);
    const dir = mkdtempSync(join(tmpdir(), 'rsi-pickers-'));
    env = { RSI_CONFIG_DIR: dir, RSI_CREDENTIAL_STORE: 'file', TERM: 'xterm-256color' };
    const r = await runCli(['login', '--base-url', sb.url], { env: { ...env, BROWSER: FAKE_BROWSER } });
    expect(r.code, r.stderr).toBe(0);
  });

  afterAll(async () => {
    term.killServer();
    await sb?.stop();
    if (env) rmSync(env.RSI_CONFIG_DIR!, { recursive: true, force: true });
  });

  it('a left-out project is picked from a list, most recent first, narrowed by typing', async () => {
    const name = start(['status']);
    const list = await term.waitFor(name, /Project \(type to search\)[\s\S]*Oncology watchlist/);
    // The seed's projects by creation, newest first.
    const order = ['Immunology pipeline', 'Fibrosis landscape', 'KRAS inhibitors', 'Oncology watchlist'].map((p) => list.indexOf(p));
    expect(order).toEqual([...order].sort((a, b) => a - b));
    keys(name, 'KRAS');
    await term.waitFor(name, /Project \(type to search\) KRAS\n❯ KRAS inhibitors\n\n/);
    keys(name, 'Enter');
    const screen = await term.waitFor(name, /EXIT=\d+/);
    expect(screen).toMatch(/^Project: +KRAS inhibitors$/m);
    expect(screen).toContain('EXIT=0');
  });

  it('analyses run with nothing chosen: a checkbox of the unanalysed signals (name, type, rank)', async () => {
    const name = start(['analyses', 'run', 'Oncology watchlist']);
    const list = await term.waitFor(name, /Signals to analyse in "Oncology watchlist"/);
    expect(list).toMatch(/◯ \S.* {2}\((target|disease|modality|mechanism), rank \d+\)/);
    expect(list).not.toContain(', analysed)');
    keys(name, 'Space');
    keys(name, 'Down');
    keys(name, 'Space');
    keys(name, 'Enter');
    const screen = await term.waitFor(name, /EXIT=\d+|Run \d+/);
    if (/Run \d+/.test(screen) && !/EXIT=/.test(screen)) keys(name, 'y', 'Enter');
    const done = await term.waitFor(name, /EXIT=\d+/);
    expect(done).toMatch(/Started 2 analyses for "Oncology watchlist"/);
    expect(done).toContain('EXIT=0');
  });

  it('projects create asks for the name', async () => {
    const name = start(['projects', 'create']);
    await term.waitFor(name, /\? Project name/);
    keys(name, 'Picked at the terminal');
    keys(name, 'Enter');
    const screen = await term.waitFor(name, /EXIT=\d+/);
    expect(screen).toContain('EXIT=0');
    const list = await runCli(['projects', 'list', '--json'], { env });
    expect(list.stdout).toContain('"Picked at the terminal"');
  });

  it('in a C locale the picker, and everything else drawn, is ASCII; Ctrl-C leaves with 130', async () => {
    const name = start(['status'], { LANG: 'C', LC_ALL: 'C' });
    // The search picker draws its frame first and the projects when their page arrives: wait for
    // the first one, not the frame.
    const list = await term.waitFor(name, /Project \(type to search\)[\s\S]*^> [A-Z][\s\S]*navigate/m);
    expect(list).toMatch(/^[\x20-\x7e\n]*$/);
    keys(name, 'C-c');
    const screen = await term.waitFor(name, /EXIT=\d+/);
    expect(screen).toContain('rsi: interrupted\nEXIT=130');
  });

  it('RSI_NO_PROMPT=1, prompts off, or no terminal: exit 2 and the usage line, as before', async () => {
    for (const extra of [{ RSI_NO_PROMPT: '1' }]) {
      const name = start(['status'], extra);
      const screen = await term.waitFor(name, /EXIT=\d+/);
      expect(screen).toContain(
        "rsi: missing required argument 'project'\nhint: name the project, or set a default: `rsi config set project NAME` (or RSI_PROJECT)\nEXIT=2",
      );
    }
    expect((await runCli(['config', 'set', 'prompts', 'off'], { env })).code).toBe(0);
    const off = start(['analyses', 'run', 'Oncology watchlist']);
    expect(await term.waitFor(off, /EXIT=\d+/)).toMatch(/rsi: say what to analyse: .*\n(.*\n)?EXIT=2/);
    const noName = start(['projects', 'create']);
    expect(await term.waitFor(noName, /EXIT=\d+/)).toContain('rsi: --name is required\nEXIT=2');
    expect((await runCli(['config', 'unset', 'prompts'], { env })).code).toBe(0);
    const piped = await runCli(['status'], { env });
    expect(piped.code).toBe(2);
    expect(piped.stderr).toBe(
      "rsi: missing required argument 'project'\nhint: name the project, or set a default: `rsi config set project NAME` (or RSI_PROJECT)\n",
    );
  });
});

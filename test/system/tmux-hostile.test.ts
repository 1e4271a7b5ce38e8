// A real terminal (tmux) against `rsi sandbox --fault hostile`: the confirmation prompt of
// `analyses run`, whose assumption and signal names are server text full of escapes, must show
// that text escaped. Raw, the sequences would clear the screen (so the question's context would
// vanish), turn text red, reverse it (bidi), and write tmux's clipboard (OSC 52).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { obtainTokens } from '../support/oauth.js';
import { HOSTILE_PLAIN_PROJECT, sandboxStats } from '../support/sandbox.js';
import { skipWithout, tmuxPart } from '../support/system.js';
import { privateTmux } from '../support/tmux.js';
import { startSandbox, type InProcessSandbox } from '../support/inproc.js';

const skip = skipWithout(tmuxPart());
// A private tmux server (test/support/tmux.ts): a developer's sessions are never touched.
const term = privateTmux('hostile');
const { tmux } = term;
const waitFor = (name: string, pattern: RegExp) => term.waitFor(name, pattern);
const PROJECT = HOSTILE_PLAIN_PROJECT;

let sandbox: InProcessSandbox;
let configDir: string;
let env: Record<string, string>;
let session = 0;

/** Starts `rsi <args>` in a fresh 160x50 tmux window; the shell prints EXIT=<code> when it ends. */
const start = (args: string[]): string => term.start(`h${++session}`, args, { width: 160, height: 50, env });
/** The same, 400 columns wide, so a long escaped body stays on one screen line. */
const startSink = (args: string[]): string => term.start(`h${++session}`, args, { width: 400, height: 50, env });

describe.skipIf(skip)('hostile text in a real terminal (tmux)', () => {
  beforeAll(async () => {
    sandbox = await startSandbox(['--auto-approve', '--fault', 'hostile']);
    const tokens = await obtainTokens(sandbox.url);
    const mcp = await obtainTokens(sandbox.url, { resource: `${sandbox.url}/mcp` });
    configDir = mkdtempSync(join(tmpdir(), 'rsi-tmux-hostile-'));
    env = {
      RSI_TOKEN: tokens.access_token,
      RSI_MCP_TOKEN: mcp.access_token,
      RSI_BASE_URL: sandbox.url,
      RSI_CONFIG_DIR: configDir,
      TERM: 'xterm-256color',
    };
    // A first, idle session starts the private server; then let applications set tmux buffers
    // through OSC 52, so a raw clipboard write would leave a buffer behind.
    tmux('new-session', '-d', '-s', 'idle', 'sleep 600');
    tmux('set-option', '-g', 'set-clipboard', 'on');
  });

  afterAll(async () => {
    term.killServer();
    await sandbox?.stop();
    if (configDir) rmSync(configDir, { recursive: true, force: true });
  });

  it('the analyses run confirmation shows hostile signal names escaped, and nothing acts on the terminal', async () => {
    const before = (await sandboxStats(sandbox.url)).runs;
    const s = start(['analyses', 'run', PROJECT, '--top', '2', '--type', 'target']);
    // Anchored at the line start: the forged assumption carries the same words, quoted and indented.
    const asked = await waitFor(s, /^\S* ?Run \d+ analys[ie]s for "KRAS inhibitors"\?/m);
    // The whole confirmation is still on screen: no clear-screen or CR redraw wiped it.
    expect(asked).toContain('The service asks you to confirm before it runs analyses for "KRAS inhibitors":');
    expect(asked).toMatch(/^ {2}\d+ available, limit 2$/m);
    expect(asked).toMatch(/#\s+SIGNAL\s+TYPE\s+SIGNAL KEYWORD ID/);
    // The server's sequences are visible as text, on the assumption line and in the signal rows.
    expect(asked).toContain('\\x1b[2J');
    expect(asked).toContain('\\x1b]52;c;');
    expect(asked).toContain('\\u202e');
    expect(asked).toMatch(/^ {2}.*Score the top \d+ target signal/m);
    // The assumption's forged lines stay inside the quoted, indented service text (issue 20).
    expect(asked).toMatch(/^ {2}> .*Nothing was run\./m);
    expect(asked).not.toMatch(/^(Nothing was run\.|\? Run 1 analysis|✓ Started)/m);
    // OSC 52 never reached tmux: no paste buffer was created.
    expect(tmux('list-buffers')).toBe('');
    tmux('send-keys', '-t', s, 'n', 'Enter');
    const done = await waitFor(s, /EXIT=\d+/);
    // Declining is not success: exit 7, so `rsi analyses run … && next` stops there.
    expect(done).toContain('rsi: declined: nothing was run');
    expect(done).toContain('EXIT=7');
    expect((await sandboxStats(sandbox.url)).runs).toBe(before);
    expect(tmux('list-buffers')).toBe('');
  });

  // Issue 20: every other sink that reaches a terminal. Raw, each body would write tmux's
  // clipboard (OSC 52), retitle the pane (OSC 0), clear the screen and turn text red (C1 CSI).
  it.each([
    [['api', 'GET', '/hostile/text'], 'plain text '],
    [['api', 'GET', '/hostile/broken-json'], '{"oops": '],
    [['mcp', 'call', 'hostile_text'], 'tool text '],
  ])('rsi %j at a terminal: the escapes are shown, the screen, title and clipboard untouched', async (args, start) => {
    const s = startSink(args);
    const done = await waitFor(s, /EXIT=\d+/);
    expect(done).toContain('EXIT=0');
    // What came before the clear-screen sequence is still on screen, on the same line as the rest.
    expect(done).toContain(`${start}\\x1b]52;c;ZWNobyBwd25lZA==\\x07\\x1b[2J`);
    expect(tmux('display-message', '-p', '-t', s, '#{pane_title}')).not.toContain('pwned');
    expect(tmux('list-buffers')).toBe('');
  });

  it('--json at a terminal writes C1, bidi and invisible characters as \\u escapes', async () => {
    const s = startSink(['projects', 'list', '--json']);
    const done = await waitFor(s, /EXIT=\d+/);
    expect(done).toContain('EXIT=0');
    expect(done).toContain('\\u202e');
    expect(done).toContain('\\u200b');
    expect(done).toContain('\\u0085');
    expect(tmux('list-buffers')).toBe('');
  });

  it('a table at a terminal shows invisible characters visibly', async () => {
    const s = startSink(['projects', 'list']);
    const done = await waitFor(s, /EXIT=\d+/);
    expect(done).toContain('EXIT=0');
    expect(done).toMatch(/\\u200b|…/);
    expect(tmux('list-buffers')).toBe('');
  });
});

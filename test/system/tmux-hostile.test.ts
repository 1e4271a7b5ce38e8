// A real terminal (tmux) against `rsi sandbox --fault hostile`: the confirmation prompt of
// `analyses run`, whose assumption and signal names are server text full of escapes, must show
// that text escaped. Raw, the sequences would clear the screen (so the question's context would
// vanish), turn text red, reverse it (bidi), and write tmux's clipboard (OSC 52).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RSI_BIN, cleanEnv } from '../support/cli.js';
import { obtainTokens } from '../support/oauth.js';
import { HOSTILE_PLAIN_PROJECT, sandboxStats, startSandbox, type SandboxProcess } from '../support/sandbox.js';
import { skipWithout, tmuxPart } from '../support/system.js';

const skip = skipWithout(tmuxPart());
// A private tmux server, so the test never touches a developer's sessions.
const SOCKET = `rsi-hostile-${process.pid}`;
const PROJECT = HOSTILE_PLAIN_PROJECT;

function tmux(...args: string[]): string {
  const r = spawnSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8', env: cleanEnv({ TERM: 'xterm-256color' }) });
  if (r.status !== 0) throw new Error(`tmux ${args[0]}: ${r.stderr}`);
  return r.stdout;
}

function sh(arg: string): string {
  return `'${arg.replaceAll("'", `'\\''`)}'`;
}

let sandbox: SandboxProcess;
let configDir: string;
let env: Record<string, string>;
let session = 0;

/** Starts `rsi <args>` in a fresh 160x50 tmux window; the shell prints EXIT=<code> when it ends. */
function start(args: string[]): string {
  const name = `h${++session}`;
  const envArgs = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  const command = `${sh(process.execPath)} ${sh(RSI_BIN)} ${args.map(sh).join(' ')}; echo EXIT=$?; sleep 60`;
  tmux('new-session', '-d', '-s', name, '-x', '160', '-y', '50', ...envArgs, command);
  return name;
}

function screen(name: string): string {
  return tmux('capture-pane', '-p', '-t', name);
}

async function waitFor(name: string, pattern: RegExp, timeoutMs = 15_000): Promise<string> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const text = screen(name);
    if (pattern.test(text)) return text;
    if (Date.now() > end) throw new Error(`timed out waiting for ${pattern}; screen:\n${text}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.skipIf(skip)('hostile text in a real terminal (tmux)', () => {
  beforeAll(async () => {
    sandbox = await startSandbox(['--auto-approve', '--fault', 'hostile']);
    const tokens = await obtainTokens(sandbox.url);
    configDir = mkdtempSync(join(tmpdir(), 'rsi-tmux-hostile-'));
    env = { RSI_TOKEN: tokens.access_token, RSI_BASE_URL: sandbox.url, RSI_CONFIG_DIR: configDir, TERM: 'xterm-256color' };
    // A first, idle session starts the private server; then let applications set tmux buffers
    // through OSC 52, so a raw clipboard write would leave a buffer behind.
    tmux('new-session', '-d', '-s', 'idle', 'sleep 600');
    tmux('set-option', '-g', 'set-clipboard', 'on');
  });

  afterAll(async () => {
    spawnSync('tmux', ['-L', SOCKET, 'kill-server']);
    await sandbox?.stop();
    if (configDir) rmSync(configDir, { recursive: true, force: true });
  });

  it('the analyses run confirmation shows hostile signal names escaped, and nothing acts on the terminal', async () => {
    const before = (await sandboxStats(sandbox.url)).runs;
    const s = start(['analyses', 'run', PROJECT, '--top', '2', '--type', 'target']);
    const asked = await waitFor(s, /Run \d+ analys[ie]s for "KRAS inhibitors"\?/);
    // The whole confirmation is still on screen: no clear-screen or CR redraw wiped it.
    expect(asked).toContain('The service asks you to confirm before it runs analyses for "KRAS inhibitors":');
    expect(asked).toMatch(/^ {2}\d+ available, limit 2$/m);
    expect(asked).toMatch(/#\s+SIGNAL\s+TYPE\s+SIGNAL KEYWORD ID/);
    // The server's sequences are visible as text, on the assumption line and in the signal rows.
    expect(asked).toContain('\\x1b[2J');
    expect(asked).toContain('\\x1b]52;c;');
    expect(asked).toContain('\\u202e');
    expect(asked).toMatch(/^ {2}.*Score the top \d+ target signal/m);
    // OSC 52 never reached tmux: no paste buffer was created.
    expect(tmux('list-buffers')).toBe('');
    tmux('send-keys', '-t', s, 'n', 'Enter');
    const done = await waitFor(s, /EXIT=\d+/);
    expect(done).toContain('Nothing was run.');
    expect(done).toContain('EXIT=0');
    expect((await sandboxStats(sandbox.url)).runs).toBe(before);
    expect(tmux('list-buffers')).toBe('');
  });
});

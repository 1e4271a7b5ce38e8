// A real terminal (tmux): the confirmation prompt of `analyses run` answered `n` and `y`, and the
// live line of `status --watch`, as a person sees them.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RSI_BIN, cleanEnv } from '../support/cli.js';
import { obtainTokens } from '../support/oauth.js';
import { sandboxStats, startSandbox, type SandboxProcess } from '../support/sandbox.js';
import { skipWithout, tmuxPart } from '../support/system.js';

const skip = skipWithout(tmuxPart());
// A private tmux server, so the test never touches a developer's sessions.
const SOCKET = `rsi-test-${process.pid}`;
const PROJECT = 'KRAS inhibitors';

function tmux(...args: string[]): string {
  // The private server starts from a clean environment: no RSI_* or colour settings of the developer.
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

/** Starts `rsi <args>` in a fresh 120x40 tmux window; the shell prints EXIT=<code> when it ends. */
function start(args: string[]): string {
  const name = `s${++session}`;
  const envArgs = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  const command = `${sh(process.execPath)} ${sh(RSI_BIN)} ${args.map(sh).join(' ')}; echo EXIT=$?; sleep 60`;
  tmux('new-session', '-d', '-s', name, '-x', '120', '-y', '40', ...envArgs, command);
  return name;
}

function screen(name: string): string {
  return tmux('capture-pane', '-p', '-t', name);
}

/** Polls the pane until `pattern` shows (no fixed sleeps). */
async function waitFor(name: string, pattern: RegExp, timeoutMs = 15_000): Promise<string> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const text = screen(name);
    if (pattern.test(text)) return text;
    if (Date.now() > end) throw new Error(`timed out waiting for ${pattern}; screen:\n${text}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.skipIf(skip)('in a real terminal (tmux)', () => {
  beforeAll(async () => {
    // Real time (no --time-scale): runs stay unfinished ~25 s, long enough to see the live line.
    sandbox = await startSandbox(['--auto-approve']);
    const tokens = await obtainTokens(sandbox.url);
    configDir = mkdtempSync(join(tmpdir(), 'rsi-tmux-'));
    env = { RSI_TOKEN: tokens.access_token, RSI_BASE_URL: sandbox.url, RSI_CONFIG_DIR: configDir, TERM: 'xterm-256color' };
  });

  afterAll(async () => {
    spawnSync('tmux', ['-L', SOCKET, 'kill-server']);
    await sandbox?.stop();
    if (configDir) rmSync(configDir, { recursive: true, force: true });
  });

  it('answering n to the confirmation runs nothing', async () => {
    const before = (await sandboxStats(sandbox.url)).runs;
    const s = start(['analyses', 'run', PROJECT, '--top', '2', '--type', 'target']);
    const asked = await waitFor(s, /Run \d+ analys[ie]s for "KRAS inhibitors"\?/);
    expect(asked).toContain('The service asks you to confirm');
    tmux('send-keys', '-t', s, 'n', 'Enter');
    const done = await waitFor(s, /EXIT=\d+/);
    expect(done).toContain('Nothing was run.');
    expect(done).toContain('EXIT=0');
    expect((await sandboxStats(sandbox.url)).runs).toBe(before);
  });

  it('answering y records the runs', async () => {
    const before = (await sandboxStats(sandbox.url)).runs;
    const s = start(['analyses', 'run', PROJECT, '--top', '2', '--type', 'target']);
    await waitFor(s, /Run \d+ analys[ie]s for "KRAS inhibitors"\?/);
    tmux('send-keys', '-t', s, 'y', 'Enter');
    const done = await waitFor(s, /EXIT=\d+/);
    expect(done).toContain('EXIT=0');
    expect(done).toMatch(/✓ Started \d+ analys[ie]s for "KRAS inhibitors"/);
    expect((await sandboxStats(sandbox.url)).runs).toBeGreaterThan(before);
  });

  it('status --watch shows a live line that Ctrl-C ends with exit 130', async () => {
    const s = start(['status', PROJECT, '--watch', '--interval', '0.5']);
    const live = await waitFor(s, /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] scoring (running|not started) · \d+\/\d+ analyses done/);
    // One live line, redrawn in place: the status text appears once on screen.
    expect(live.match(/analyses done/g)).toHaveLength(1);
    tmux('send-keys', '-t', s, 'C-c');
    const done = await waitFor(s, /EXIT=\d+/);
    expect(done).toContain('EXIT=130');
  });
});

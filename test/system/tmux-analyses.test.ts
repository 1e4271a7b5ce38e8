// A real terminal (tmux): the confirmation prompt of `analyses run` answered `n` and `y`, and the
// live line of `status --watch`, as a person sees them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { obtainTokens } from '../support/oauth.js';
import { sandboxStats } from '../support/sandbox.js';
import { skipWithout, tmuxPart } from '../support/system.js';
import { privateTmux } from '../support/tmux.js';
import { startSandbox, type InProcessSandbox } from '../support/inproc.js';

const skip = skipWithout(tmuxPart());
// A private tmux server (test/support/tmux.ts): a developer's sessions are never touched.
const term = privateTmux('test');
const { tmux } = term;
const waitFor = (name: string, pattern: RegExp) => term.waitFor(name, pattern);
const PROJECT = 'KRAS inhibitors';

let sandbox: InProcessSandbox;
let configDir: string;
let env: Record<string, string>;
let session = 0;

/** Starts `rsi <args>` in a fresh 120x40 tmux window; the shell prints EXIT=<code> when it ends. */
const start = (args: string[]): string => term.start(`s${++session}`, args, { width: 120, height: 40, env });

describe.skipIf(skip)('in a real terminal (tmux)', () => {
  beforeAll(async () => {
    // Real time (no --time-scale): runs stay unfinished ~25 s, long enough to see the live line.
    sandbox = await startSandbox(['--auto-approve']);
    const tokens = await obtainTokens(sandbox.url);
    configDir = mkdtempSync(join(tmpdir(), 'rsi-tmux-'));
    env = { RSI_TOKEN: tokens.access_token, RSI_BASE_URL: sandbox.url, RSI_CONFIG_DIR: configDir, TERM: 'xterm-256color' };
  });

  afterAll(async () => {
    term.killServer();
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
    // Declining is not success: exit 7, so `rsi analyses run … && next` stops there.
    expect(done).toContain('rsi: declined: nothing was run');
    expect(done).toContain('EXIT=7');
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

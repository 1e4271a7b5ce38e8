// A real terminal (tmux): a config folder moved to another file system (a new credentials file, the
// original gone) is asked about once, at the first refresh; yes adopts it, and the next refresh
// asks nothing (issue 59; the decisions are tested in process in test/e2e/signin-copies.test.ts).
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_BROWSER } from '../support/browser.js';
import { type InProcessSandbox, runCli, startSandbox } from '../support/inproc.js';
import { expireTokens } from '../support/sandbox.js';
import { skipWithout, tmuxPart } from '../support/system.js';
import { privateTmux } from '../support/tmux.js';

const skip = skipWithout(tmuxPart());
const term = privateTmux('moved');
let sandbox: InProcessSandbox;
let root: string;

describe.skipIf(skip)('a sign-in moved to another file system, at a terminal (tmux)', () => {
  beforeAll(async () => {
    sandbox = await startSandbox(['--auto-approve', '--quiet']);
    root = mkdtempSync(join(tmpdir(), 'rsi-tmux-moved-'));
  });
  afterAll(async () => {
    term.killServer();
    await sandbox?.stop();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('asks once whether it was moved; yes keeps the sign-in, which refreshes', async () => {
    const original = join(root, 'original');
    const env = { RSI_CONFIG_DIR: original, RSI_CREDENTIAL_STORE: 'file', BROWSER: FAKE_BROWSER };
    expect((await runCli(['login', '--base-url', sandbox.url], { env })).code).toBe(0);
    // What `mv` to another file system does: a copy, then the original removed.
    const moved = join(root, 'moved');
    cpSync(original, moved, { recursive: true });
    rmSync(original, { recursive: true });
    await expireTokens(sandbox, moved, 3600);
    const here = { ...env, RSI_CONFIG_DIR: moved, TERM: 'xterm-256color' };
    const first = term.start('m1', ['projects', 'list', '--json'], { width: 200, height: 40, env: here });
    // The question wraps at the pane's width: its last words and its default are on one line.
    const asked = (await term.waitFor(first, /leaving no copy behind\? \(y\/N\)/)).replace(/\n/g, ' ');
    expect(asked).toMatch(/The sign-in of profile default was saved in .*original on \S+, in another file than this one/);
    term.tmux('send-keys', '-t', first, 'y', 'Enter');
    const done = await term.waitFor(first, /EXIT=\d+/);
    expect(done).toContain('EXIT=0');
    expect(done).toContain('"projects"');
    await expireTokens(sandbox, moved, 3600);
    const second = term.start('m2', ['projects', 'list', '--json'], { width: 200, height: 40, env: here });
    const again = await term.waitFor(second, /EXIT=\d+/);
    expect(again).toContain('EXIT=0');
    expect(again).not.toMatch(/leaving no copy behind/);
  });
});

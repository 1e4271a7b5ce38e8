// The XDG spec (issue 44): a relative XDG_CONFIG_HOME or XDG_CACHE_HOME is invalid and ignored, so
// a real rsi run from some folder writes its config under $HOME/.config/rsi, never under a path
// relative to wherever the command happened to run.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'rsi-paths-'));
  mkdirSync(join(work, 'home'));
  mkdirSync(join(work, 'cwd'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('relative XDG variables', () => {
  it('a relative XDG_CONFIG_HOME is ignored: the config goes to $HOME/.config/rsi', async () => {
    const env = { HOME: join(work, 'home'), XDG_CONFIG_HOME: 'relative-config', RSI_CONFIG_DIR: undefined };
    const set = await runCli(['config', 'set', 'time', 'absolute'], { cwd: join(work, 'cwd'), env });
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(work, 'home', '.config', 'rsi', 'config.json'), 'utf8')).settings).toEqual({ time: 'absolute' });
    expect(existsSync(join(work, 'cwd', 'relative-config'))).toBe(false);
    // An absolute one is honoured.
    const absolute = join(work, 'xdg');
    const again = await runCli(['config', 'set', 'time', 'relative'], {
      cwd: join(work, 'cwd'),
      env: { ...env, XDG_CONFIG_HOME: absolute },
    });
    expect(again.code, again.stderr).toBe(0);
    expect(existsSync(join(absolute, 'rsi', 'config.json'))).toBe(true);
  });
});

// Every help screen in a real terminal (tmux) at 60, 80 and 120 columns: no line longer than the
// width (the pane's lines joined where the terminal folded them, -J, so an overlong line shows as
// one), and the screens as golden files (help-<width>.txt; RSI_UPDATE_GOLDEN=1 rewrites them).
// Piped help is wrapped at 80 whatever the terminal. `rsi help environment` (the global options,
// listed once) is the last screen.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadProgram } from '../../src/program.js';
import { RSI_BIN, runCli } from '../support/cli.js';
import { fakeCtx, fakeIo } from '../support/fakes.js';
import { skipWithout, tmuxPart } from '../support/system.js';
import { privateTmux, sh } from '../support/tmux.js';

const skip = skipWithout(tmuxPart());
const term = privateTmux('help');
const GOLDEN = fileURLToPath(new URL('./golden/', import.meta.url));
const UPDATE = process.env.RSI_UPDATE_GOLDEN === '1';

/** Every visible command path, the top level first. */
function screens(cmd: Command, prefix: string[] = []): string[][] {
  const out = [prefix];
  for (const sub of cmd.commands) if (!(sub as unknown as { _hidden: boolean })._hidden) out.push(...screens(sub, [...prefix, sub.name()]));
  return out;
}
const SCREENS = screens(await loadProgram(fakeCtx(fakeIo(), 'tsv')));
const MARK = '=== rsi';

let dir: string;

describe.skipIf(skip)('help screens in a real terminal (tmux)', () => {
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'rsi-help-'));
    // A session that outlives the others, and room in the history for every screen at once.
    term.tmux('new-session', '-d', '-s', 'keeper', 'sleep 3600');
    term.tmux('set-option', '-g', 'history-limit', '100000');
  });

  afterAll(() => {
    term.killServer();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const width of [60, 80, 120]) {
    it(`every help screen fits ${width} columns`, async () => {
      // One shell prints every screen, each after a marker line: one tmux session per width.
      const script = join(dir, `help-${width}.sh`);
      const lines = [...SCREENS.map((path) => [...path, '--help']), ['help', 'environment']].map(
        (words) =>
          `echo ${sh(`${MARK} ${words.filter((w) => w !== '--help').join(' ')}`.trimEnd())}; ${sh(process.execPath)} ${sh(RSI_BIN)} ${words.map(sh).join(' ')}`,
      );
      writeFileSync(script, `${lines.join('\n')}\necho EXIT=done\nsleep 60\n`);
      const name = `w${width}`;
      term.tmux('new-session', '-d', '-s', name, '-x', String(width), '-y', '50', '-e', `RSI_CONFIG_DIR=${dir}`, `sh ${sh(script)}`);
      await term.waitFor(name, /EXIT=done/);
      const all = term.tmux('capture-pane', '-p', '-J', '-S', '-', '-t', name);
      const text = all.slice(all.indexOf(MARK), all.indexOf('EXIT=done'));
      for (const line of text.split('\n')) expect(line.trimEnd().length, `${line}`).toBeLessThanOrEqual(width);
      // Every screen came out whole (its Usage line after its marker).
      for (const path of SCREENS) expect(text).toContain(`${MARK} ${path.join(' ')}`.trimEnd());
      expect(text.match(/^Usage: rsi/gm)?.length).toBe(SCREENS.length + 1);
      golden(
        `help-${width}.txt`,
        `${text
          .split('\n')
          .map((l) => l.trimEnd())
          .join('\n')
          .trimEnd()}\n`,
      );
    });
  }

  it('piped help wraps at 80 columns', async () => {
    const r = await runCli(['analyses', 'run', '--help']);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(80);
    // Long enough to need wrapping at 80 (the hand-written paragraphs were ~100 wide).
    expect(lines.filter((l) => l.length > 70).length).toBeGreaterThan(3);
  });
});

function golden(file: string, actual: string): void {
  const path = join(GOLDEN, file);
  if (UPDATE) writeFileSync(path, actual);
  expect(existsSync(path), `${file} is missing: run with RSI_UPDATE_GOLDEN=1 and review it`).toBe(true);
  expect(actual).toBe(readFileSync(path, 'utf8'));
}

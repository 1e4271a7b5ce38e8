// Help screens in a real terminal (tmux) at 60, 80 and 120 columns: rsi reads the terminal's width
// and the terminal shows what the golden files hold (help-<width>.txt), with no line longer than the
// width (the pane's lines joined where the terminal folded them, -J, so an overlong line shows as
// one). test/e2e/help-widths.test.ts renders every screen at every width in process against the
// same files; here a sample of differently shaped screens goes through the real terminal: the
// command list, a leaf with long hand-written paragraphs, one with many options, and the global
// options (`rsi help environment`).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RSI_BIN } from '../support/cli.js';
import { goldenHelp, HELP_WIDTHS, type HelpScreen, helpScreens, MARK, markLine, screenOf } from '../support/help-screens.js';
import { skipWithout, tmuxPart } from '../support/system.js';
import { privateTmux, sh } from '../support/tmux.js';

const skip = skipWithout(tmuxPart());
const term = privateTmux('help');
const SAMPLE = ['', 'analyses run', 'keywords search', 'help environment'];
const SCREENS: HelpScreen[] = (await helpScreens()).filter((s) => SAMPLE.includes(s.path.join(' ')));

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

  it('samples every kind of screen', () => expect(SCREENS.map((s) => s.path.join(' ')).sort()).toEqual([...SAMPLE].sort()));

  for (const width of HELP_WIDTHS) {
    it(`help screens fit ${width} columns and show as help-${width}.txt holds them`, async () => {
      // One shell prints every sampled screen, each after a marker line: one tmux session per width.
      const script = join(dir, `help-${width}.sh`);
      const lines = SCREENS.map(
        ({ path, words }) => `echo ${sh(markLine(path))}; ${sh(process.execPath)} ${sh(RSI_BIN)} ${words.map(sh).join(' ')}`,
      );
      writeFileSync(script, `${lines.join('\n')}\necho EXIT=done\nsleep 60\n`);
      const name = `w${width}`;
      term.tmux('new-session', '-d', '-s', name, '-x', String(width), '-y', '50', '-e', `RSI_CONFIG_DIR=${dir}`, `sh ${sh(script)}`);
      await term.waitFor(name, /EXIT=done/);
      const all = term.tmux('capture-pane', '-p', '-J', '-S', '-', '-t', name);
      const text = all.slice(all.indexOf(MARK), all.indexOf('EXIT=done'));
      for (const line of text.split('\n')) expect(line.trimEnd().length, `${line}`).toBeLessThanOrEqual(width);
      // Every screen came out whole (its Usage line after its marker), and as the golden file has it.
      expect(text.match(/^Usage: rsi/gm)?.length).toBe(SCREENS.length);
      const golden = goldenHelp(width);
      for (const { path } of SCREENS) {
        expect(screenOf(text, path), `rsi ${path.join(' ')} at ${width} columns`).not.toBe('');
        expect(screenOf(text, path), `rsi ${path.join(' ')} at ${width} columns`).toBe(screenOf(golden, path));
      }
    });
  }
});

// Every help screen at 60, 80 and 120 columns, on a terminal that wide (main() in process, told its
// stdout is a terminal of that width): no line wider than the terminal, every screen whole, and the
// transcript the golden file test/system/tmux-help.test.ts holds a real terminal to (its screens
// there are a sample; this is every one). Piped help is wrapped at 80 whatever the terminal.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { displayWidth } from '../../src/io/sanitize.js';
import { normalize } from '../support/golden.js';
import { goldenHelp, HELP_WIDTHS, helpScreens, markLine } from '../support/help-screens.js';
import { runCli } from '../support/inproc.js';

const SCREENS = await helpScreens();
let dir: string;

describe('help screens on a terminal of 60, 80 and 120 columns', () => {
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'rsi-help-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  for (const width of HELP_WIDTHS) {
    it(`every help screen fits ${width} columns and matches help-${width}.txt`, async () => {
      const parts: string[] = [];
      for (const { path, words } of SCREENS) {
        const r = await runCli(words, { terminal: { columns: width }, env: { RSI_CONFIG_DIR: dir } });
        expect(r.code, `rsi ${words.join(' ')}: ${r.stderr}`).toBe(0);
        expect(r.stderr).toBe('');
        // What the terminal shows: the colours are not characters.
        const shown = stripVTControlCharacters(r.stdout);
        for (const line of shown.split('\n')) expect(displayWidth(line), `rsi ${words.join(' ')}: ${line}`).toBeLessThanOrEqual(width);
        expect(shown, `rsi ${words.join(' ')}`).toMatch(/^Usage: rsi/m);
        parts.push(`${markLine(path)}\n${shown}`);
      }
      const transcript = normalize(parts.join(''));
      expect(transcript).toBe(goldenHelp(width, transcript));
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

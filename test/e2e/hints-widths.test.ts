// The one-line answers to habits of gh, kubectl and az, the quote hint and the other usage hints on
// a terminal of 60, 80 and 120 columns (main() in process, told its stdout and stderr are one
// terminal of that width): each one line of its own with `rsi: ` or `hint: ` first, never folded
// by rsi, and as the golden files hold them (test/system/tmux-hints.test.ts holds a real terminal
// to the same files with a sample).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalize } from '../support/golden.js';
import { expectHintLines, goldenHints, HINT_LINES, HINT_WIDTHS, hintMark } from '../support/hint-lines.js';
import { runCli } from '../support/inproc.js';

let dir: string;

describe('hints on a terminal of 60, 80 and 120 columns', () => {
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'rsi-hints-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  for (const width of HINT_WIDTHS) {
    it(`at ${width} columns`, async () => {
      const parts: string[] = [];
      for (const args of HINT_LINES) {
        const r = await runCli(args, { terminal: { columns: width }, env: { RSI_CONFIG_DIR: dir, RSI_NO_PROMPT: '1' } });
        expect(r.code, `rsi ${args.join(' ')}`).not.toBe(0);
        parts.push(`${hintMark(args)}\n${stripVTControlCharacters(r.screen)}`);
      }
      const transcript = normalize(parts.join(''));
      expectHintLines(transcript, HINT_LINES.length);
      expect(transcript).toBe(goldenHints(width, transcript));
    });
  }
});

// The one-line answers to habits of gh, kubectl and az, the quote hint and the other usage hints in a
// real terminal (tmux) at 60, 80 and 120 columns: each one line of its own (the pane's lines joined
// where the terminal folded them, -J), with `rsi: ` or `hint: ` first, as the golden files hold them
// (hints-<width>.txt). test/e2e/hints-widths.test.ts checks every line at every width in process;
// here a sample goes through the real terminal: a command of gh's, a line long enough to fold at 60,
// a header that is not ASCII, and the quote hint.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RSI_BIN } from '../support/cli.js';
import { expectHintLines, goldenHints, HINT_LINES, HINT_MARK, HINT_WIDTHS, hintMark, hintsOf } from '../support/hint-lines.js';
import { skipWithout, tmuxPart } from '../support/system.js';
import { privateTmux, sh } from '../support/tmux.js';

const skip = skipWithout(tmuxPart());
const term = privateTmux('hints');
const SAMPLE = [0, 6, 11, 9].map((i) => HINT_LINES[i]!);

let dir: string;

describe.skipIf(skip)('hints in a real terminal (tmux)', () => {
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'rsi-hints-'));
    term.tmux('new-session', '-d', '-s', 'keeper', 'sleep 3600');
  });
  afterAll(() => {
    term.killServer();
    rmSync(dir, { recursive: true, force: true });
  });

  it('samples the kinds of hint', () => {
    expect(SAMPLE.map((args) => args.join(' '))).toEqual([
      '--profile ttl auth login',
      'projects list --template {{.name}}',
      'api /keywords -H X: é€',
      'status My first project',
    ]);
  });

  for (const width of HINT_WIDTHS) {
    it(`at ${width} columns`, async () => {
      const script = join(dir, `hints-${width}.sh`);
      const lines = SAMPLE.map((args) => `echo ${sh(hintMark(args))}; ${sh(process.execPath)} ${sh(RSI_BIN)} ${args.map(sh).join(' ')}`);
      writeFileSync(script, `${lines.join('\n')}\necho EXIT=done\nsleep 60\n`);
      const name = `w${width}`;
      term.tmux(
        'new-session',
        '-d',
        '-s',
        name,
        '-x',
        String(width),
        '-y',
        '60',
        '-e',
        `RSI_CONFIG_DIR=${dir}`,
        '-e',
        'RSI_NO_PROMPT=1',
        `sh ${sh(script)}`,
      );
      await term.waitFor(name, /EXIT=done/);
      const all = term.tmux('capture-pane', '-p', '-J', '-S', '-', '-t', name);
      const text = all.slice(all.indexOf(HINT_MARK), all.indexOf('EXIT=done'));
      expectHintLines(text, SAMPLE.length);
      const golden = goldenHints(width);
      for (const args of SAMPLE) {
        expect(hintsOf(text, args), `rsi ${args.join(' ')} at ${width} columns`).not.toBe('');
        expect(hintsOf(text, args), `rsi ${args.join(' ')} at ${width} columns`).toBe(hintsOf(golden, args));
      }
    });
  }
});

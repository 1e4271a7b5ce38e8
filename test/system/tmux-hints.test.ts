// The one-line answers to habits of gh, kubectl and az, the quote hint and the other usage hints, in
// a real terminal (tmux) at 60, 80 and 120 columns, as golden files (hints-<width>.txt;
// RSI_UPDATE_GOLDEN=1 rewrites them). Each is one line of its own (the pane's lines joined where the
// terminal folded them, -J), with `rsi: ` or `hint: ` first.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RSI_BIN } from '../support/cli.js';
import { skipWithout, tmuxPart } from '../support/system.js';
import { privateTmux, sh } from '../support/tmux.js';

const skip = skipWithout(tmuxPart());
const term = privateTmux('hints');
const GOLDEN = fileURLToPath(new URL('./golden/', import.meta.url));
const UPDATE = process.env.RSI_UPDATE_GOLDEN === '1';
const MARK = '$ rsi';

const LINES: readonly (readonly string[])[] = [
  ['--profile', 'ttl', 'auth', 'login'],
  ['auth', 'refresh', '-s', 'analyses:run'],
  ['version'],
  ['projects', 'list', '-o', 'json'],
  ['projects', 'list', '-o', 'wide'],
  ['projects', 'list', '--query', '[].name'],
  ['projects', 'list', '--template', '{{.name}}'],
  ['projects', 'view', 'My first project'],
  ['signals', 'My first project', '--watch'],
  ['status', 'My', 'first', 'project'],
  ['projects', 'list', '--jq', '.a', '--jq', '.b'],
  ['api', '/keywords', '-H', 'X: é€'],
  ['status'],
];

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

  for (const width of [60, 80, 120]) {
    it(`at ${width} columns`, async () => {
      const script = join(dir, `hints-${width}.sh`);
      const lines = LINES.map(
        (args) => `echo ${sh(`${MARK} ${args.map(sh).join(' ')}`)}; ${sh(process.execPath)} ${sh(RSI_BIN)} ${args.map(sh).join(' ')}`,
      );
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
      const text = all.slice(all.indexOf(MARK), all.indexOf('EXIT=done'));
      const said = text.split('\n').filter((l) => l.trim() !== '' && !l.startsWith(MARK));
      // Every line rsi wrote is an `rsi: …` or `hint: …` line, one per message.
      for (const line of said) expect(line, line).toMatch(/^(rsi|hint): \S/);
      expect(said.filter((l) => l.startsWith('rsi: ')).length).toBe(LINES.length);
      const file = join(GOLDEN, `hints-${width}.txt`);
      const actual = `${text
        .split('\n')
        .map((l) => l.trimEnd())
        .join('\n')
        .trimEnd()}\n`;
      if (UPDATE) writeFileSync(file, actual);
      expect(existsSync(file), `hints-${width}.txt is missing: run with RSI_UPDATE_GOLDEN=1 and review it`).toBe(true);
      expect(actual).toBe(readFileSync(file, 'utf8'));
    });
  }
});

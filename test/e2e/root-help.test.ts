// The root's help screen has one home (src/commands/help/root-help.ts), rendered by the full path
// and, before anything loads, by bin/rsi.js (dist/root-help.cjs). Its layout must be commander's,
// as every other screen's: here the screen is held to commander's own rendering of the same tree
// at every width from 1 to 300, and the early answer to the full path's output, in real processes.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Help } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { withGlobalsPointer } from '../../src/commands/help/layout.js';
import { ROOT, renderRootHelp } from '../../src/commands/help/root-help.js';
import { rootScreenStream } from '../../src/commands/help/root-screen.js';
import { reflowHelp } from '../../src/io/help-text.js';
import { loadProgram } from '../../src/program.js';
import { fakeCtx, fakeIo } from '../support/fakes.js';
import { RSI_BIN } from '../support/cli.js';
import { runCli } from '../support/inproc.js';

const program = await loadProgram(fakeCtx(fakeIo(), 'tsv'));
const listed = program.commands.filter((c) => !(c as unknown as { _hidden: boolean })._hidden);
const items = listed.map((c) => ({ name: c.name(), description: c.description() }));

/** commander's generic screen for the root, under rsi's configuration (items, visible options), plus the examples as added help. */
function commanders(width: number): string {
  const helper = program.createHelp();
  helper.prepareContext({ helpWidth: width });
  const screen = withGlobalsPointer(Help.prototype.formatHelp.call(helper, program, helper), width);
  return `${screen}${reflowHelp(`\nExamples:\n${ROOT.examples!.map((e) => `  ${e}`).join('\n')}\n`, width)}`;
}

describe("the root's screen", () => {
  it("is commander's layout of the same tree at every width from 1 to 300", () => {
    for (let width = 1; width <= 300; width++) expect(renderRootHelp(items, width), `width ${width}`).toBe(commanders(width));
  });

  it('is what rsi, rsi --help, rsi -h and rsi help print in process (rsi alone: on stderr)', async () => {
    const piped = renderRootHelp(items, 80);
    for (const words of [['--help'], ['-h'], ['help']]) {
      const r = await runCli(words);
      expect({ code: r.code, out: r.stdout, err: r.stderr }, words.join(' ')).toEqual({ code: 0, out: piped, err: '' });
      expect(rootScreenStream(words)).toBe('stdout');
    }
    const alone = await runCli([]);
    expect({ code: alone.code, out: alone.stdout, err: alone.stderr }).toEqual({ code: 0, out: '', err: piped });
    expect(rootScreenStream([])).toBe('stderr');
    expect(rootScreenStream(['--help', 'status'])).toBeUndefined();
  });
});

describe('bin/rsi.js answers it before loading anything else', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rsi-root-help-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('prints the same screen from dist/root-help.cjs alone (no dist/main.js beside it)', () => {
    // A copy of the entry and the one file it needs: the full path is not there to answer.
    mkdirSync(join(dir, 'bin'));
    mkdirSync(join(dir, 'dist'));
    const bin = join(RSI_BIN, '..');
    for (const f of ['rsi.js', 'package.json']) copyFileSync(join(bin, f), join(dir, 'bin', f));
    copyFileSync(join(bin, '..', 'dist', 'root-help.cjs'), join(dir, 'dist', 'root-help.cjs'));
    copyFileSync(join(bin, '..', 'package.json'), join(dir, 'package.json'));
    const run = (args: string[]) =>
      spawnSync(process.execPath, [join(dir, 'bin', 'rsi.js'), ...args], { encoding: 'utf8', env: { PATH: process.env.PATH } });
    const piped = renderRootHelp(items, 80);
    for (const args of [['--help'], ['-h'], ['help']]) {
      const r = run(args);
      expect({ code: r.status, out: r.stdout, err: r.stderr }, args.join(' ')).toEqual({ code: 0, out: piped, err: '' });
    }
    const alone = run([]);
    expect({ code: alone.status, out: alone.stdout, err: alone.stderr }).toEqual({ code: 0, out: '', err: piped });
    // Any other line needs the bundle, which this copy lacks: proof that the screen came from the small file.
    expect(run(['help', 'status']).status).not.toBe(0);
  });
});

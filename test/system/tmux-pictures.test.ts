// Pictures in a real terminal (tmux): rsi reads the pane's width and the pane shows what the golden
// files hold (test/e2e/pictures-widths.test.ts holds every picture and table at 60, 80 and 120
// columns to them in process; here a sample goes through the real terminal, its pager included);
// piped output unchanged; the live progress bar of `analyses run --wait` and `status --watch`; and
// bash completion of values and project names, typed with Tab.
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RSI_BIN } from '../support/cli.js';
import { goldenText, mayOverflow, normalise, PICTURES, type PicturesService, startPicturesService, UTF8 } from '../support/pictures.js';
import { skipWithout, tmuxPart } from '../support/system.js';
import { privateTmux, sh } from '../support/tmux.js';

const skip = skipWithout(tmuxPart());
// A private tmux server (test/support/tmux.ts): a developer's sessions are never touched.
const term = privateTmux('pictures');
const { tmux } = term;

let service: PicturesService;
let fastEnv: Record<string, string>;
let liveEnv: Record<string, string>;
let bin: string;
let session = 0;

/** Runs `rsi <args>` in a fresh tmux window of `width` columns; the shell prints EXIT=<code> at the end. */
const start = (args: string[], width: number, env: Record<string, string>, extraEnv: Record<string, string> = {}): string =>
  term.start(`p${++session}`, args, { width, height: 60, env: { ...env, ...extraEnv } });
const waitFor = (name: string, pattern: RegExp, timeoutMs?: number) => term.waitFor(name, pattern, timeoutMs);

async function capture(args: string[], width: number, extraEnv: Record<string, string> = {}): Promise<string> {
  const name = start(args, width, fastEnv, extraEnv);
  const screen = await waitFor(name, /EXIT=\d+/);
  expect(screen).toContain('EXIT=0');
  tmux('kill-session', '-t', name);
  return normalise(screen);
}

describe.skipIf(skip)('pictures in a real terminal (tmux)', () => {
  beforeAll(async () => {
    // A session that outlives every capture: killing the last session ends the tmux server, and a
    // new-session racing that exit fails with "server exited unexpectedly".
    tmux('new-session', '-d', '-s', 'keeper', 'sleep 3600');
    service = await startPicturesService();
    ({ fastEnv, liveEnv } = service);
    bin = mkdtempSync(join(tmpdir(), 'rsi-bin-'));
    writeFileSync(join(bin, 'rsi'), `#!/bin/sh\nexec ${sh(process.execPath)} ${sh(RSI_BIN)} "$@"\n`);
    chmodSync(join(bin, 'rsi'), 0o755);
  });

  afterAll(async () => {
    term.killServer();
    await service?.stop();
  });

  // Each picture at one of the widths (80 is also what rsi assumes when it cannot tell, so the
  // others show the pane's width was read), as the golden file of that width has it.
  const SAMPLE: Array<[keyof typeof PICTURES, number]> = [
    ['card', 60],
    ['relations', 120],
    ['opportunities', 80],
    ['scoreboard', 120],
  ];
  for (const [picture, width] of SAMPLE) {
    it(`${picture} at ${width} columns shows as ${picture}-${width}.txt holds it`, async () => {
      expect(await capture(PICTURES[picture]!, width, UTF8)).toBe(goldenText(`${picture}-${width}.txt`));
    });
  }

  it('tables through the pager fit 60 columns', async () => {
    // Paged commands (less -FRX draws them): the pane's lines joined where the terminal folded them
    // (-J), so an overlong line shows as one.
    for (const args of [
      ['keywords', 'search', 'EGFR'],
      ['projects', 'list'],
      ['signals', 'Oncology watchlist'],
    ]) {
      const name = start(args, 60, fastEnv, UTF8);
      await waitFor(name, /EXIT=\d+/);
      // The session is left to its `sleep` (afterAll ends the server): killing the last one
      // would end the tmux server while the next command starts one.
      const screen = tmux('capture-pane', '-p', '-J', '-t', name);
      expect(screen, args.join(' ')).toMatch(/EXIT=0/);
      expect(screen.replace(/EXIT=0/, '').trim(), args.join(' ')).not.toBe('');
      for (const line of screen.split('\n')) {
        if (mayOverflow(line)) continue;
        expect([...line.trimEnd()].length, `rsi ${args.join(' ')} at 60: ${line}`).toBeLessThanOrEqual(60);
      }
    }
  });

  it('piped output has no pictures', async () => {
    const name = `p${++session}`;
    const envArgs = Object.entries({ ...fastEnv, ...UTF8 }).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    const command = `${sh(process.execPath)} ${sh(RSI_BIN)} keywords get EGFR | cat; ${sh(process.execPath)} ${sh(RSI_BIN)} opportunities 'KRAS inhibitors' --format table | cat; echo EXIT=$?; sleep 60`;
    tmux('new-session', '-d', '-s', name, '-x', '80', '-y', '60', ...envArgs, command);
    const screen = await waitFor(name, /EXIT=\d+/);
    // tsv: the card's row with each KeywordScore's members as their own cells (dotted columns,
    // issue 30), no JSON blob and no bars.
    expect(screen).toMatch(/Low composite relative to keywords of the same type\./);
    expect(screen).not.toContain('{"score"');
    expect(screen).not.toMatch(/[█#]{3}/);
  });

  it('analyses run --wait and status --watch draw a progress bar with the elapsed time', async () => {
    const run = start(
      ['analyses', 'run', 'Oncology watchlist', '--top', '3', '--type', 'target', '--yes', '--wait', '--interval', '0.5'],
      100,
      liveEnv,
      UTF8,
    );
    const line = await waitFor(run, /analyses done.* ▕[█▓░]+▏ · \d+ s/);
    expect(line).toMatch(/scoring (running|not started) · \d+\/\d+ analyses done/);
    const watch = start(['status', 'Oncology watchlist', '--watch', '--interval', '0.5'], 80, liveEnv, { LANG: 'C' });
    // A C locale: the bar and the punctuation beside it are ASCII (io/ascii.ts).
    await waitFor(watch, /analyses done.* \[[#x.]+\] - \d+ s/);
    for (const s of [run, watch]) tmux('send-keys', '-t', s, 'C-c');
    await waitFor(watch, /EXIT=130/);
  });

  it('bash completion completes flag values and project names on Tab', async () => {
    const name = `p${++session}`;
    const envArgs = Object.entries({ ...fastEnv, PS1: '$ ' }).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    // tmux sets PATH itself, so the shell gets `rsi` on its PATH from the command line instead.
    tmux('new-session', '-d', '-s', name, '-x', '120', '-y', '20', ...envArgs, `PATH=${sh(bin)}:"$PATH" exec bash --norc --noprofile`);
    tmux('send-keys', '-t', name, 'source <(rsi completion bash)', 'Enter');
    tmux('send-keys', '-t', name, 'rsi keywords relations KRAS --relation pip', 'Tab');
    await waitFor(name, /--relation pipeline_targets/);
    // Project names come from the service within completion's 2 s budget (FETCH_BUDGET_MS in
    // src/commands/completion/completion.ts); on a machine the suite keeps busy, `rsi __complete`
    // can start too late to make it and then completes nothing, as it should. Tab again, as a
    // person would: each try is waited on for 15 s, and the fifth that completes nothing fails.
    for (let attempt = 1; ; attempt++) {
      tmux('send-keys', '-t', name, 'C-u', 'rsi status KR', 'Tab');
      try {
        await waitFor(name, /rsi status KRAS\\ inhibitors/, 15_000);
        break;
      } catch (error) {
        if (attempt === 5) throw error;
      }
    }
  });
});

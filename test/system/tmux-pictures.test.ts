// Pictures in a real terminal (tmux), as golden files: the keyword card's score bars, relations and
// opportunities with bars, at 60, 80 and 120 columns, in Unicode (a UTF-8 locale) and in ASCII
// (NO_COLOR, or a C locale); piped output unchanged; the live progress bar of `analyses run --wait`
// and `status --watch`; and bash completion of values and project names, typed with Tab.
// RSI_UPDATE_GOLDEN=1 rewrites the golden files; docs/commands.md must show the 80-column ones.
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RSI_BIN, runCli } from '../support/cli.js';
import { obtainTokens } from '../support/oauth.js';
import { skipWithout, tmuxPart } from '../support/system.js';
import { privateTmux, sh } from '../support/tmux.js';
import { startSandbox, type InProcessSandbox } from '../support/inproc.js';
import { FAKE_BROWSER } from '../support/browser.js';

const skip = skipWithout(tmuxPart());
// A private tmux server (test/support/tmux.ts): a developer's sessions are never touched.
const term = privateTmux('pictures');
const { tmux } = term;
const GOLDEN = fileURLToPath(new URL('./golden/', import.meta.url));
const UPDATE = process.env.RSI_UPDATE_GOLDEN === '1';
const docs = readFileSync(new URL('../../docs/commands.md', import.meta.url), 'utf8');

let fast: InProcessSandbox;
let live: InProcessSandbox;
let fastEnv: Record<string, string>;
let liveEnv: Record<string, string>;
let bin: string;
let session = 0;

/** Runs `rsi <args>` in a fresh tmux window of `width` columns; the shell prints EXIT=<code> at the end. */
const start = (args: string[], width: number, env: Record<string, string>, extraEnv: Record<string, string> = {}): string =>
  term.start(`p${++session}`, args, { width, height: 60, env: { ...env, ...extraEnv } });
const waitFor = (name: string, pattern: RegExp, timeoutMs?: number) => term.waitFor(name, pattern, timeoutMs);

/** The screen as a person reads it: trailing spaces and blank lines and the EXIT marker dropped. */
function normalise(screen: string): string {
  return `${screen
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l) => !/^EXIT=\d+$/.test(l))
    .join('\n')
    .trimEnd()}\n`;
}

async function capture(args: string[], width: number, extraEnv: Record<string, string> = {}): Promise<string> {
  const name = start(args, width, fastEnv, extraEnv);
  const screen = await waitFor(name, /EXIT=\d+/);
  expect(screen).toContain('EXIT=0');
  tmux('kill-session', '-t', name);
  return normalise(screen);
}

function golden(file: string, actual: string): void {
  const path = join(GOLDEN, file);
  if (UPDATE) writeFileSync(path, actual);
  expect(existsSync(path), `${file} is missing: run with RSI_UPDATE_GOLDEN=1 and review it`).toBe(true);
  expect(actual).toBe(readFileSync(path, 'utf8'));
}

const UTF8 = { LANG: 'C.UTF-8' };

describe.skipIf(skip)('pictures in a real terminal (tmux)', () => {
  beforeAll(async () => {
    // A session that outlives every capture: killing the last session ends the tmux server, and a
    // new-session racing that exit fails with "server exited unexpectedly".
    tmux('new-session', '-d', '-s', 'keeper', 'sleep 3600');
    [fast, live] = await Promise.all([
      startSandbox(['--auto-approve', '--quiet', '--time-scale', '200']),
      startSandbox(['--auto-approve', '--quiet']),
    ]);
    const login = async (url: string): Promise<Record<string, string>> => {
      const dir = mkdtempSync(join(tmpdir(), 'rsi-pictures-'));
      const env = { RSI_CONFIG_DIR: dir, RSI_CREDENTIAL_STORE: 'file', TERM: 'xterm-256color' };
      const r = await runCli(['login', '--base-url', url], { env: { ...env, BROWSER: FAKE_BROWSER } });
      expect(r.code, r.stderr).toBe(0);
      return env;
    };
    [fastEnv, liveEnv] = await Promise.all([login(fast.url), login(live.url)]);
    // The scoreboard is read through the MCP server: its own token, beside the API sign-in.
    fastEnv.RSI_MCP_TOKEN = (await obtainTokens(fast.url, { resource: `${fast.url}/mcp` })).access_token;
    // Deterministic opportunities: the top 5 targets of KRAS inhibitors, scored (one of them fails).
    const run = await runCli(['analyses', 'run', 'KRAS inhibitors', '--top', '5', '--type', 'target', '--yes', '--wait'], {
      env: fastEnv,
    });
    expect([0, 10], run.stderr).toContain(run.code);
    bin = mkdtempSync(join(tmpdir(), 'rsi-bin-'));
    writeFileSync(join(bin, 'rsi'), `#!/bin/sh\nexec ${sh(process.execPath)} ${sh(RSI_BIN)} "$@"\n`);
    chmodSync(join(bin, 'rsi'), 0o755);
  });

  afterAll(async () => {
    term.killServer();
    await Promise.all([fast?.stop(), live?.stop()]);
    for (const env of [fastEnv, liveEnv]) if (env) rmSync(env.RSI_CONFIG_DIR!, { recursive: true, force: true });
  });

  for (const width of [60, 80, 120]) {
    it(`keyword card, relations and opportunities at ${width} columns`, async () => {
      golden(`card-${width}.txt`, await capture(['keywords', 'get', 'EGFR'], width, UTF8));
      golden(
        `relations-${width}.txt`,
        await capture(['keywords', 'relations', 'KRAS', '--relation', 'assets', '--limit', '5'], width, UTF8),
      );
      golden(`opportunities-${width}.txt`, await capture(['opportunities', 'KRAS inhibitors'], width, UTF8));
      golden(`scoreboard-${width}.txt`, await capture(['scoreboard', 'KRAS inhibitors'], width, UTF8));
    });
  }

  // Every command with table output (and the lists of lines) at three widths: the pane's lines
  // joined where the terminal folded them (-J), so an overlong line shows as one.
  const TABLES = [
    ['keywords', 'search', 'EGFR'],
    ['keywords', 'get', 'NSCLC', '--include', 'indications,assets'],
    ['keywords', 'relations', 'KRAS', '--relation', 'assets', '--limit', '5'],
    ['projects', 'list'],
    ['status', 'KRAS inhibitors'],
    ['signals', 'Oncology watchlist'],
    ['opportunities', 'KRAS inhibitors'],
    ['scoreboard', 'KRAS inhibitors'],
    ['analyses', 'run', 'KRAS inhibitors', '--top', '5', '--type', 'target', '--yes'],
    ['mcp', 'tools'],
    ['doctor'],
    ['auth', 'status'],
  ];
  for (const width of [60, 80, 120]) {
    it(`every table and list fits ${width} columns`, async () => {
      for (const args of TABLES) {
        const name = start(args, width, fastEnv, UTF8);
        await waitFor(name, /EXIT=\d+/);
        // The session is left to its `sleep` (afterAll ends the server): killing the last one
        // would end the tmux server while the next command starts one.
        const screen = tmux('capture-pane', '-p', '-J', '-t', name);
        expect(screen, args.join(' ')).toMatch(/EXIT=0/);
        for (const line of screen.split('\n')) {
          // A URL or a suggested command is never broken (it must stay copyable, on a line of its
          // own); everything else fits.
          if (/https?:\/\/\S{20,}/.test(line) || /^\s*`rsi [^`]+`\S*$/.test(line)) continue;
          expect([...line.trimEnd()].length, `rsi ${args.join(' ')} at ${width}: ${line}`).toBeLessThanOrEqual(width);
        }
      }
    });
  }

  it('plain ASCII under NO_COLOR and in a C locale', async () => {
    golden(
      'relations-80-no-color.txt',
      await capture(['keywords', 'relations', 'KRAS', '--relation', 'assets', '--limit', '5'], 80, { ...UTF8, NO_COLOR: '1' }),
    );
    const card = await capture(['keywords', 'get', 'EGFR'], 80, { LANG: 'C' });
    golden('card-80-c-locale.txt', card);
    expect(card).not.toMatch(/[█▏▎▍▌▋▊▉]/);
  });

  it('an empty NO_COLOR changes nothing (no-color.org: set and non-empty)', async () => {
    const screen = await capture(['keywords', 'relations', 'KRAS', '--relation', 'assets', '--limit', '5'], 80, { ...UTF8, NO_COLOR: '' });
    expect(screen).toMatch(/[█▏▎▍▌▋▊▉]/);
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

  it('docs/commands.md shows the 80-column captures', () => {
    for (const file of ['card-80.txt', 'relations-80.txt', 'opportunities-80.txt', 'scoreboard-80.txt']) {
      const text = readFileSync(join(GOLDEN, file), 'utf8').trimEnd();
      expect(docs, `docs/commands.md shows ${file}`).toContain(text);
    }
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

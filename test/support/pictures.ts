/**
 * The pictures (the keyword card's score bars, relations, opportunities and the scoreboard) and the
 * tables as a terminal of 60, 80 and 120 columns shows them, and the service they are drawn from:
 * one home for test/e2e/pictures-widths.test.ts (every one at every width, in process) and
 * test/system/tmux-pictures.test.ts (a sample in a real terminal), which hold rsi to the same golden
 * files (test/system/golden/; RSI_UPDATE_GOLDEN=1 rewrites them; docs/commands.md shows the
 * 80-column ones).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { FAKE_BROWSER } from './browser.js';
import { goldenFile, normalize } from './golden.js';
import { type InProcessSandbox, runCli, startSandbox } from './inproc.js';
import { obtainTokens } from './oauth.js';

export const WIDTHS = [60, 80, 120] as const;

/** A UTF-8 locale: the bars are Unicode blocks. */
export const UTF8 = { LANG: 'C.UTF-8' };

/** The pictures, each a golden file per width (`card-80.txt`). */
export const PICTURES: Record<string, string[]> = {
  card: ['keywords', 'get', 'EGFR'],
  relations: ['keywords', 'relations', 'KRAS', '--relation', 'assets', '--limit', '5'],
  opportunities: ['opportunities', 'KRAS inhibitors'],
  scoreboard: ['scoreboard', 'KRAS inhibitors'],
};

/** Every command with table output (and the lists of lines). */
export const TABLES: string[][] = [
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

/**
 * Where a line may be wider than the terminal: a URL or a suggested command is never broken (it
 * must stay copyable, on a line of its own); everything else fits.
 */
export function mayOverflow(line: string): boolean {
  return /https?:\/\/\S{20,}/.test(line) || /^\s*`rsi [^`]+`\S*$/.test(line);
}

/** The screen as a person reads it: trailing spaces and blank lines and the EXIT marker dropped. */
export function normalise(screen: string): string {
  return normalize(
    screen
      .split('\n')
      .filter((l) => !/^EXIT=\d+$/.test(l.trimEnd()))
      .join('\n'),
  );
}

/** Holds `actual` to the golden `file` (rewritten from it when RSI_UPDATE_GOLDEN=1). */
export function golden(file: string, actual: string): void {
  expect(actual).toBe(goldenFile(file, actual));
}

export function goldenText(file: string): string {
  return goldenFile(file);
}

/** The two services the pictures are drawn from, each with a signed-in config folder. */
export interface PicturesService {
  /** Time runs 200× faster: analyses finish at once. */
  fast: InProcessSandbox;
  /** Time runs as on a clock: the progress bar has something to show. */
  live: InProcessSandbox;
  /** RSI_CONFIG_DIR (signed in to `fast`, with an MCP token for the scoreboard), the file store, a TERM. */
  fastEnv: Record<string, string>;
  liveEnv: Record<string, string>;
  stop(): Promise<void>;
}

/**
 * Starts both services in this process, signs in to each (the fake browser approving), and runs
 * the analyses whose opportunities the pictures show: the top 5 targets of KRAS inhibitors, scored
 * (one of them fails), the same every time.
 */
export async function startPicturesService(): Promise<PicturesService> {
  const [fast, live] = await Promise.all([
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
  const [fastEnv, liveEnv] = await Promise.all([login(fast.url), login(live.url)]);
  // The scoreboard is read through the MCP server: its own token, beside the API sign-in.
  fastEnv.RSI_MCP_TOKEN = (await obtainTokens(fast.url, { resource: `${fast.url}/mcp` })).access_token;
  const run = await runCli(['analyses', 'run', 'KRAS inhibitors', '--top', '5', '--type', 'target', '--yes', '--wait'], { env: fastEnv });
  expect([0, 10], run.stderr).toContain(run.code);
  return {
    fast,
    live,
    fastEnv,
    liveEnv,
    async stop() {
      await Promise.all([fast.stop(), live.stop()]);
      for (const env of [fastEnv, liveEnv]) rmSync(env.RSI_CONFIG_DIR!, { recursive: true, force: true });
    },
  };
}

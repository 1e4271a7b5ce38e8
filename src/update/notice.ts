/**
 * The update notice, as gh prints it: at most once a day, on stderr, after the command, only to a
 * person at a terminal. The newest version is never fetched here: a detached child (`rsi
 * __update-check`, check.ts) asks the registry at most once a day and writes the answer to rsi's
 * cache folder, where a later run finds it. So the check never delays a command, and a run with no
 * terminal, in CI, with --json/--jq, or as `mcp serve` neither prints nor checks.
 */
import * as fs from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Env } from '../context.js';
import type { Installation } from '../io/installation.js';

/** How long an answer and a shown notice last (gh: 24 h). */
export const DAY_MS = 24 * 60 * 60 * 1000;

/** What the cache file holds (times in ms since the epoch). */
export interface UpdateState {
  /** When a check was last started (claimed before the child runs, so only one runs a day). */
  checkedAt?: number;
  /** The registry's `latest` for the package, from the last check that got an answer. */
  latest?: string;
  /** When the notice was last shown. */
  shownAt?: number;
}

/** Whether this run may show a notice or start a check at all (everything but the cache file). */
export function notifierAllowed(env: Env, argv: readonly string[], stderrIsTTY: boolean, format: string | undefined): boolean {
  if (!stderrIsTTY) return false;
  const set = (name: string) => (env[name] ?? '') !== '';
  if ((set('RSI_NO_UPDATE_NOTIFIER') && env.RSI_NO_UPDATE_NOTIFIER !== '0') || set('NO_UPDATE_NOTIFIER')) return false;
  // The variables CI services set (gh's list): a notice there is noise nobody reads.
  if (['CI', 'BUILD_NUMBER', 'RUN_ID'].some((name) => set(name) && env[name] !== 'false')) return false;
  // Machine output: whoever reads it is a program, even when stderr is a terminal.
  if (format === 'json' || format === 'ndjson') return false;
  if (argv.some((a) => a === '--json' || a.startsWith('--json=') || a === '--jq' || a.startsWith('--jq='))) return false;
  // `mcp serve` talks MCP on stdio; completion runs on every Tab.
  const words = argv.filter((a) => !a.startsWith('-'));
  if (words.includes('mcp') && words.includes('serve')) return false;
  if (words[0] === '__complete' || words[0] === 'completion' || words[0] === '__update-check') return false;
  return true;
}

/** `1.2.3` only (a prerelease is never offered), compared as numbers. */
export function newer(latest: string | undefined, current: string): boolean {
  const parse = (v: string) => /^(\d+)\.(\d+)\.(\d+)$/.exec(v)?.slice(1).map(Number);
  const a = latest === undefined ? undefined : parse(latest);
  const b = parse(current.replace(/-.*$/, ''));
  if (!a || !b) return false;
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i]! > b[i]!;
  return current.includes('-');
}

export interface Decision {
  /** The lines to print, if the notice is due. */
  notice?: string;
  /** Whether to start a background check. */
  check: boolean;
  /** The state to write back when anything changed. */
  state?: UpdateState;
}

/** What this run does, from the cached state and the clock. */
export function decide(state: UpdateState, now: number, version: string, name: string, install: Installation): Decision {
  const next: UpdateState = { ...state };
  let changed = false;
  let notice: string | undefined;
  if (newer(state.latest, version) && !(state.shownAt !== undefined && now - state.shownAt < DAY_MS && state.shownAt <= now)) {
    notice = noticeText(name, version, state.latest!, install);
    next.shownAt = now;
    changed = true;
  }
  const check = state.checkedAt === undefined || now - state.checkedAt >= DAY_MS || state.checkedAt > now;
  if (check) {
    next.checkedAt = now;
    changed = true;
  }
  return { ...(notice ? { notice } : {}), check, ...(changed ? { state: next } : {}) };
}

/** The notice, with the way to update this installation. */
export function noticeText(name: string, version: string, latest: string, install: Installation): string {
  const how =
    install.kind === 'executable'
      ? `To update this single executable, replace ${install.path} with the ${latest} build for your system (docs/install.md, "One file, no Node").`
      : install.kind === 'npm'
        ? `To update: npm install -g ${name}@latest`
        : `To update this checkout: git pull && npm install && npm run build (in ${install.path})`;
  return `\nA new release of ${name} is available: ${version} → ${latest}\n${how}\n`;
}

/** The cache file: $XDG_CACHE_HOME/rsi (absolute only), ~/Library/Caches/rsi, %LOCALAPPDATA%\rsi\Cache, else ~/.cache/rsi. */
export function stateFile(env: Env, platform: NodeJS.Platform, home: string, join: (...parts: string[]) => string): string {
  if (platform === 'win32') return join(env.LOCALAPPDATA || join(home, 'AppData', 'Local'), 'rsi', 'Cache', 'update-check.json');
  if (platform === 'darwin') return join(home, 'Library', 'Caches', 'rsi', 'update-check.json');
  return join(env.XDG_CACHE_HOME?.startsWith('/') ? env.XDG_CACHE_HOME : join(home, '.cache'), 'rsi', 'update-check.json');
}

export interface RunOptions {
  env: Env;
  version: string;
  name: string;
  now: number;
  write: (text: string) => void;
  /** Starts `rsi __update-check` detached; its failure is ignored. */
  startCheck: () => void;
}

/**
 * After a command: show the notice if due, start a check if due. Never throws and never waits on
 * the network; a cache folder that cannot be read or written only means no notice.
 */
export async function afterCommand(options: RunOptions): Promise<void> {
  const { installation } = await import('../io/installation.js');
  try {
    const file = stateFile(options.env, process.platform, homedir(), join);
    let state: UpdateState = {};
    try {
      state = JSON.parse(fs.readFileSync(file, 'utf8')) as UpdateState;
    } catch {
      // No file yet, or a broken one: start over.
    }
    const decision = decide(state, options.now, options.version, options.name, installation());
    if (decision.state) {
      fs.mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
      writeAtomically(file, decision.state);
    }
    if (decision.notice) options.write(decision.notice);
    if (decision.check) options.startCheck();
  } catch {
    // The notice is a courtesy: nothing about it may fail or slow a command.
  }
}

/** Writes the state through a temporary file and a rename, so a reader never sees half a file. */
export function writeAtomically(file: string, state: UpdateState): void {
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, `${JSON.stringify(state)}\n`, { mode: 0o600 });
  fs.renameSync(temp, file);
}

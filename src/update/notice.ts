/**
 * The update notice, as gh prints it: at most once a day, on stderr, after the command, only to a
 * person at a terminal (stdout and stderr both), and only for a release install (a checkout or a
 * linked clone updates with git). The newest version is never fetched here: a detached child (`rsi
 * __update-check`, check.ts) asks the registry at most once a day and writes the answer to rsi's
 * cache folder, where a later run finds it. So the check never delays a command, and a run with no
 * terminal, in CI, with --json/--jq, or as `mcp serve` neither prints nor checks.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Env } from '../io/io.js';
import { inCI } from '../io/ci.js';
import type { Installation } from '../io/installation.js';
import { RELEASES_URL } from '../release.js';

/**
 * Defined `false` by `RSI_BUILD_NO_UPDATE_NOTIFIER=1 npm run build` (src/build/bundle.mjs), for a
 * distribution that updates rsi itself: such a build never shows the notice nor asks the registry.
 */
declare const RSI_UPDATE_NOTIFIER: boolean | undefined;

/** Whether this build has the notice at all (docs/install.md, "Update notices": the packagers' switch). */
export const BUILT_WITH_NOTIFIER: boolean = typeof RSI_UPDATE_NOTIFIER === 'undefined' || RSI_UPDATE_NOTIFIER !== false;

/** How long an answer and a shown notice last (gh: 24 h). */
export const DAY_MS = 24 * 60 * 60 * 1000;

/** The state file's name in rsi's cache folder (storage/state.ts). */
export const STATE_FILE = 'update-check.json';

/** What the cache file holds (times in ms since the epoch). */
export interface UpdateState {
  /** When a check was last started (claimed before the child runs, so only one runs a day). */
  checkedAt?: number;
  /** The registry's `latest` for the package, from the last check that got an answer. */
  latest?: string;
  /** When the notice was last shown. */
  shownAt?: number;
}

export interface Terminal {
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
}

/** Whether this run may show a notice or start a check at all (everything but the install and the cache file). */
export function notifierAllowed(
  env: Env,
  argv: readonly string[],
  terminal: Terminal,
  format: string | undefined,
  built: boolean = BUILT_WITH_NOTIFIER,
): boolean {
  // A distribution's build, which its own package manager updates.
  if (!built) return false;
  // gh's rule: a person reads both streams; `rsi … > file` or `| less` is a script's or a pager's.
  if (!terminal.stdoutIsTTY || !terminal.stderrIsTTY) return false;
  const set = (name: string) => (env[name] ?? '') !== '';
  if ((set('RSI_NO_UPDATE_NOTIFIER') && env.RSI_NO_UPDATE_NOTIFIER !== '0') || set('NO_UPDATE_NOTIFIER')) return false;
  // A notice in CI is noise nobody reads.
  if (inCI(env)) return false;
  // Machine output: whoever reads it is a program, even at a terminal.
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

/** What this run does, from the cached state and the clock; nothing at all for an install that is not a release. */
export function decide(state: UpdateState, now: number, version: string, name: string, install: Installation): Decision {
  if (!install.release) return { check: false };
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

/** The single executable's file for this system, as the release attaches it (src/build/exe.mjs). */
export function executableAsset(platform: NodeJS.Platform, arch: string): string {
  const os = platform === 'win32' ? 'win' : platform;
  return `rsi-${os}-${arch}${platform === 'win32' ? '.exe' : ''}`;
}

/** The notice, with the exact way to update the installation found. */
export function noticeText(
  name: string,
  version: string,
  latest: string,
  install: Installation,
  system = { platform: process.platform, arch: process.arch },
): string {
  let how: string;
  if (install.kind === 'executable') {
    const asset = executableAsset(system.platform, system.arch);
    how = `To update, download ${asset} from ${RELEASES_URL}/tag/v${latest} (check it against SHA256SUMS there) and replace ${install.path} with it`;
  } else if (install.npm === 'npx') how = `To update: npx ${name}@latest`;
  else if (install.npm === 'local') how = `To update: npm install ${name}@latest (in ${install.project})`;
  else how = `To update: npm install -g ${name}@latest`;
  return `\nA new release of ${name} is available: ${version} → ${latest}\n${how}\nRelease notes: ${RELEASES_URL}/tag/v${latest}\n`;
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
 * the network. A cache folder that is not the user's, or that others can write, is not used, and
 * says so (with its fix); any other failure only means no notice.
 */
export async function afterCommand(options: RunOptions): Promise<void> {
  const [{ installation }, { cacheDir, readState, writeState, StateFolderRefusedError }] = await Promise.all([
    import('../io/installation.js'),
    import('../storage/state.js'),
  ]);
  const install = installation(options.name);
  if (!install.release) return;
  try {
    const dir = cacheDir(options.env, process.platform, homedir());
    const decision = decide(readState<UpdateState>(join(dir, STATE_FILE)) ?? {}, options.now, options.version, options.name, install);
    // The state is written first: a folder rsi may not use means no notice and no check.
    if (decision.state) await writeState(dir, STATE_FILE, decision.state);
    if (decision.notice) options.write(decision.notice);
    if (decision.check) options.startCheck();
  } catch (error) {
    // The notice is a courtesy: nothing about it may fail or slow a command; a refused folder is named.
    if (error instanceof StateFolderRefusedError) options.write(`warning: no update check: ${error.message}\n`);
  }
}

import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { CI_VARIABLES } from '../../src/io/ci.js';

/** Outside the run's own temporary folder (test/support/run-tmpdir.ts): the cache outlasts a run. */
const TEST_CACHE_HOME = join(process.env.RSI_TEST_OUTER_TMPDIR ?? tmpdir(), `rsi-test-cache-${process.getuid?.() ?? 'user'}`);

export const RSI_BIN = fileURLToPath(new URL('../../bin/rsi.js', import.meta.url));

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunCliOptions {
  /** Extra environment; merged over a clean base (no inherited RSI_* or colour variables). */
  env?: Record<string, string | undefined>;
  /** Text written to stdin, then closed. Default: stdin closed at once. */
  input?: string;
  timeoutMs?: number;
  cwd?: string;
  /** An rsi executable to run instead of `node bin/rsi.js` (an installed one, say). */
  bin?: string;
}

/** The environment every spawned rsi starts from: the parent's, minus anything that changes rsi. */
export function cleanEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (key.startsWith('RSI_') && key !== 'RSI_REQUIRE_SYSTEM_TESTS') continue;
    if (['NO_COLOR', 'FORCE_COLOR', 'BROWSER', 'DBUS_SESSION_BUS_ADDRESS'].includes(key)) continue;
    if (key.startsWith('VITEST') || key === 'NODE_OPTIONS') continue;
    // A CI job's CI=true would turn off what the tests look for (the walk progress, the update
    // notice): a test that wants CI says so itself.
    if ((CI_VARIABLES as readonly string[]).includes(key)) continue;
    // What an outer `npm test` passes down (npm_config_registry among them): rsi reads npm's config.
    if (/^npm_/i.test(key)) continue;
    env[key] = value;
  }
  // Node ≥ 22 keeps rsi's compile cache under XDG_CACHE_HOME: a test run writes it to its own
  // folder, never to the person's ~/.cache.
  env.XDG_CACHE_HOME = TEST_CACHE_HOME;
  // A run on a terminal (tmux tests) would start the daily update check against the real npm
  // registry: off, except in test/system/tmux-update-notice.test.ts, which points it at a stub.
  env.RSI_NO_UPDATE_NOTIFIER = '1';
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return env;
}

/**
 * How long a spawned child may run before it is killed: generous (a whole suite beside another copy
 * of itself on 2 busy cores must never reach it), and under vitest's 300 s per test.
 */
export const CHILD_BOUND_MS = 240_000;

/** Spawns `node bin/rsi.js …` as a real child process and collects its output. */
export function runCli(args: readonly string[], options: RunCliOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const [command, ...prefix] = options.bin ? [options.bin] : [process.execPath, RSI_BIN];
    const child = spawn(command!, [...prefix, ...args], {
      env: cleanEnv(options.env),
      cwd: options.cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    // An outer bound for a child that truly hangs, not a speed limit: under vitest's 300 s test
    // bound, so a hung child still fails with its output shown. A busy machine never trips it.
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? CHILD_BOUND_MS);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
  });
}

import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { RSI_BIN, cleanEnv } from './cli.js';

export interface SandboxProcess {
  url: string;
  child: ChildProcess;
  /** Lines the sandbox printed on stderr so far (for diagnosing a failed test). */
  stderr: () => string;
  stop(): Promise<void>;
}

/**
 * Starts `rsi sandbox --port 0 …` as a real child process (one per test file) and resolves with the
 * base URL from its first stdout line. `bin` runs another rsi executable (an installed one).
 */
export function startSandbox(
  args: readonly string[] = [],
  options: { bin?: string; cwd?: string; env?: Record<string, string> } = {},
): Promise<SandboxProcess> {
  return new Promise((resolve, reject) => {
    const [command, ...prefix] = options.bin ? [options.bin] : [process.execPath, RSI_BIN];
    const child = spawn(command!, [...prefix, 'sandbox', '--port', '0', ...args], {
      env: cleanEnv(options.env),
      cwd: options.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
    const lines = createInterface({ input: child.stdout! });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`sandbox did not print its URL within 10 s; stderr: ${err}`));
    }, 10_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`sandbox exited early with ${code}; stderr: ${err}`));
    });
    lines.once('line', (line) => {
      clearTimeout(timer);
      resolve({
        url: line.trim(),
        child,
        stderr: () => err,
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null || child.signalCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
  });
}

/** The sandbox's own counters (requests, refreshes, recorded runs), for proving what was sent. */
export async function sandboxStats(url: string): Promise<SandboxStats> {
  const res = await fetch(`${url}/__sandbox/stats`);
  if (!res.ok) throw new Error(`stats: ${res.status}`);
  return (await res.json()) as SandboxStats;
}

export interface SandboxStats {
  /** Every request the sandbox received, admin routes excluded. */
  requests: number;
  /** Requests under /api/v1. */
  apiRequests: number;
  /** Count per "METHOD /route/template", e.g. "GET /api/v1/keywords/{keywordId}". */
  byRoute: Record<string, number>;
  registrations: number;
  tokens: { issuedByCode: number; refreshed: number; revoked: number };
  /** Analysis runs recorded by POST /projects/{id}/analyses, all projects. */
  runs: number;
}

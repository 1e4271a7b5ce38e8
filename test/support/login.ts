/**
 * A real `rsi login` process whose authorization URL the test reads off its stderr, as a person
 * reads it off the screen; the test then plays the browser (fetches the URL and pastes the
 * redirect on stdin, or drives Chromium). The one home for reading that URL.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { RSI_BIN, cleanEnv } from './cli.js';

/** The authorization URL as rsi prints it (the sandbox and the tests speak plain HTTP on loopback). */
export const AUTHORIZE_URL = /(http:\/\/\S+\/oauth\/authorize\?\S+)/;

export interface LoginExit {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface LoginProcess {
  /** stdin stays open for a pasted redirect; `child.stdin.end()` closes it. */
  child: ChildProcessWithoutNullStreams;
  /** The authorization URL once printed; rejects, with what was printed, if rsi exits first. */
  url: Promise<string>;
  /** How the process ended, with everything it printed. */
  done: Promise<LoginExit>;
  /** stderr so far. */
  stderr: () => string;
}

/** Starts `node bin/rsi.js login ARGS` on `cleanEnv(env)`; the caller reads `url`, then `done`. */
export function startLogin(args: readonly string[], env: Record<string, string | undefined>): LoginProcess {
  const child = spawn(process.execPath, [RSI_BIN, 'login', ...args], { env: cleanEnv(env), stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  const url = new Promise<string>((resolve, reject) => {
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      stderr += c;
      const m = AUTHORIZE_URL.exec(stderr);
      if (m) resolve(m[1]!);
    });
    child.once('exit', () => reject(new Error(`login exited early: ${stderr}`)));
  });
  const done = new Promise<LoginExit>((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
  return { child, url, done, stderr: () => stderr };
}

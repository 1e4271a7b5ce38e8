import type { Readable, Writable } from 'node:stream';
import type { Secrets } from './secrets.js';

/** The process's environment variables, injected from `main.ts` (never `process.env` elsewhere). */
export type Env = Readonly<Record<string, string | undefined>>;

/**
 * The process's standard streams with their terminal facts, injected from `main.ts` so commands
 * and tests never touch `process.stdout` directly.
 */
export interface Io {
  stdin: Readable;
  stdout: Writable;
  /** Sanitising in the real process (`main.ts`): whatever is written shows controls as escapes. */
  stderr: Writable;
  /**
   * The raw stderr, for the two writers that draw on the terminal with their own control sequences
   * (the live progress line and the prompts); they sanitise the text they are given. Absent in
   * tests: `stderr` is used.
   */
  stderrRaw?: Writable;
  stdinIsTTY: boolean;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  /** Terminal width for tables; 80 when unknown. */
  columns: number;
  /** Whether stdout may carry colour (false when not a TTY, NO_COLOR or --no-color). */
  color: boolean;
  /** Whether stderr may carry colour (spinners, prompts). */
  colorStderr: boolean;
  /**
   * stdout's and stderr's file descriptors, when both streams have one (the process's own: 1 and
   * 2): what a child that draws on the terminal itself, the pager, is handed. A caller's streams
   * without one (main() run in process with captured streams) get no pager: it could only draw
   * around them.
   */
  fds?: readonly [stdout: number, stderr: number];
  /**
   * The run's secrets (src/io/secrets.ts), scrubbed from everything written to `stderr` by the
   * real process (`main.ts`); the network and the token providers add what they hold.
   */
  secrets?: Secrets;
}

/**
 * The width help text is wrapped to: the terminal's on a terminal, else 80 (commander's default),
 * so piped help is the same everywhere.
 */
export function helpWidth(io: Pick<Io, 'stdoutIsTTY' | 'columns'>): number {
  return io.stdoutIsTTY ? io.columns : 80;
}

/** A prompt can be shown only when a person can see it and answer. */
export function canPrompt(io: Io): boolean {
  return io.stderrIsTTY && io.stdinIsTTY;
}

/** Wall-clock time, injected so auth and client code never call Date.now() themselves. */
export interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/**
 * `rsi help <command> --man`: a manual page, rendered from the command tree the run has, shown by
 * the system's `man` (man-db's `man -l -` reads the page from stdin). npm 12 no longer links a global
 * package's man pages into `<prefix>/share/man`, so `man rsi` finds nothing there; this shows the
 * same page on any install, the single executable's too, with no file to find. At a terminal `man`
 * draws on it itself (its pager, on the descriptors `io.fds` names, as the pager of tables does);
 * otherwise its plain text goes to stdout.
 */
import { spawn } from 'node:child_process';
import { CliError } from '../errors.js';
import type { Io } from './io.js';

export class ManualUnavailableError extends CliError {
  override readonly code = 'manual_unavailable';
}

/**
 * Shows `page` (roff) with `man`; `fallback` is the command that prints the same text without man
 * (`rsi help keywords search`), named in the error when man cannot be run. `man` is looked up on
 * the PATH of `env`, the run's environment.
 */
export async function showManual(
  page: string,
  io: Io,
  env: Readonly<Record<string, string | undefined>>,
  fallback: string,
  program = 'man',
): Promise<void> {
  const atTerminal = io.stdoutIsTTY && io.fds !== undefined;
  const child = spawn(program, ['-l', '-'], {
    stdio: ['pipe', atTerminal ? io.fds![0] : 'pipe', atTerminal ? io.fds![1] : 'pipe'],
    // man-db's own width otherwise: the terminal's at one, 80 in a pipe.
    env: atTerminal ? env : { ...env, MANWIDTH: env.MANWIDTH ?? String(io.columns || 80) },
  });
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => void io.stdout.write(chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  // A man that exits before reading its whole input (q in its pager) is not an error of ours.
  child.stdin!.on('error', () => {});
  child.stdin!.end(page);
  const result = await new Promise<{ code: number | null; error?: NodeJS.ErrnoException }>((resolve) => {
    child.once('error', (error: NodeJS.ErrnoException) => resolve({ code: null, error }));
    child.once('close', (code) => resolve({ code }));
  });
  if (result.error) {
    throw new ManualUnavailableError(
      result.error.code === 'ENOENT'
        ? `no \`${program}\` program on this system to show the manual`
        : `${program}: ${result.error.message}`,
      { hint: `\`${fallback}\` prints the same text` },
    );
  }
  if (result.code !== 0) {
    throw new ManualUnavailableError(
      `${program} could not show the manual (exit ${result.code})${stderr.trim() ? `: ${stderr.trim().split('\n')[0]}` : ''}`,
      {
        hint: `\`${fallback}\` prints the same text`,
      },
    );
  }
}

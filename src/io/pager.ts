/**
 * Long tables on a terminal go through a pager, as git and gh do. The pager starts on the first
 * byte of output, not before: a picker or a question asked before the table has the terminal to
 * itself. When the person quits the pager early (`q`), the next write fails with EPIPE, which
 * main.ts already treats as "the reader went away": exit 0.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { Writable } from 'node:stream';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * RSI_PAGER, then the `pager` setting, then PAGER, then `less -FRX` when less is installed. An
 * empty value or `cat` means no pager. (gh reads GH_PAGER, its config, then PAGER, in this order.)
 */
export function choosePager(env: Env, setting: string | undefined): string | undefined {
  const chosen = env.RSI_PAGER ?? setting ?? env.PAGER ?? (onPath('less', env) ? 'less -FRX' : undefined);
  const command = chosen?.trim();
  if (!command || command === 'cat') return undefined;
  return command;
}

/** A command line the shell would only split at spaces: no quotes, variables, pipes or `VAR=`. */
const PLAIN = /^[\w./+,:@%-]+(?:\s+[\w./+,:@%-]+)*\s*$/;

function onPath(program: string, env: Env): boolean {
  return (env.PATH ?? '').split(delimiter).some((dir) => dir && existsSync(join(dir, program)));
}

export interface Pager {
  /** Writes here start the pager; after it has gone, they fail with EPIPE. */
  stream: Writable;
  /** Whether the pager has the screen (it started, could be started, and has not gone). */
  active(): boolean;
  /** Ends the pager's input and waits until the person has left it. */
  finish(): Promise<void>;
}

/**
 * A stream that starts `command` (through the shell, as PAGER is a command line) on its first write
 * and feeds it; the pager draws on `fds` (stdout's and stderr's descriptors, the terminal's). A
 * pager that cannot be started is skipped: the output goes to `fallback`, with a note on `notes`.
 */
export function lazyPager(
  command: string,
  env: Env,
  fallback: Writable,
  notes: Writable,
  fds: readonly [stdout: number, stderr: number],
): Pager {
  let child: ChildProcess | undefined;
  let exited: Promise<void> | undefined;
  let failed = false;
  const start = (): void => {
    // less reads LESS when started without flags (PAGER=less): the same defaults gh sets.
    const childEnv = { ...env, LESS: env.LESS ?? 'FRX', LV: env.LV ?? '-c' };
    // A plain command line (`less -R`, `no-such-pager`) is started directly, so a missing program
    // is an 'error' event and the output is printed past it; through the shell it was only
    // `sh: not found` with every row lost. Anything else (quotes, `$`, `|`, `VAR=x`) needs the shell.
    const words = PLAIN.test(command) ? command.trim().split(/\s+/) : undefined;
    child = words
      ? spawn(words[0]!, words.slice(1), { stdio: ['pipe', ...fds], env: childEnv })
      : spawn(command, { shell: true, stdio: ['pipe', ...fds], env: childEnv });
    exited = new Promise((resolve) => {
      child!.once('exit', () => resolve());
      child!.once('error', (error: NodeJS.ErrnoException) => {
        failed = true;
        notes.write(`note: could not start the pager "${command}" (${error.code ?? error.message}); printing directly\n`);
        resolve();
      });
    });
    // The pager quit before reading everything: writes fail with EPIPE below, not as an error event.
    child.stdin!.on('error', () => undefined);
  };
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      if (!child) start();
      if (failed) return void fallback.write(chunk, callback);
      const stdin = child!.stdin!;
      if (stdin.destroyed || child!.exitCode !== null) return callback(epipe());
      stdin.write(chunk, (error) => {
        if (failed) return void fallback.write(chunk, callback);
        callback(error ? epipe() : null);
      });
    },
  });
  // A failed write reports EPIPE to its writer through the callback; the stream's own 'error'
  // event would otherwise crash the process as unhandled.
  stream.on('error', () => undefined);
  return {
    stream,
    active: () => child !== undefined && !failed && child.exitCode === null && child.signalCode === null && !child.stdin!.destroyed,
    async finish() {
      if (!child) return;
      await endOf(stream);
      child.stdin!.end();
      await exited;
    },
  };
}

/**
 * stderr while a pager may hold the screen. A footer, a note or an error written while the pager
 * runs goes into the pager after the rows written before it (through `intoPager`, which sanitises
 * as stderr does), so it shows in its place instead of flashing up under less; before the pager
 * starts, once it has gone, or when stderr is not the terminal, it goes to stderr as always.
 */
export function besidePager(stderr: Writable, intoPager: Writable, pager: Pager, stderrIsTTY: boolean): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, callback) {
      if (!stderrIsTTY || !pager.active()) return void stderr.write(chunk, () => callback());
      // The pager may go between the check and the write: what it did not take goes to stderr.
      intoPager.write(chunk, (error) => (error ? stderr.write(chunk, () => callback()) : callback()));
    },
  });
}

/**
 * Ends a stream and waits until it is done, whatever state it is in. After the person quits the
 * pager early its stream has failed (EPIPE) and is destroyed: on Node 22 and 24 `end(callback)`
 * then never calls back, and with nothing else left to wait on the process stopped with an
 * unsettled top-level await (exit 13) instead of exit 0.
 */
export function endOf(stream: Writable): Promise<void> {
  return new Promise<void>((resolve) => {
    if (stream.destroyed || stream.writableFinished) return resolve();
    stream.once('close', () => resolve());
    stream.once('error', () => resolve());
    stream.end(() => resolve());
  });
}

function epipe(): NodeJS.ErrnoException {
  return Object.assign(new Error('the pager was closed'), { code: 'EPIPE' });
}

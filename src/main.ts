/**
 * The composition root: the only module that reads `process.env`, argv and the real stdio. It
 * builds the dependencies, runs the command tree, and maps errors to the contract's exit codes.
 */
import { createContext } from './context.js';
import type { Env } from './io/io.js';
import { CliError, ExitCode, InterruptedError, errorJsonLine, errorsAsJson, ioErrorFrom } from './errors.js';
import type { Readable, Writable } from 'node:stream';
import type { Io } from './io/io.js';
import { colourWanted } from './io/colors.js';
import { utf8Locale } from './io/pictures.js';
import * as sanitize from './io/sanitize.js';
import { Secrets } from './io/secrets.js';
import { flagsWereChanged, setV8Flags } from './io/v8-flags.js';
import { exitOutsideShield } from './io/shield.js';
import { explainError, programFor } from './program.js';
import { PACKAGE_NAME, VERSION } from './release.js';
// Imported statically: every run but `--version` needs them, and bin/rsi.js answers that before
// loading this bundle. A dynamic import per module cost a file (and a loader round) each.

/** The environment variables that hold a secret: never repeated in anything rsi writes to stderr. */
export const SECRET_VARIABLES = ['RSI_TOKEN', 'RSI_MCP_TOKEN', 'RSI_CLIENT_SECRET'] as const;

export interface MainOptions {
  argv?: readonly string[];
  env?: Env;
  /** A ready-made Io, used as given (unit tests of one printer's bytes). */
  io?: Io;
  /**
   * Streams to run on instead of the process's own: the Io is built from them exactly as from the
   * real stdio (stderr sanitised, colour and ASCII decided the same way), so a command run in
   * process (tests, an embedder) behaves as the process would. Their terminal facts default to
   * "not a terminal".
   */
  stdio?: Stdio;
  /**
   * Stops the command as a SIGTERM would (exit 143), for a caller that runs it in process; the
   * process's own signals are listened to only when neither `io` nor `stdio` is given.
   */
  signal?: AbortSignal;
}

/** Standard streams and their terminal facts (`MainOptions.stdio`). */
export interface Stdio {
  readonly stdin: Readable;
  readonly stdout: Writable;
  readonly stderr: Writable;
  readonly stdinIsTTY?: boolean;
  readonly stdoutIsTTY?: boolean;
  readonly stderrIsTTY?: boolean;
  readonly columns?: number;
}

/**
 * Whether this process's run changed V8's flags (a batch's `--optimize-for-size` through
 * `Context.setV8Flags`, `--jq`'s `--liftoff-only`: src/io/v8-flags.ts). A code cache made after it
 * would carry them, and V8 rejects a cache whose flags differ from the next run's: the npm loader
 * then makes none (src/exe/npm.ts).
 */
export function v8FlagsChanged(): boolean {
  return flagsWereChanged();
}

export async function main(options: MainOptions = {}): Promise<number> {
  const argv = options.argv ?? process.argv.slice(2);
  const env = options.env ?? process.env;
  const stdout = options.io?.stdout ?? options.stdio?.stdout ?? process.stdout;

  // `--version` is answered before commander, config or anything heavy is loaded.
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    stdout.write(`${VERSION}\n`);
    return ExitCode.ok;
  }

  // The once-a-day registry check, run detached by an earlier run (src/update/notice.ts).
  if (argv.length === 1 && argv[0] === '__update-check') {
    const { runUpdateCheck, BUDGET_MS } = await import('./update/check.js');
    // Whatever the network does (a proxy that closes every connection, a registry that drips), this
    // detached process is gone when its budget is spent (issue 41).
    if (options.env === undefined) setTimeout(() => process.exit(ExitCode.ok), BUDGET_MS).unref();
    await runUpdateCheck({ env, now: Date.now });
    return ExitCode.ok;
  }

  const stdio = options.stdio ?? processStdio();
  // Tokens given in the environment are known from the start; the rest as rsi meets them.
  const secrets = new Secrets();
  for (const name of SECRET_VARIABLES) secrets.learn(env[name]);
  const io = options.io ?? (await asciiWhereNeeded(stdioIo(stdio, argv, env, secrets), stdio, env));
  const debug = argv.includes('--debug') || env.RSI_DEBUG === '1';

  const abort = new AbortController();
  let stdoutFailed: CliError | undefined;
  const onSignal = (name: NodeJS.Signals): void => {
    if (abort.signal.aborted) {
      // Second Ctrl-C: leave now, unless rotated tokens are being saved (then right after).
      exitOutsideShield(
        () => process.exit(name === 'SIGTERM' ? ExitCode.terminated : ExitCode.interrupted),
        (line) => void io.stderr.write(`${line}\n`),
      );
      return;
    }
    abort.abort(new InterruptedError(name === 'SIGINT' ? 'interrupted' : `stopped by ${name}`, { signal: name }));
    // The abort closes sockets and listeners at once; whatever still holds the process a second
    // later (a session's goodbye to a hung server) does not keep it from ending (issue 41).
    setTimeout(
      () =>
        exitOutsideShield(
          () => process.exit(name === 'SIGTERM' ? ExitCode.terminated : ExitCode.interrupted),
          () => undefined,
        ),
      1000,
    ).unref();
  };
  const listening = options.io === undefined && options.stdio === undefined;
  // A caller running the command in process stops it the way SIGTERM would (exit 143), but never
  // with the process-wide last resort above: the process is the caller's, not this command's.
  const stop = (): void => {
    if (!abort.signal.aborted) abort.abort(new InterruptedError('stopped by SIGTERM', { signal: 'SIGTERM' }));
  };
  if (options.signal?.aborted) stop();
  else options.signal?.addEventListener('abort', stop, { once: true });
  if (listening) {
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    // A closed pipe also surfaces as an 'error' event on stdout: without a listener it would crash.
    process.stdout.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') return abort.abort(error);
      // `rsi … > file` on a full disk: the output is incomplete, which a script must hear. Said here
      // (a write can fail after the command returned) once, with exit 12, whenever it comes.
      if (stdoutFailed) return;
      stdoutFailed = ioErrorFrom(error, 'the output (stdout)') ?? new IoErrorLike(error);
      reportError(stdoutFailed, io, debug, abort.signal, sanitize, errorsAsJson(env));
      process.exitCode = stdoutFailed.exitCode;
      abort.abort(stdoutFailed);
    });
  }

  let program: import('commander').Command | undefined;
  const ctx = createContext({
    io,
    env,
    signal: abort.signal,
    version: VERSION,
    setV8Flags: listening ? setV8Flags : undefined,
    flags: () => program?.opts() ?? {},
  });

  try {
    // Only the command the line names is loaded and built; gh's `--json a,b` comes back expanded.
    const built = await programFor(ctx, argv);
    program = built.program;
    await program.parseAsync(built.words, { from: 'user' });
    return stdoutFailed?.exitCode ?? ExitCode.ok;
  } catch (error) {
    // Already said when the output failed; what the command made of the abort adds nothing.
    if (stdoutFailed) return stdoutFailed.exitCode;
    // A missing-scope error learns the profile and the scopes already granted, for its hint.
    // commander's own (help shown, a usage error) has been said already: nothing to load for it.
    const explained = program && !isCommanderError(error) ? await explainError(error, ctx) : error;
    // The command's signal: a stop, or the --timeout bound (its reason names the step it cut short).
    const code = reportError(explained, io, debug, ctx.signal, sanitize, errorsAsJson(env));
    return code;
  } finally {
    options.signal?.removeEventListener('abort', stop);
    await ctx.close();
    if (listening) {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      // After the command, and only for a person at a terminal: nothing is loaded otherwise.
      if (io.stderrIsTTY && io.stdoutIsTTY) await updateNotice(argv, env, io, format(ctx));
    }
  }
}

function format(ctx: ReturnType<typeof createContext>): string | undefined {
  try {
    return ctx.globals().format;
  } catch {
    return undefined;
  }
}

/** gh's update notice (src/update/notice.ts); a check it starts runs detached, never awaited. */
async function updateNotice(argv: readonly string[], env: Env, io: Io, outputFormat: string | undefined): Promise<void> {
  const { afterCommand, notifierAllowed } = await import('./update/notice.js');
  if (!notifierAllowed(env, argv, io, outputFormat)) return;
  await afterCommand({
    env,
    version: VERSION,
    name: PACKAGE_NAME,
    now: Date.now(),
    write: (text) => void io.stderr.write(text),
    startCheck: () => {
      const { spawn } = process.getBuiltinModule('node:child_process');
      const sea = (process.getBuiltinModule('node:sea') as { isSea?: () => boolean } | undefined)?.isSea?.() === true;
      // The same rsi, by the same Node: bin/rsi.js (argv[1]), or the single executable itself.
      const args = sea ? ['__update-check'] : [process.argv[1]!, '__update-check'];
      spawn(process.execPath, args, { detached: true, stdio: 'ignore', env, windowsHide: true })
        .on('error', () => {})
        .unref();
    },
  });
}

const WRITE_CALLS = new Set(['write', 'writev', 'mkdir', 'rename', 'fsync', 'fdatasync', 'ftruncate', 'copyfile', 'close']);

function reportError(error: unknown, io: Io, debug: boolean, signal: AbortSignal, sanitize: Sanitize, json = false): number {
  // commander has already printed its message (through our outputError) when it throws.
  if (isCommanderError(error)) {
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') {
      return ExitCode.ok;
    }
    return ExitCode.usage;
  }
  // The reader went away (`rsi … | head`): not an error of ours, and nothing more to say.
  if (
    (error as NodeJS.ErrnoException | undefined)?.code === 'EPIPE' ||
    (signal.reason as NodeJS.ErrnoException | undefined)?.code === 'EPIPE'
  ) {
    return ExitCode.ok;
  }
  // A failed local write no layer named (an output file on a full disk): the machine's, not a bug.
  // Only writes: an EACCES from listen() or a read is not a full disk's kind of failure.
  const errno = error as NodeJS.ErrnoException | undefined;
  if (!(error instanceof CliError) && WRITE_CALLS.has(errno?.syscall ?? '')) {
    error = ioErrorFrom(error, errno?.path ? String(errno.path) : 'a file') ?? error;
  }
  if (isPromptExit(error) || (signal.aborted && !(error instanceof CliError))) {
    // The signal's own reason says what stopped rsi: SIGTERM exits 143 on every path, --timeout 9.
    error = signal.reason instanceof CliError ? signal.reason : new InterruptedError();
  }
  // Messages carry server text (error bodies, names): sanitised here as well as by the stream, so
  // the guarantee holds for any Io the caller passes in.
  if (json) {
    // One JSON line a loader can parse (docs/scripting.md, "Errors as JSON"); the trace stays text.
    const known = error instanceof CliError ? error : undefined;
    const message = error instanceof Error ? error.message : String(error);
    io.stderr.write(
      errorJsonLine({
        code: known ? known.code : 'unexpected',
        exit: known ? known.exitCode : ExitCode.unexpected,
        message: oneLine(known ? message : `unexpected error: ${message}`, sanitize),
        hint: known ? known.hint && oneLine(known.hint, sanitize) : 'run again with --debug for details, and report it if it persists',
      }),
    );
    if (debug && error instanceof Error && error.stack) io.stderr.write(`${sanitize.sanitizeText(error.stack)}\n`);
    return known ? known.exitCode : ExitCode.unexpected;
  }
  if (error instanceof CliError) {
    io.stderr.write(`rsi: ${oneLine(error.message, sanitize)}\n`);
    if (error.hint) io.stderr.write(`hint: ${oneLine(error.hint, sanitize)}\n`);
    if (debug && error.stack) io.stderr.write(`${sanitize.sanitizeText(error.stack)}\n`);
    return error.exitCode;
  }
  const message = error instanceof Error ? error.message : String(error);
  io.stderr.write(`rsi: unexpected error: ${oneLine(message, sanitize)}\n`);
  if (debug && error instanceof Error && error.stack) io.stderr.write(`${sanitize.sanitizeText(error.stack)}\n`);
  else io.stderr.write('hint: run again with --debug for details, and report it if it persists\n');
  return ExitCode.unexpected;
}

/** One line for a person: line breaks folded to spaces, every other control shown as an escape. */
function oneLine(text: string, sanitize: Sanitize): string {
  return sanitize.sanitizeLine(text.replace(/\s*\n\s*/g, ' ').trim());
}

/** By code, not class name: bundling may rename the class (CommanderError2). */
function isCommanderError(error: unknown): error is { code: string; exitCode: number } {
  return (
    error instanceof Error &&
    typeof (error as { code?: unknown }).code === 'string' &&
    String((error as { code?: unknown }).code).startsWith('commander.')
  );
}

function isPromptExit(error: unknown): boolean {
  return error instanceof Error && (error.name === 'ExitPromptError' || error.name === 'AbortPromptError');
}

type Sanitize = typeof import('./io/sanitize.js');

/**
 * The real stdio with its terminal facts. stdin is built on first use: making the stream (a socket,
 * a tty or a file stream) costs ~1 ms of a start that, for most commands, never reads it
 * (docs/performance.md, round 3).
 */
function processStdio(): Stdio {
  let stdinIsTTY: boolean | undefined;
  return {
    get stdin() {
      return process.stdin;
    },
    get stdinIsTTY() {
      stdinIsTTY ??= process.getBuiltinModule('node:tty').isatty(0);
      return stdinIsTTY;
    },
    stdout: process.stdout,
    stderr: process.stderr,
    stdoutIsTTY: process.stdout.isTTY === true,
    stderrIsTTY: process.stderr.isTTY === true,
    columns: process.stdout.columns || process.stderr.columns || 80,
  };
}

/**
 * In a locale that is not UTF-8 (LC_ALL=C), what rsi draws on a terminal (spinner, pictures,
 * prompts, ✓ and …) is written as ASCII; piped output is never touched (io/ascii.ts).
 */
async function asciiWhereNeeded(io: Io, stdio: Stdio, env: Env): Promise<Io> {
  if (utf8Locale(env) || (!io.stdoutIsTTY && !io.stderrIsTTY)) return io;
  const { asciiStream } = await import('./io/ascii.js');
  if (!io.stderrIsTTY) return { ...io, stdout: io.stdoutIsTTY ? asciiStream(io.stdout) : io.stdout };
  const stderrRaw = asciiStream(stdio.stderr);
  return {
    ...io,
    stdout: io.stdoutIsTTY ? asciiStream(io.stdout) : io.stdout,
    stderr: sanitize.sanitizingStream(stderrRaw, io.secrets),
    stderrRaw,
  };
}

/** The Io of a set of standard streams: what every command writes and reads through. */
function stdioIo(stdio: Stdio, argv: readonly string[], env: Env, secrets: Secrets): Io {
  const stdoutIsTTY = stdio.stdoutIsTTY === true;
  const stderrIsTTY = stdio.stderrIsTTY === true;
  const noColorFlag = argv.includes('--no-color');
  return {
    get stdin() {
      return stdio.stdin;
    },
    get stdinIsTTY() {
      return stdio.stdinIsTTY === true;
    },
    stdout: stdio.stdout,
    // Everything written for a person on stderr (errors, hints, warnings, notes, the --debug trace)
    // passes the sanitiser; the live progress line and prompts draw on the raw stream themselves.
    stderr: sanitize.sanitizingStream(stdio.stderr, secrets),
    stderrRaw: stdio.stderr,
    secrets,
    stdoutIsTTY,
    stderrIsTTY,
    columns: stdio.columns ?? 80,
    // NO_COLOR, FORCE_COLOR, CLICOLOR and CLICOLOR_FORCE as people set them (io/colors.ts); JSON,
    // TSV and CSV stay plain in a pipe whatever they say (io/output.ts).
    color: colourWanted(env, noColorFlag, stdoutIsTTY),
    colorStderr: colourWanted(env, noColorFlag, stderrIsTTY),
    ...fdsOf(stdio),
  };
}

/** Both streams' file descriptors (Io.fds), when both have one. */
function fdsOf(stdio: Stdio): Pick<Io, 'fds'> {
  const stdout = (stdio.stdout as { fd?: unknown }).fd;
  const stderr = (stdio.stderr as { fd?: unknown }).fd;
  return typeof stdout === 'number' && typeof stderr === 'number' ? { fds: [stdout, stderr] } : {};
}

/** A stdout failure that is no I/O error of the machine's (rare): still one line, exit 1. */
class IoErrorLike extends CliError {
  constructor(error: NodeJS.ErrnoException) {
    super(`cannot write the output (stdout): ${error.message}`, { cause: error });
  }
}

/**
 * The composition root: the only module that reads `process.env`, argv and the real stdio. It
 * builds the dependencies, runs the command tree, and maps errors to the contract's exit codes.
 */
import pkg from '../package.json' with { type: 'json' };
import { createContext, type Env } from './context.js';
import { CliError, ExitCode, InterruptedError } from './errors.js';
import type { Io } from './io/io.js';
import { colourWanted } from './io/colors.js';
import { utf8Locale } from './io/pictures.js';
import * as sanitize from './io/sanitize.js';
import { exitOutsideShield } from './io/shield.js';
import { buildProgram, explainError, expandJsonFields } from './program.js';
// Imported statically: every run but `--version` needs them, and bin/rsi.js answers that before
// loading this bundle. A dynamic import per module cost a file (and a loader round) each.

export interface MainOptions {
  argv?: readonly string[];
  env?: Env;
  io?: Io;
}

export async function main(options: MainOptions = {}): Promise<number> {
  const argv = options.argv ?? process.argv.slice(2);
  const env = options.env ?? process.env;
  const stdout = options.io?.stdout ?? process.stdout;

  // `--version` is answered before commander, config or anything heavy is loaded.
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    stdout.write(`${pkg.version}\n`);
    return ExitCode.ok;
  }

  // The once-a-day registry check, run detached by an earlier run (src/update/notice.ts).
  if (argv.length === 1 && argv[0] === '__update-check') {
    const { runUpdateCheck } = await import('./update/check.js');
    await runUpdateCheck(env, pkg.name, Date.now);
    return ExitCode.ok;
  }

  const io = options.io ?? (await asciiWhereNeeded(processIo(argv, env, sanitize.sanitizingStream), env, sanitize.sanitizingStream));
  const debug = argv.includes('--debug') || env.RSI_DEBUG === '1';

  const abort = new AbortController();
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
  const listening = options.io === undefined;
  if (listening) {
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    // A closed pipe also surfaces as an 'error' event on stdout: without a listener it would crash.
    process.stdout.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') abort.abort(error);
    });
  }

  let program: import('commander').Command | undefined;
  const ctx = createContext({ io, env, signal: abort.signal, version: pkg.version, flags: () => program?.opts() ?? {} });

  try {
    // The tree is built for the words commander will parse (gh's `--json a,b` already expanded).
    const words = expandJsonFields(argv);
    program = buildProgram(ctx, words);
    await program.parseAsync(words, { from: 'user' });
    return ExitCode.ok;
  } catch (error) {
    // A missing-scope error learns the profile and the scopes already granted, for its hint.
    const explained = program ? await explainError(error, ctx) : error;
    const code = reportError(explained, io, debug, abort.signal, sanitize);
    // gh's `--json name` with one field reads as an argument (it cannot be told from `--json EGFR`).
    const word = (error as { code?: unknown }).code === 'commander.excessArguments' ? jsonFieldWord(argv) : undefined;
    if (word !== undefined) io.stderr.write(`hint: to choose fields, write --json=${word} or --fields ${word}\n`);
    return code;
  } finally {
    await ctx.close();
    if (listening) {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      // After the command, and only for a person at a terminal: nothing is loaded otherwise.
      if (io.stderrIsTTY) await updateNotice(argv, env, io, format(ctx));
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
  if (!notifierAllowed(env, argv, io.stderrIsTTY, outputFormat)) return;
  await afterCommand({
    env,
    version: pkg.version,
    name: pkg.name,
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

function reportError(error: unknown, io: Io, debug: boolean, signal: AbortSignal, sanitize: Sanitize): number {
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
  if (isPromptExit(error) || (signal.aborted && !(error instanceof CliError))) {
    error = new InterruptedError();
  }
  // Messages carry server text (error bodies, names): sanitised here as well as by the stream, so
  // the guarantee holds for any Io the caller passes in.
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

/** The field-like word right after `--json`, if any (`projects list --json name`). */
function jsonFieldWord(argv: readonly string[]): string | undefined {
  const next = argv[argv.indexOf('--json') + 1];
  return argv.includes('--json') && next !== undefined && /^[a-z_][a-z0-9_]*$/i.test(next) ? next : undefined;
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

/** The terminal facts of the real stdout and stderr. */
function terminal(): Pick<Io, 'stdoutIsTTY' | 'stderrIsTTY' | 'columns'> {
  return {
    stdoutIsTTY: process.stdout.isTTY === true,
    stderrIsTTY: process.stderr.isTTY === true,
    columns: process.stdout.columns || process.stderr.columns || 80,
  };
}

/**
 * In a locale that is not UTF-8 (LC_ALL=C), what rsi draws on a terminal (spinner, pictures,
 * prompts, ✓ and …) is written as ASCII; piped output is never touched (io/ascii.ts).
 */
async function asciiWhereNeeded(io: Io, env: Env, sanitizingStream: Sanitize['sanitizingStream']): Promise<Io> {
  if (utf8Locale(env) || (!io.stdoutIsTTY && !io.stderrIsTTY)) return io;
  const { asciiStream } = await import('./io/ascii.js');
  if (!io.stderrIsTTY) return { ...io, stdout: io.stdoutIsTTY ? asciiStream(io.stdout) : io.stdout };
  const stderrRaw = asciiStream(process.stderr);
  return {
    ...io,
    stdout: io.stdoutIsTTY ? asciiStream(io.stdout) : io.stdout,
    stderr: sanitizingStream(stderrRaw),
    stderrRaw,
  };
}

function processIo(argv: readonly string[], env: Env, sanitizingStream: Sanitize['sanitizingStream']): Io {
  const { stdoutIsTTY, stderrIsTTY, columns } = terminal();
  const noColorFlag = argv.includes('--no-color');
  // stdin is built on first use: making the stream (a socket, a tty or a file stream) costs ~1 ms
  // of a start that, for most commands, never reads it (docs/performance.md, round 3).
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
    // Everything written for a person on stderr (errors, hints, warnings, notes, the --debug trace)
    // passes the sanitiser; the live progress line and prompts draw on the raw stream themselves.
    stderr: sanitizingStream(process.stderr),
    stderrRaw: process.stderr,
    stdoutIsTTY,
    stderrIsTTY,
    columns,
    // NO_COLOR, FORCE_COLOR, CLICOLOR and CLICOLOR_FORCE as people set them (io/colors.ts); JSON,
    // TSV and CSV stay plain in a pipe whatever they say (io/output.ts).
    color: colourWanted(env, noColorFlag, stdoutIsTTY),
    colorStderr: colourWanted(env, noColorFlag, stderrIsTTY),
  };
}

/**
 * The composition root: the only module that reads `process.env`, argv and the real stdio. It
 * builds the dependencies, runs the command tree, and maps errors to the contract's exit codes.
 */
import { setTimeout as delay } from 'node:timers/promises';
import pkg from '../package.json' with { type: 'json' };
import { CliError, ExitCode, InterruptedError, UsageError } from './errors.js';
import type { Clock, Io } from './io/io.js';
import type { Context, GlobalOptions, OutputFormat, Session } from './commands/context.js';
import type { ApiClient } from './client/client.js';

type Env = Readonly<Record<string, string | undefined>>;

const FORMATS: readonly OutputFormat[] = ['table', 'tsv', 'csv', 'json', 'ndjson'];
const DEFAULT_HTTP_TIMEOUT_S = 30;

export interface MainOptions {
  argv?: readonly string[];
  env?: Env;
  io?: Io;
}

export async function main(options: MainOptions = {}): Promise<number> {
  const argv = options.argv ?? process.argv.slice(2);
  const env = options.env ?? process.env;
  const io = options.io ?? processIo(argv, env);
  const debug = argv.includes('--debug') || env.RSI_DEBUG === '1';

  // `--version` is answered before commander, config or anything heavy is loaded.
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    io.stdout.write(`${pkg.version}\n`);
    return ExitCode.ok;
  }

  const abort = new AbortController();
  const onSignal = (name: NodeJS.Signals): void => {
    if (abort.signal.aborted) process.exit(ExitCode.interrupted); // second Ctrl-C: leave now
    abort.abort(new InterruptedError(name === 'SIGINT' ? 'interrupted' : `stopped by ${name}`));
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

  let sessionPromise: Promise<Session> | undefined;
  let clientPromise: Promise<ApiClient> | undefined;
  let program: import('commander').Command | undefined;

  const ctx: Context = {
    io,
    env,
    clock: systemClock,
    signal: abort.signal,
    version: pkg.version,
    globals: () => resolveGlobals(program?.opts() ?? {}, env, io),
    session: () => {
      sessionPromise ??= import('./auth/session.js').then((m) =>
        m.openSession({ globals: ctx.globals(), env, io, clock: systemClock, signal: abort.signal, version: pkg.version }),
      );
      return sessionPromise;
    },
    client: () => {
      clientPromise ??= Promise.all([ctx.session(), import('./client/client.js')]).then(
        ([session, m]) => new m.ApiClient(session.http),
      );
      return clientPromise;
    },
  };

  try {
    const { buildProgram } = await import('./program.js');
    program = buildProgram(ctx);
    await program.parseAsync([...argv], { from: 'user' });
    return ExitCode.ok;
  } catch (error) {
    return reportError(error, io, debug, abort.signal);
  } finally {
    if (sessionPromise) await sessionPromise.then((s) => s.http.close()).catch(() => undefined);
    if (listening) {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  }
}

function reportError(error: unknown, io: Io, debug: boolean, signal: AbortSignal): number {
  // commander has already printed its message (through our outputError) when it throws.
  if (isCommanderError(error)) {
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') {
      return ExitCode.ok;
    }
    return ExitCode.usage;
  }
  // The reader went away (`rsi … | head`): not an error of ours, and nothing more to say.
  if ((error as NodeJS.ErrnoException | undefined)?.code === 'EPIPE' || (signal.reason as NodeJS.ErrnoException | undefined)?.code === 'EPIPE') {
    return ExitCode.ok;
  }
  if (isPromptExit(error) || (signal.aborted && !(error instanceof CliError))) {
    error = new InterruptedError();
  }
  if (error instanceof CliError) {
    io.stderr.write(`rsi: ${oneLine(error.message)}\n`);
    if (error.hint) io.stderr.write(`hint: ${oneLine(error.hint)}\n`);
    if (debug && error.stack) io.stderr.write(`${error.stack}\n`);
    return error.exitCode;
  }
  const message = error instanceof Error ? error.message : String(error);
  io.stderr.write(`rsi: unexpected error: ${oneLine(message)}\n`);
  if (debug && error instanceof Error && error.stack) io.stderr.write(`${error.stack}\n`);
  else io.stderr.write('hint: run again with --debug for details, and report it if it persists\n');
  return ExitCode.unexpected;
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

/** By code, not class name: bundling may rename the class (CommanderError2). */
function isCommanderError(error: unknown): error is { code: string; exitCode: number } {
  return error instanceof Error && typeof (error as { code?: unknown }).code === 'string' && String((error as { code?: unknown }).code).startsWith('commander.');
}

function isPromptExit(error: unknown): boolean {
  return error instanceof Error && (error.name === 'ExitPromptError' || error.name === 'AbortPromptError');
}

/** Resolves the global flags against the environment. Throws UsageError for bad values. */
export function resolveGlobals(opts: Record<string, unknown>, env: Env, io: Io): GlobalOptions {
  const json = opts.json === true;
  let format: OutputFormat;
  if (typeof opts.format === 'string') {
    if (!FORMATS.includes(opts.format as OutputFormat)) {
      throw new UsageError(`--format must be one of ${FORMATS.join(', ')} (got "${opts.format}")`);
    }
    format = opts.format as OutputFormat;
    if (json && format !== 'json') throw new UsageError('--json cannot be combined with --format ' + format);
  } else {
    format = json ? 'json' : io.stdoutIsTTY ? 'table' : 'tsv';
  }
  const profile = (typeof opts.profile === 'string' ? opts.profile : env.RSI_PROFILE) || 'default';
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(profile)) {
    throw new UsageError(`invalid profile name "${profile}": use letters, digits, ".", "_" or "-"`);
  }
  const baseUrl = (typeof opts.baseUrl === 'string' ? opts.baseUrl : env.RSI_BASE_URL) || undefined;
  const rawTimeout = typeof opts.httpTimeout === 'string' ? opts.httpTimeout : env.RSI_HTTP_TIMEOUT;
  let timeoutS = DEFAULT_HTTP_TIMEOUT_S;
  if (rawTimeout !== undefined && rawTimeout !== '') {
    timeoutS = Number(rawTimeout);
    if (!Number.isFinite(timeoutS) || timeoutS <= 0 || timeoutS > 3600) {
      throw new UsageError(`--http-timeout must be a number of seconds between 0 and 3600 (got "${rawTimeout}")`);
    }
  }
  return {
    profile,
    baseUrl,
    json,
    format,
    debug: opts.debug === true || env.RSI_DEBUG === '1',
    timeoutMs: Math.round(timeoutS * 1000),
  };
}

const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) => delay(ms, undefined, signal ? { signal } : undefined),
};

function processIo(argv: readonly string[], env: Env): Io {
  const stdoutIsTTY = process.stdout.isTTY === true;
  const stderrIsTTY = process.stderr.isTTY === true;
  const wantsColor = !argv.includes('--no-color') && env.NO_COLOR === undefined && env.FORCE_COLOR !== '0';
  const forced = env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0';
  const terminalAllows = forced || env.TERM !== 'dumb';
  return {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    stdinIsTTY: process.stdin.isTTY === true,
    stdoutIsTTY,
    stderrIsTTY,
    columns: process.stdout.columns || process.stderr.columns || 80,
    // Never colour when stdout is not a terminal, whatever FORCE_COLOR says: pipes get plain data.
    color: stdoutIsTTY && wantsColor && terminalAllows,
    colorStderr: stderrIsTTY && wantsColor && terminalAllows,
  };
}

/**
 * The in-process twins of `runCli` (test/support/cli.ts) and `startSandbox`
 * (test/support/sandbox.ts): the same signatures and results, but `rsi` runs as `main({argv, env,
 * stdio})` in this test process, with its streams captured and "not a terminal" (or, with
 * `terminal`, one terminal of so many columns), and the sandbox is `rsi sandbox` run the same way.
 * A test file moves in process by changing its imports:
 *
 *   import { runCli } from '../support/inproc.js';      // was '../support/cli.js'
 *   import { startSandbox } from '../support/inproc.js'; // was '../support/sandbox.js'
 *
 * What needs a process boundary stays on the real ones: signals, pipes closing, shells, a working
 * folder (`cwd`), another executable (`bin`), start-up, the compile cache, a child's own exit.
 * main() builds its Io from these streams exactly as from the real stdio (stderr sanitised, colour
 * and locale decided alike), reads no process-wide state, installs no process listeners when handed
 * streams, and pages only on streams with file descriptors (Io.fds), so many runs share one test
 * process safely. One library does leave something for the process's life, the first time a
 * command takes a lock in the config folder: proper-lockfile listens to the signals (signal-exit,
 * which ends the process on one only when nothing else listens) and wraps fs.close (graceful-fs).
 */
import { randomBytes } from 'node:crypto';
import { Readable, Writable } from 'node:stream';
import { main } from '../../src/main.js';
import { CHILD_BOUND_MS, type CliResult, type RunCliOptions, cleanEnv } from './cli.js';
import { rememberSandbox, type SandboxProcess } from './sandbox.js';

/** Bytes written to a stream, read back as UTF-8 at the end (a character split across writes stays whole). */
class Capture extends Writable {
  private readonly chunks: Buffer[] = [];
  private readonly waiters: Array<() => void> = [];
  /** `also`: a capture that gets every byte too, in write order (a terminal showing two streams). */
  constructor(private readonly also?: Capture) {
    super();
  }
  override _write(chunk: Buffer | string, encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, encoding) : chunk;
    this.chunks.push(bytes);
    this.also?.chunks.push(bytes);
    for (const wake of this.waiters.splice(0)) wake();
    done();
  }
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
  /** Resolves once the text so far satisfies `ready`. */
  async until(ready: (text: string) => boolean): Promise<string> {
    while (!ready(this.text())) await new Promise<void>((wake) => this.waiters.push(wake));
    return this.text();
  }
}

/** stdin as a pipe holding `input` (closed at once when there is none), like runCli's child. */
function stdinOf(input: string | undefined): Readable {
  return Readable.from(input === undefined || input === '' ? [] : [Buffer.from(input, 'utf8')], { objectMode: false });
}

/**
 * Runs `rsi ARGS` in this process against the same clean environment a spawned one gets. A run that
 * outlives `timeoutMs` (240 s: an outer bound, not a speed limit) is stopped as SIGTERM stops it.
 */
export async function runCli(
  args: readonly string[],
  options: RunCliOptions & {
    /**
     * stdout and stderr are one terminal this many columns wide (a pane in tmux, say), not pipes;
     * the result's `screen` is what it was sent from both, in order.
     */
    terminal?: { columns: number };
  } = {},
): Promise<CliResult & { screen: string }> {
  if (options.bin !== undefined || options.cwd !== undefined) {
    throw new Error('runCli in process: `bin` and `cwd` need a real process (test/support/cli.ts)');
  }
  const screen = new Capture();
  const stdout = new Capture(screen);
  const stderr = new Capture(screen);
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), options.timeoutMs ?? CHILD_BOUND_MS);
  try {
    const code = await main({
      argv: [...args],
      env: cleanEnv(options.env),
      stdio: {
        stdin: stdinOf(options.input),
        stdout,
        stderr,
        ...(options.terminal && { stdoutIsTTY: true, stderrIsTTY: true, columns: options.terminal.columns }),
      },
      signal: stop.signal,
    });
    return { code, signal: null, stdout: stdout.text(), stderr: stderr.text(), screen: screen.text() };
  } finally {
    clearTimeout(timer);
  }
}

/** An `rsi sandbox` run in this process: a SandboxProcess without a child. */
export type InProcessSandbox = Omit<SandboxProcess, 'child'>;

/**
 * Starts `rsi sandbox --port 0 ARGS` in this process and resolves with its base URL (and, with
 * --tls, its CA file) from its stdout, as the process twin does; `stop()` ends it as SIGTERM would.
 */
export async function startSandbox(
  args: readonly string[] = [],
  options: { env?: Record<string, string> } = {},
): Promise<InProcessSandbox> {
  const adminSecret = randomBytes(24).toString('base64url');
  const stdout = new Capture();
  const stderr = new Capture();
  const stop = new AbortController();
  const running = main({
    argv: ['sandbox', '--port', '0', ...args],
    env: cleanEnv({ RSI_SANDBOX_ADMIN_SECRET: adminSecret, ...options.env }),
    stdio: { stdin: stdinOf(undefined), stdout, stderr },
    signal: stop.signal,
  });
  const tls = args.includes('--tls');
  const lines = tls ? 2 : 1;
  const printed = await Promise.race([
    stdout.until((text) => text.split('\n').length > lines),
    running.then((code) => {
      throw new Error(`sandbox exited early with ${code}; stderr: ${stderr.text()}`);
    }),
  ]);
  const [url = '', caFile] = printed.split('\n').map((line) => line.trim());
  const local = rememberSandbox(url, adminSecret, tls ? caFile : undefined);
  return {
    url,
    adminSecret,
    ...(tls && caFile ? { caFile } : {}),
    local,
    stderr: () => stderr.text(),
    stop: async () => {
      stop.abort();
      await running;
    },
  };
}

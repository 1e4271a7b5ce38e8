/**
 * A private tmux server for terminal tests (its own socket, so a developer's sessions are never
 * touched; a clean environment, so no RSI_* or colour settings leak in), with the helpers every
 * such test needs: start `rsi …` in a window of a given size, read the screen, and wait for text.
 *
 * Waits are driven by what the pane prints, not by a clock: a tmux control-mode client attached to
 * the session (`tmux -C attach`; having no size of its own, it leaves the window the test's size)
 * reports each chunk the pane writes (`%output`), and the screen is read again only then. Reading
 * it every 50 ms instead cost one `tmux capture-pane` process per poll, several thousand per suite
 * (about 7 ms of CPU each here, and the server's share), on a machine the suite keeps busy.
 */
import { spawn, spawnSync } from 'node:child_process';
import { RSI_BIN, cleanEnv } from './cli.js';

/** Single-quotes a word for sh. */
export function sh(arg: string): string {
  return `'${arg.replaceAll("'", `'\\''`)}'`;
}

export interface StartOptions {
  width: number;
  height: number;
  env: Record<string, string>;
  /** Another rsi to run (an installed copy's bin/rsi.js); default the checkout's. */
  bin?: string;
  /** A file stdout is redirected to (stderr stays on the terminal). */
  stdoutTo?: string;
}

export interface PrivateTmux {
  /** Runs a tmux command on the private server; throws with tmux's message when it fails. */
  tmux(...args: string[]): string;
  /** Starts `rsi <args>` in a new session; the shell prints EXIT=<code> when it ends, then idles. */
  start(name: string, args: readonly string[], options: StartOptions): string;
  screen(name: string): string;
  /** Reads the screen each time the pane prints, until `pattern` shows; resolves with that screen. */
  waitFor(name: string, pattern: RegExp, timeoutMs?: number): Promise<string>;
  /**
   * Every screen read (one after each chunk the pane printed) until `pattern` shows, the last one,
   * and the bytes the pane was sent meanwhile (`output`, as tmux reported them), so a test can say
   * that something never appeared, even for an instant no screen caught.
   */
  watch(name: string, pattern: RegExp, timeoutMs?: number): Promise<Watched>;
  killServer(): void;
}

export interface Watched {
  seen: string[];
  last: string;
  output: string;
}

/**
 * What a pane prints, as events: resolves `next()` when the pane printed since the last `clear()`
 * (or after `idleMs`, a safety net for a notice tmux does not send, such as output before the
 * client attached: the screen is read once more then; the wait never depends on it).
 */
function paneOutput(socket: string, name: string) {
  const child = spawn('tmux', ['-L', socket, '-C', 'attach', '-t', name], {
    env: cleanEnv({ TERM: 'xterm-256color' }),
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  let changed = true;
  let wake: (() => void) | undefined;
  let rest = '';
  let output = '';
  const notify = () => {
    changed = true;
    wake?.();
  };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop()!;
    for (const line of lines) {
      // `%output %<pane> <data>`: the data with every byte below 32 and `\` as octal `\ooo`.
      const m = /^%output %\d+ (.*)$/.exec(line);
      if (m) output += m[1]!.replace(/\\(\d{3})/g, (_all, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));
    }
    notify();
  });
  child.on('close', notify);
  child.on('error', notify);
  child.stdin.on('error', () => undefined);
  return {
    output: () => output,
    clear: () => {
      changed = false;
    },
    next: (idleMs: number) =>
      changed
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            const timer = setTimeout(done, idleMs);
            function done() {
              clearTimeout(timer);
              wake = undefined;
              resolve();
            }
            wake = done;
          }),
    close: () => {
      child.stdin.end();
      child.kill();
    },
  };
}

export function privateTmux(label: string): PrivateTmux {
  const socket = `rsi-${label}-${process.pid}`;
  const tmux = (...args: string[]): string => {
    const r = spawnSync('tmux', ['-L', socket, ...args], { encoding: 'utf8', env: cleanEnv({ TERM: 'xterm-256color' }) });
    if (r.status !== 0) throw new Error(`tmux ${args[0]}: ${r.stderr}`);
    return r.stdout;
  };
  const screen = (name: string): string => tmux('capture-pane', '-p', '-t', name);
  // An outer bound for a screen that never comes, not a speed limit: a busy machine draws late.
  async function watch(name: string, pattern: RegExp, timeoutMs = 120_000): Promise<Watched> {
    const end = Date.now() + timeoutMs;
    const events = paneOutput(socket, name);
    const seen: string[] = [];
    try {
      for (;;) {
        events.clear();
        const text = screen(name);
        seen.push(text);
        if (pattern.test(text)) return { seen, last: text, output: events.output() };
        if (Date.now() > end) throw new Error(`timed out waiting for ${pattern}; screen:\n${text}`);
        await events.next(Math.min(1_000, Math.max(0, end - Date.now())));
      }
    } finally {
      events.close();
    }
  }
  return {
    tmux,
    screen,
    start(name, args, { width, height, env, bin = RSI_BIN, stdoutTo }) {
      const envArgs = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
      const redirect = stdoutTo === undefined ? '' : ` > ${sh(stdoutTo)}`;
      const command = `${sh(process.execPath)} ${sh(bin)} ${args.map(sh).join(' ')}${redirect}; echo EXIT=$?; sleep 3600`;
      tmux('new-session', '-d', '-s', name, '-x', String(width), '-y', String(height), ...envArgs, command);
      // The shell idles after EXIT (killServer ends it) so a late read of a busy machine still finds the pane.
      return name;
    },
    async waitFor(name, pattern, timeoutMs) {
      return (await watch(name, pattern, timeoutMs)).last;
    },
    watch,
    killServer() {
      spawnSync('tmux', ['-L', socket, 'kill-server']);
    },
  };
}

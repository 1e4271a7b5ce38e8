/**
 * A private tmux server for terminal tests (its own socket, so a developer's sessions are never
 * touched; a clean environment, so no RSI_* or colour settings leak in), with the helpers every
 * such test needs: start `rsi …` in a window of a given size, read the screen, and poll for text.
 */
import { spawnSync } from 'node:child_process';
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
  /** Polls the pane until `pattern` shows (no fixed sleeps). */
  waitFor(name: string, pattern: RegExp, timeoutMs?: number): Promise<string>;
  killServer(): void;
}

export function privateTmux(label: string): PrivateTmux {
  const socket = `rsi-${label}-${process.pid}`;
  const tmux = (...args: string[]): string => {
    const r = spawnSync('tmux', ['-L', socket, ...args], { encoding: 'utf8', env: cleanEnv({ TERM: 'xterm-256color' }) });
    if (r.status !== 0) throw new Error(`tmux ${args[0]}: ${r.stderr}`);
    return r.stdout;
  };
  const screen = (name: string): string => tmux('capture-pane', '-p', '-t', name);
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
    // An outer bound for a screen that never comes, not a speed limit: a busy machine draws late.
    async waitFor(name, pattern, timeoutMs = 120_000) {
      const end = Date.now() + timeoutMs;
      for (;;) {
        const text = screen(name);
        if (pattern.test(text)) return text;
        if (Date.now() > end) throw new Error(`timed out waiting for ${pattern}; screen:\n${text}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    killServer() {
      spawnSync('tmux', ['-L', socket, 'kill-server']);
    },
  };
}

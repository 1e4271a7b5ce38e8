import type { ServeDeps, SignIns } from './deps.js';

/** How often a serving rsi reads the sign-ins again, besides before every tool call. */
export const SIGN_IN_POLL_MS = 5000;

/**
 * Reads the sign-ins again (before a call, and every few seconds while serving) and reports a
 * change. Reads never overlap; a read that fails leaves the list as it is.
 */
export class SignInWatch {
  onChange: ((now: SignIns) => void) | undefined;
  /** The sign-ins as last read. */
  current: SignIns | undefined;
  private last: string | undefined;
  private failure: string | undefined;
  private pending: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  constructor(private readonly deps: Pick<ServeDeps, 'signIns' | 'log'>) {}

  sync(): Promise<void> {
    this.pending ??= (async () => {
      try {
        const now = await this.deps.signIns();
        this.current = now;
        this.failure = undefined;
        const key = JSON.stringify([now.api ? (now.api.scopes ?? null) : false, now.mcp ? (now.mcp.scopes ?? null) : false]);
        if (key !== this.last) {
          this.last = key;
          this.onChange?.(now);
        }
      } catch (error) {
        // Said once per new reason, not every few seconds.
        const line = `rsi mcp serve: could not read the sign-ins: ${error instanceof Error ? error.message : String(error)}`;
        if (line !== this.failure) this.deps.log?.(line);
        this.failure = line;
      } finally {
        this.pending = undefined;
      }
    })();
    return this.pending;
  }

  start(ms: number): void {
    this.stop();
    // The poll must not keep the process alive after the client went away.
    this.timer = setInterval(() => void this.sync(), ms);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}

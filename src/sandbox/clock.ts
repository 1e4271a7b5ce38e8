/**
 * The sandbox's two clocks: real time for OAuth lifetimes (codes, tokens), and a scaled clock for
 * scans and analyses, so `--time-scale 100` makes a 30-second scan take 0.3 s without shortening
 * tokens (use `--token-ttl` for that).
 */
export class SandboxClock {
  private readonly startReal = Date.now();

  constructor(readonly scale: number) {}

  /** Real milliseconds since the epoch. */
  real(): number {
    return Date.now();
  }

  /** Sandbox milliseconds: real time at start-up, then running `scale` times faster. */
  now(): number {
    return this.startReal + (Date.now() - this.startReal) * this.scale;
  }

  /** The scaled clock's reading as an ISO timestamp. */
  iso(ms = this.now()): string {
    return new Date(ms).toISOString();
  }
}

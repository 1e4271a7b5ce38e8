/**
 * The sandbox's two clocks: real time for OAuth lifetimes (codes, tokens), and a scaled clock for
 * scans and analyses, so `--time-scale 100` makes a 30-second scan take 0.3 s without shortening
 * tokens (use `--token-ttl` for that). `advance` jumps both forward (POST /__sandbox/advance), so
 * tests can check 60-second codes and 30-day refresh tokens without waiting.
 */
export class SandboxClock {
  private readonly startReal = Date.now();
  private offsetMs = 0;

  constructor(readonly scale: number) {}

  /** Real milliseconds since the epoch (plus any jump). */
  real(): number {
    return Date.now() + this.offsetMs;
  }

  /** Sandbox milliseconds: real time at start-up, then running `scale` times faster (plus any jump). */
  now(): number {
    return this.startReal + (Date.now() - this.startReal) * this.scale + this.offsetMs;
  }

  /** Moves both clocks forward by `seconds`. */
  advance(seconds: number): void {
    this.offsetMs += seconds * 1000;
  }

  /**
   * A scaled-clock moment as the timestamp clients see. Under `--time-scale` the scaled clock runs
   * ahead of the wall clock, and a project created a minute ago would read "in 17 min" to anyone
   * comparing with their own clock: moments after start-up are mapped back onto the wall clock
   * (durations shrink by the scale), so no timestamp is ever in the future. The seed's moments,
   * before start-up, are shown as they are.
   */
  iso(ms = this.now()): string {
    if (ms <= this.startReal) return new Date(ms).toISOString();
    const wall = this.startReal + (ms - this.startReal - this.offsetMs) / this.scale + this.offsetMs;
    return new Date(Math.min(Math.max(wall, this.startReal), this.real())).toISOString();
  }
}

import type { Io } from './io.js';

/**
 * Progress on stderr. On a terminal it is one live line (a spinner and a text, redrawn in place);
 * elsewhere (a pipe, a log file, CI) it prints a line only when the text changes, so a log shows
 * each step once instead of one line per poll.
 */
export interface Progress {
  /** Sets the live text. On a terminal it replaces the line; otherwise it prints it if it changed. */
  update(text: string): void;
  /** Prints a permanent line (above the live line on a terminal). */
  log(line: string): void;
  /** Removes the live line and stops the spinner. Safe to call twice. */
  stop(): void;
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export interface ProgressOptions {
  /** Spinner frame interval; 0 draws only on update (tests). Default 80 ms. */
  frameMs?: number;
  /** Extra text after the live line on a terminal, recomputed on every frame (e.g. elapsed time). */
  suffix?: () => string;
}

export function createProgress(io: Io, options: ProgressOptions = {}): Progress {
  return io.stderrIsTTY ? new LiveLine(io, options) : new PlainLines(io);
}

class PlainLines implements Progress {
  private last: string | undefined;
  constructor(private readonly io: Io) {}

  update(text: string): void {
    if (text === this.last) return;
    this.last = text;
    this.io.stderr.write(`${text}\n`);
  }

  log(line: string): void {
    this.io.stderr.write(`${line}\n`);
  }

  stop(): void {}
}

class LiveLine implements Progress {
  private text = '';
  private frame = 0;
  private drawn = false;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly io: Io,
    private readonly options: ProgressOptions,
  ) {}

  update(text: string): void {
    if (this.stopped) return;
    this.text = text;
    this.draw();
    const frameMs = this.options.frameMs ?? 80;
    if (this.timer === undefined && frameMs > 0) {
      this.timer = setInterval(() => {
        this.frame = (this.frame + 1) % FRAMES.length;
        this.draw();
      }, frameMs);
      // The spinner must never keep the process alive on its own.
      this.timer.unref();
    }
  }

  log(line: string): void {
    this.clear();
    this.io.stderr.write(`${line}\n`);
    if (!this.stopped && this.text !== '') this.draw();
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    this.clear();
    this.stopped = true;
  }

  private draw(): void {
    const spinner = FRAMES[this.frame]!;
    const suffix = this.options.suffix?.() ?? '';
    // Never wider than the terminal: a wrapped line cannot be redrawn with \r.
    const width = Math.max(10, this.io.columns - 1);
    const plain = truncate(`${spinner} ${this.text}${suffix}`, width);
    const line = this.io.colorStderr ? `\x1b[36m${spinner}\x1b[39m${plain.slice(spinner.length)}` : plain;
    this.io.stderr.write(`\r\x1b[2K${line}`);
    this.drawn = true;
  }

  private clear(): void {
    if (!this.drawn) return;
    this.io.stderr.write('\r\x1b[2K');
    this.drawn = false;
  }
}

function truncate(text: string, width: number): string {
  const chars = [...text];
  return chars.length <= width ? text : `${chars.slice(0, width - 1).join('')}…`;
}

import type { Writable } from 'node:stream';
import type { Io } from './io.js';
import { paint } from './colors.js';
import { sanitizeLine, sanitizeText, truncate } from './sanitize.js';

/**
 * Progress on stderr. On a terminal it is one live line (a spinner and a text, redrawn in place);
 * elsewhere (a pipe, a log file, CI) it prints a line only when the text changes, so a log shows
 * each step once instead of one line per poll. Every text is sanitised: it may carry a server's
 * summary or error message, and the live line is drawn on the raw terminal stream.
 */
export interface Progress {
  /**
   * Sets the live text. On a terminal it replaces the line; otherwise it prints it if it changed.
   * `tail` (a server's summary) comes after the suffix on a terminal, so truncation cuts it first.
   */
  update(text: string, tail?: string): void;
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
  /** Ctrl-C: the live line is wiped at once, so the shell prompt (or `rsi: interrupted`) starts clean. */
  signal?: AbortSignal;
}

export function createProgress(io: Io, options: ProgressOptions = {}): Progress {
  return io.stderrIsTTY ? new LiveLine(io, options) : new PlainLines(io);
}

class PlainLines implements Progress {
  private last: string | undefined;
  constructor(private readonly io: Io) {}

  update(text: string, tail?: string): void {
    const line = tail ? `${text} · ${tail}` : text;
    if (line === this.last) return;
    this.last = line;
    this.io.stderr.write(`${sanitizeLine(line)}\n`);
  }

  log(line: string): void {
    this.io.stderr.write(`${sanitizeText(line)}\n`);
  }

  stop(): void {}
}

class LiveLine implements Progress {
  private text = '';
  private tail = '';
  private frame = 0;
  private drawn = false;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  private readonly out: Writable;

  constructor(
    private readonly io: Io,
    private readonly options: ProgressOptions,
  ) {
    this.out = io.stderrRaw ?? io.stderr;
    options.signal?.addEventListener('abort', () => this.stop(), { once: true });
  }

  update(text: string, tail?: string): void {
    if (this.stopped) return;
    // One line: a newline in the text would break the redraw with \r.
    this.text = sanitizeLine(text);
    this.tail = tail ? ` · ${sanitizeLine(tail)}` : '';
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
    this.out.write(`${sanitizeText(line)}\n`);
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
    const suffix = sanitizeLine(this.options.suffix?.() ?? '');
    // Never wider than the terminal: a wrapped line cannot be redrawn with \r.
    const width = Math.max(10, this.io.columns - 1);
    const plain = truncate(`${spinner} ${this.text}${suffix}${this.tail}`, width);
    const line = `${paint(this.io.colorStderr).cyan(spinner)}${plain.slice(spinner.length)}`;
    this.out.write(`\r\x1b[2K${line}`);
    this.drawn = true;
  }

  private clear(): void {
    if (!this.drawn) return;
    this.out.write('\r\x1b[2K');
    this.drawn = false;
  }
}

/**
 * Writing to a stream with its back-pressure respected: every printer writes through here, so
 * `--all` streams with flat memory, in batches (a few KiB at a time, and at least every 100 ms while
 * rows keep coming) rather than one write() per row.
 */
import type { Writable } from 'node:stream';

/** Writes and waits for the stream to drain, so streaming large outputs keeps memory flat. */
export async function write(stream: Writable, text: string): Promise<void> {
  // A reader that went away (a pager quit with `q`) leaves a destroyed stream: it will neither
  // drain nor fail again, so waiting on it would hang (on Node 22 and 24 the process then stops
  // with an unsettled top-level await). Treat it as the closed pipe it is.
  if (stream.destroyed) throw closedOutput(stream);
  if (!stream.write(text)) {
    await new Promise<void>((resolve, reject) => {
      const settle = (error?: Error): void => {
        stream.off('drain', drained);
        stream.off('error', settle);
        stream.off('close', closed);
        if (error) reject(error);
        else resolve();
      };
      const drained = (): void => settle();
      const closed = (): void => settle(closedOutput(stream));
      stream.once('drain', drained);
      stream.once('error', settle);
      stream.once('close', closed);
    });
  }
}

function closedOutput(stream: Writable): Error {
  return stream.errored ?? Object.assign(new Error('the output was closed'), { code: 'EPIPE' });
}

const BATCH_BYTES = 16 * 1024;
const BATCH_MS = 100;

/**
 * Collects text and writes it in batches: by size, by age, and at the end. Text never waits longer
 * than `BATCH_MS` for the next row to push it out: a timer writes it, so a slow source (a batch fed
 * by `tail -f`, a walk between pages) shows each row soon after it is ready.
 */
export class Batch {
  private text = '';
  private since = performance.now();
  private timer: NodeJS.Timeout | undefined;
  /** A write the timer started: the next add or flush waits for it (back-pressure, and its error). */
  private writing: Promise<void> | undefined;
  constructor(private readonly stream: Writable) {}

  async add(text: string): Promise<void> {
    if (this.writing) await this.settle();
    this.text += text;
    if (this.text.length >= BATCH_BYTES || performance.now() - this.since >= BATCH_MS) await this.flush();
    else this.timer ??= setTimeout(() => this.onTimer(), BATCH_MS).unref();
  }

  /**
   * `add` for a loop over rows: a promise only when there is something to wait for (a write to
   * finish, a batch to flush), else undefined, so that a row costs no promise and no turn of the
   * microtask queue (an `await` waits a turn even for undefined): `const w = out.push(t); if (w) await w`.
   */
  push(text: string): Promise<void> | undefined {
    if (this.writing || this.text.length + text.length >= BATCH_BYTES || performance.now() - this.since >= BATCH_MS) return this.add(text);
    this.text += text;
    this.timer ??= setTimeout(() => this.onTimer(), BATCH_MS).unref();
    return undefined;
  }

  async flush(): Promise<void> {
    this.stopTimer();
    if (this.writing) await this.settle();
    this.since = performance.now();
    if (this.text === '') return;
    const text = this.text;
    this.text = '';
    await write(this.stream, text);
  }

  private onTimer(): void {
    this.timer = undefined;
    if (this.writing || this.text === '') return;
    this.since = performance.now();
    const text = this.text;
    this.text = '';
    // Order is kept: write() hands the text to the stream at once; the wait is for its drain.
    this.writing = write(this.stream, text);
    // Observed by the next add or flush; never an unhandled rejection meanwhile.
    this.writing.catch(() => undefined);
  }

  private async settle(): Promise<void> {
    const writing = this.writing;
    try {
      await writing;
    } finally {
      if (this.writing === writing) this.writing = undefined;
    }
  }

  private stopTimer(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}

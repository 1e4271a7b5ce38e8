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

/** Collects text and writes it in batches: by size, by age, and at the end. */
export class Batch {
  private text = '';
  private since = performance.now();
  constructor(private readonly stream: Writable) {}

  async add(text: string): Promise<void> {
    this.text += text;
    if (this.text.length >= BATCH_BYTES || performance.now() - this.since >= BATCH_MS) await this.flush();
  }

  async flush(): Promise<void> {
    this.since = performance.now();
    if (this.text === '') return;
    const text = this.text;
    this.text = '';
    await write(this.stream, text);
  }
}

/**
 * A terminal whose locale is not UTF-8 (LC_ALL=C, a serial console) shows the pictures, spinner
 * and punctuation rsi draws as mojibake. There, what goes to the terminal passes through this
 * stream, which writes each such character as one ASCII character, so widths (and the tables
 * measured with them) stay as they were. Only text for a person is ever changed: main.ts uses it
 * when the stream is a terminal, never for piped data.
 */
import { Writable } from 'node:stream';

const SPINNER = ['|', '/', '-', '\\'];
const ASCII: Record<string, string> = {
  '✓': 'v',
  '✔': 'v',
  '✗': 'x',
  '✘': 'x',
  '·': '-',
  '•': '*',
  '…': '~',
  '—': '-',
  '–': '-',
  '→': '>',
  '←': '<',
  '↑': '^',
  '↓': 'v',
  '⏎': '<',
  '❯': '>',
  '›': '>',
  '◯': 'o',
  '◉': '*',
  '●': '*',
  '○': 'o',
  '“': '"',
  '”': '"',
  '‘': "'",
  '’': "'",
  '█': '#',
  '▓': 'x',
  '▒': ':',
  '░': '.',
  '▕': '[',
  '▏': ']',
  '▉': '#',
  '▊': '#',
  '▋': '#',
  '▌': '#',
  '▍': '#',
  '▎': '#',
};
// The spinner's braille frames turn as |/-\.
for (const [i, frame] of ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'].entries()) ASCII[frame] = SPINNER[i % SPINNER.length]!;

const PATTERN = new RegExp(
  `[${Object.keys(ASCII)
    .join('')
    .replace(/[\\\]^-]/g, '\\$&')}]`,
  'g',
);

export function toAscii(text: string): string {
  return text.replace(PATTERN, (c) => ASCII[c] ?? c);
}

export function asciiStream(target: Writable): Writable {
  return new AsciiStream(target);
}

type Listener = (...args: any[]) => void;
const DELEGATED = new Set<string | symbol>(['drain', 'error', 'close', 'finish']);

/**
 * Writes straight through to the terminal's stream, as sanitize.ts's stream does: no buffer of its
 * own, its events are the terminal's, and `end()` (prompt libraries end their output when a
 * prompt closes) leaves the terminal open for whatever comes next.
 */
class AsciiStream extends Writable {
  constructor(private readonly target: Writable) {
    super();
  }

  override write(chunk: unknown, encoding?: unknown, cb?: unknown): boolean {
    const text = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk);
    const callback = typeof encoding === 'function' ? encoding : cb;
    return this.target.write(toAscii(text), callback as (error?: Error | null) => void);
  }

  override end(...args: unknown[]): this {
    const callback = args.find((a) => typeof a === 'function') as (() => void) | undefined;
    const chunk = typeof args[0] === 'function' ? undefined : args[0];
    if (chunk !== undefined && chunk !== null) this.write(chunk);
    if (callback) queueMicrotask(callback);
    return this;
  }

  override on(event: string | symbol, listener: Listener): this {
    if (DELEGATED.has(event)) this.target.on(event, listener);
    else super.on(event, listener);
    return this;
  }

  override once(event: string | symbol, listener: Listener): this {
    if (DELEGATED.has(event)) this.target.once(event, listener);
    else super.once(event, listener);
    return this;
  }

  override off(event: string | symbol, listener: Listener): this {
    if (DELEGATED.has(event)) this.target.off(event, listener);
    else super.off(event, listener);
    return this;
  }

  override removeListener(event: string | symbol, listener: Listener): this {
    return this.off(event, listener);
  }
}

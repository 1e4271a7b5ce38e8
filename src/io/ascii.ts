/**
 * A terminal whose locale is not UTF-8 (LC_ALL=C, a serial console) shows the pictures, spinner
 * and punctuation rsi draws as mojibake. There, what goes to the terminal passes through this
 * stream, which writes each such character as one ASCII character, so widths (and the tables
 * measured with them) stay as they were. Only text for a person is ever changed: main.ts uses it
 * when the stream is a terminal, never for piped data.
 */
import type { Writable } from 'node:stream';
import { mappedStream } from './mapped-stream.js';

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

/**
 * Writes straight through to the terminal's stream, as sanitize.ts's stream does; `end()` (prompt
 * libraries end their output when a prompt closes) leaves the terminal open for whatever comes next.
 */
export function asciiStream(target: Writable): Writable {
  return mappedStream(target, toAscii, { endLeavesTargetOpen: true });
}

// A terminal whose locale is not UTF-8 gets ASCII for rsi's pictures, spinner and punctuation, one
// character for one, so table widths hold; the stream never ends the terminal it writes to.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { asciiStream, toAscii } from '../../src/io/ascii.js';

describe('toAscii', () => {
  it('writes each picture, spinner frame and punctuation mark as one ASCII character', () => {
    expect(toAscii('✓ Started 2 · ids b1785f36… ▕███▓░▏ ⠋ ❯ ◯ ✔')).toBe('v Started 2 - ids b1785f36~ [###x.] | > o v');
    expect(toAscii('Zürich – Straße')).toBe('Zürich - Straße');
    for (const s of ['⠋', '⠙', '⠹', '⠸']) expect(toAscii(s)).toMatch(/^[|/\\-]$/);
  });

  it('forwards writes, and end() leaves the terminal stream open', async () => {
    const target = new PassThrough();
    let text = '';
    target.on('data', (c) => (text += c));
    const stream = asciiStream(target);
    stream.write('✓ one\n');
    await new Promise<void>((r) => stream.end(() => r()));
    stream.write('… two\n');
    expect(text).toBe('v one\n~ two\n');
    expect(target.writableEnded).toBe(false);
  });
});

// Headless sign-in reads the redirected address pasted on stdin: a 300 MB line is dropped as it
// arrives (one line says so), memory stays that of a chunk, and the next line is read as usual.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { MAX_PASTED_LINE, stdinLines } from '../../src/commands/login/login.js';
import { fakeIo } from '../support/fakes.js';

describe('pasted lines', () => {
  it('drops a 300 MB line without keeping it, then reads the next line', async () => {
    const io = fakeIo(false);
    const stdin = new PassThrough();
    const paste = await stdinLines({ io: { ...io, stdin } });
    paste.activate();
    // Reading starts with the first ask for a line, as the sign-in does at once.
    const pending = paste.lines[Symbol.asyncIterator]().next();
    const before = process.memoryUsage().heapUsed;
    const chunk = Buffer.alloc(64 * 1024, 'a');
    // 300 MB in 64 KiB chunks, each written when the stream has room (the reader keeps up).
    for (let sent = 0; sent < 300 * 1024 * 1024; sent += chunk.length) {
      if (!stdin.write(chunk)) await new Promise((resolve) => stdin.once('drain', resolve));
    }
    const grown = process.memoryUsage().heapUsed - before;
    stdin.write('\nhttp://127.0.0.1:8765/callback?code=c&state=s\n');
    const next = await pending;
    expect(next.value).toBe('http://127.0.0.1:8765/callback?code=c&state=s');
    expect(io.err()).toBe(`That line is longer than any sign-in address (over ${MAX_PASTED_LINE / 1024} KiB); it was ignored.\n`);
    // The line itself (300 MB) was never held: what grew is a few chunks' garbage at most.
    expect(grown).toBeLessThan(100 * 1024 * 1024);
    paste.close();
  });

  it('keeps lines split across chunks and a last line without a newline', async () => {
    const io = fakeIo(false);
    const stdin = new PassThrough();
    const paste = await stdinLines({ io: { ...io, stdin } });
    paste.activate();
    stdin.write('http://a.test/x?co');
    stdin.write('de=1\r\nsecond');
    stdin.end();
    const lines: string[] = [];
    for await (const line of paste.lines) lines.push(line);
    expect(lines).toEqual(['http://a.test/x?code=1', 'second']);
  });
});

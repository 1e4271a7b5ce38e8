// Which pager: RSI_PAGER, then the `pager` setting, then PAGER, then `less -FRX` when installed;
// empty or `cat` is none. And the lazy pager: nothing starts until the first byte of output.
import { mkdtempSync, readFileSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { choosePager, lazyPager } from '../../src/io/pager.js';

describe('choosePager', () => {
  const bin = mkdtempSync(join(tmpdir(), 'rsi-pager-bin-'));
  writeFileSync(join(bin, 'less'), '#!/bin/sh\n');
  chmodSync(join(bin, 'less'), 0o755);
  const withLess = { PATH: bin };

  it('takes RSI_PAGER, then the setting, then PAGER, then less -FRX', () => {
    expect(choosePager({ ...withLess, RSI_PAGER: 'more', PAGER: 'most' }, 'bat')).toBe('more');
    expect(choosePager({ ...withLess, PAGER: 'most' }, 'bat')).toBe('bat');
    expect(choosePager({ ...withLess, PAGER: 'most' }, undefined)).toBe('most');
    expect(choosePager(withLess, undefined)).toBe('less -FRX');
  });

  it('none: no less installed, an empty value, or cat', () => {
    expect(choosePager({ PATH: '/nonexistent' }, undefined)).toBeUndefined();
    expect(choosePager({ ...withLess, RSI_PAGER: '' }, undefined)).toBeUndefined();
    expect(choosePager({ ...withLess, PAGER: 'cat' }, undefined)).toBeUndefined();
    expect(choosePager(withLess, 'cat')).toBeUndefined();
    rmSync(bin, { recursive: true, force: true });
  });
});

describe('lazyPager', () => {
  it('starts the command on the first write, feeds it, and waits for it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rsi-pager-'));
    const out = join(dir, 'out');
    const pager = lazyPager(`cat > ${out}`, { PATH: process.env.PATH }, new PassThrough(), new PassThrough(), [1, 2]);
    expect(pager.active()).toBe(false);
    await new Promise<void>((r) => pager.stream.write('row 1\n', () => r()));
    expect(pager.active()).toBe(true);
    await new Promise<void>((r) => pager.stream.write('row 2\n', () => r()));
    await pager.finish();
    expect(readFileSync(out, 'utf8')).toBe('row 1\nrow 2\n');
    rmSync(dir, { recursive: true, force: true });
  });

  it('a pager that has gone makes the first failing write fail with EPIPE (main: exit 0)', async () => {
    const pager = lazyPager('true', { PATH: process.env.PATH }, new PassThrough(), new PassThrough(), [1, 2]);
    const write = (text: string) => new Promise<NodeJS.ErrnoException | null | undefined>((r) => pager.stream.write(text, (e) => r(e)));
    // The first write may already find the pager gone; polled, not slept, until it has.
    const errors = [await write('x\n')];
    while (pager.active()) await new Promise((r) => setTimeout(r, 10));
    errors.push(await write('y\n'));
    expect(errors.find(Boolean)?.code).toBe('EPIPE');
    await pager.finish();
  });

  // Through the shell a missing pager was `sh: not found` (exit 127) and the whole table was lost,
  // exit 0; a plain command line is started directly, so "cannot start" is seen and printed past.
  it('a pager that is not installed is skipped with a note: the output is printed directly', async () => {
    const fallback = new PassThrough();
    const notes = new PassThrough();
    const pager = lazyPager('no-such-pager-rsi -R', { PATH: process.env.PATH }, fallback, notes, [1, 2]);
    await new Promise<void>((r) => pager.stream.write('row 1\n', () => r()));
    await new Promise<void>((r) => pager.stream.write('row 2\n', () => r()));
    await pager.finish();
    expect(readAll(fallback)).toBe('row 1\nrow 2\n');
    expect(readAll(notes)).toBe('note: could not start the pager "no-such-pager-rsi -R" (ENOENT); printing directly\n');
  });
});

/** Everything buffered in a stream: Node 26's read() hands back one written chunk at a time. */
function readAll(stream: PassThrough): string {
  let text = '';
  for (let chunk = stream.read(); chunk !== null; chunk = stream.read()) text += String(chunk);
  return text;
}

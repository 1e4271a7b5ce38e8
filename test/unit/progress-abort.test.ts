// Ctrl-C while the live line spins: the line is wiped at once, so `rsi: interrupted` and the shell
// prompt start on a clean line.
import { describe, expect, it } from 'vitest';
import { createProgress } from '../../src/io/progress.js';
import { fakeIo } from '../support/fakes.js';

describe('the live line on Ctrl-C', () => {
  it('is cleared when the signal aborts, and stays cleared', () => {
    const io = fakeIo({ tty: true, columns: 80 });
    const abort = new AbortController();
    const progress = createProgress(io, { frameMs: 0, signal: abort.signal });
    progress.update('Scoring: 2/5 analyses done');
    expect(io.err()).toContain('Scoring: 2/5');
    abort.abort();
    expect(io.err().endsWith('\r\x1b[2K')).toBe(true);
    progress.update('Scoring: 3/5 analyses done');
    expect(io.err()).not.toContain('3/5');
  });
});

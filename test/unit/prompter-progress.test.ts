import { describe, expect, it } from 'vitest';
import type { PassThrough } from 'node:stream';
import { createPrompter } from '../../src/io/prompter.js';
import { ScriptedPrompter } from '../support/prompter.js';
import { createProgress } from '../../src/io/progress.js';
import { ConfirmationRequiredError } from '../../src/errors.js';
import { fakeIo } from '../support/fakes.js';

describe('ScriptedPrompter', () => {
  it('answers the scripted questions in order', async () => {
    const p = new ScriptedPrompter([
      { question: /^Run 5 analyses/, answer: true },
      { question: 'Again?', answer: false },
    ]);
    expect(await p.confirm('Run 5 analyses for "P"?')).toBe(true);
    expect(await p.confirm('Again?')).toBe(false);
    p.assertDone();
    expect(p.asked).toHaveLength(2);
  });

  it('fails on a question it was not told to expect', async () => {
    await expect(new ScriptedPrompter().confirm('Delete everything?')).rejects.toThrow(/unexpected question/);
    await expect(new ScriptedPrompter([{ question: 'A?', answer: true }]).confirm('B?')).rejects.toThrow(/expected A\?/);
  });

  it('fails when a scripted question was never asked', () => {
    expect(() => new ScriptedPrompter([{ question: 'A?', answer: true }]).assertDone()).toThrow(/never asked/);
  });
});

describe('createPrompter', () => {
  it('refuses to ask when nobody can answer', async () => {
    await expect(createPrompter(fakeIo({ columns: 80 })).confirm('Run?')).rejects.toBeInstanceOf(ConfirmationRequiredError);
  });

  it('renders the question on stderr and reads the answer from stdin', async () => {
    const io = fakeIo({ tty: true, columns: 80 });
    const answer = createPrompter(io).confirm('Run 3 analyses?');
    // inquirer loads lazily; answer once the question is on screen (an outer bound of 120 s: a busy
    // machine loads it late).
    const end = Date.now() + 120_000;
    while (!io.err().includes('Run 3 analyses?') && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
    (io.stdin as PassThrough).write('y\n');
    expect(await answer).toBe(true);
    expect(io.err()).toContain('Run 3 analyses?');
    expect(io.err()).toContain('y/N');
  });
});

describe('createProgress', () => {
  it('without a terminal prints each distinct text once', () => {
    const io = fakeIo({ columns: 80 });
    const p = createProgress(io);
    p.update('a');
    p.update('a');
    p.update('b');
    p.log('note');
    p.stop();
    expect(io.err()).toBe('a\nb\nnote\n');
  });

  it('on a terminal redraws in place, keeps log lines, and fits the width', () => {
    const io = fakeIo({ tty: true, columns: 20 });
    const p = createProgress(io, { frameMs: 0 });
    p.update('first');
    p.log('kept line');
    p.update('a text far too long for twenty columns');
    p.stop();
    p.update('after stop is ignored');
    const err = io.err();
    expect(err).toContain('\r\x1b[2K⠋ first');
    expect(err).toContain('\r\x1b[2Kkept line\n');
    expect(err).toContain('⠋ a text far too l…');
    expect(err).not.toContain('after stop');
    expect(err.endsWith('\r\x1b[2K')).toBe(true);
  });

  it('spins on a timer that does not keep the process alive', async () => {
    // A ref'd timer shows up among the resources keeping the event loop alive; an unref'd one does not.
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const io = fakeIo({ tty: true, columns: 80 });
    const before = timers();
    const p = createProgress(io, { frameMs: 5 });
    p.update('working');
    expect(timers()).toBe(before);
    // The timer's next frame is the event waited for (bounded at 120 s), not a fixed pause.
    const end = Date.now() + 120_000;
    while (!io.err().includes('⠙ working') && Date.now() < end) await new Promise((r) => setTimeout(r, 5));
    p.stop();
    expect(io.err()).toContain('⠙ working');
  });
});

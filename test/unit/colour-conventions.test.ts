// Colour by the conventions people set: NO_COLOR only when non-empty, FORCE_COLOR and CLICOLOR_FORCE
// colour a pipe, CLICOLOR=0 turns it off; JSON at a terminal coloured as gh does, never in a pipe.
import { describe, expect, it } from 'vitest';
import { makeOutput } from '../../src/io/formats.js';
import { colourJson, colourWanted, paint } from '../../src/io/colors.js';
import { printJson } from '../../src/io/output.js';
import { fakeIo } from '../support/fakes.js';

describe('colourWanted', () => {
  it.each([
    [{}, false, true, true],
    [{}, false, false, false],
    [{}, true, true, false],
    [{ NO_COLOR: '1' }, false, true, false],
    // An empty NO_COLOR= is not set (no-color.org).
    [{ NO_COLOR: '' }, false, true, true],
    [{ FORCE_COLOR: '1' }, false, false, true],
    [{ FORCE_COLOR: '' }, false, false, true],
    [{ FORCE_COLOR: '0' }, false, true, false],
    [{ FORCE_COLOR: 'false' }, false, true, false],
    [{ FORCE_COLOR: '1', NO_COLOR: '1' }, false, true, false],
    [{ FORCE_COLOR: '1' }, true, false, false],
    [{ CLICOLOR_FORCE: '1' }, false, false, true],
    [{ CLICOLOR_FORCE: '0' }, false, false, false],
    [{ CLICOLOR: '0' }, false, true, false],
    [{ CLICOLOR: '0', CLICOLOR_FORCE: '1' }, false, true, true],
    [{ CLICOLOR: '1' }, false, false, false],
    [{ TERM: 'dumb' }, false, true, false],
    [{ TERM: 'dumb', FORCE_COLOR: '1' }, false, true, true],
  ] as const)('%j, --no-color %s, TTY %s → %s', (env, flag, tty, expected) => {
    expect(colourWanted(env, flag, tty)).toBe(expected);
  });
});

describe('JSON at a terminal', () => {
  const doc = { name: 'EGFR "x"', n: 12, ok: true, no: false, none: null, list: [1, 'a'] };
  const plain = JSON.stringify(doc, null, 2);

  it("is indented and coloured as gh's (keys bold blue, strings green, booleans yellow, null cyan)", async () => {
    const io = fakeIo({ tty: true, color: true });
    await printJson(makeOutput(io, { format: 'json' }), doc);
    const c = paint(true);
    expect(io.out()).toContain(`${c.bold.blue('"name"')}${c.bold(':')} ${c.green('"EGFR \\"x\\""')}`);
    expect(io.out()).toContain(c.yellow('true'));
    expect(io.out()).toContain(c.cyan('null'));
    // Without the colours, the same characters.
    expect(io.out().replace(/\u001b\[[0-9;]*m/g, '')).toBe(`${plain}\n`);
  });

  it('is plain with colour off, and compact and plain in a pipe even when colour is forced', async () => {
    const off = fakeIo({ tty: true, color: false });
    await printJson(makeOutput(off, { format: 'json' }), doc);
    expect(off.out()).toBe(`${plain}\n`);
    const pipe = { ...fakeIo({ tty: false }), color: true };
    await printJson(makeOutput(pipe, { format: 'json' }), doc);
    expect(pipe.out()).toBe(`${JSON.stringify(doc)}\n`);
  });

  it('colours tokens, never characters inside strings', () => {
    const text = JSON.stringify({ 'a:b': 'true, null [x]' }, null, 2);
    expect(colourJson(text, paint(true)).replace(/\u001b\[[0-9;]*m/g, '')).toBe(text);
    expect(colourJson(text, paint(true))).toContain(paint(true).green('"true, null [x]"'));
  });
});

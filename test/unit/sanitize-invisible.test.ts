// Issue 20, items 1 and 2: invisible and deceptive characters are shown in every human text,
// width comes from string-width (grapheme-aware), a combining-mark flood is cut, and a text body
// from the service reaches a terminal sanitised but a pipe exact.
import { describe, expect, it } from 'vitest';
import { printServiceText } from '../../src/io/output.js';
import { formatTable } from '../../src/io/table.js';
import { tableField } from '../../src/io/cells.js';
import { createProgress } from '../../src/io/progress.js';
import { displayUnits, displayWidth, sanitizeCell, sanitizeLine, sanitizeText, truncate } from '../../src/io/sanitize.js';
import { fakeIo } from '../support/fakes.js';

const INVISIBLE: Array<[string, string]> = [
  ['\u200b', '\\u200b'],
  ['\u200c', '\\u200c'],
  ['\u200d', '\\u200d'],
  ['\u2060', '\\u2060'],
  ['\ufeff', '\\ufeff'],
  ['\u00ad', '\\xad'],
  ['\u180e', '\\u180e'],
  ['\u034f', '\\u034f'],
  ['\u2064', '\\u2064'],
  ['\u3164', '\\u3164'],
  ['\u{e0001}', '\\u{e0001}'],
  ['\u{e0067}', '\\u{e0067}'],
  ['\u{e007f}', '\\u{e007f}'],
];

describe('invisible format characters', () => {
  it.each(INVISIBLE)('shows %j visibly in a line, a text and a table cell', (ch, shown) => {
    expect(sanitizeLine(`Alpha${ch}`)).toBe(`Alpha${shown}`);
    expect(sanitizeText(`a${ch}\nb`)).toBe(`a${shown}\nb`);
    expect(tableField(`Alpha${ch}`)).toBe(`Alpha${shown}`);
  });

  it('two project names that differ only by a zero-width space look different in a table', () => {
    const io = fakeIo({ tty: true, columns: 80 });
    const text = formatTable(io, [{ header: 'NAME' }], [['Alpha'], ['Alpha\u200b']]);
    const [, a, b] = text.split('\n');
    expect(a!.trim()).toBe('Alpha');
    expect(b!.trim()).toBe('Alpha\\u200b');
  });

  it('keeps the joiner inside an emoji sequence, so a family draws as one picture', () => {
    const family = '👨\u200d👩\u200d👧';
    expect(sanitizeLine(family)).toBe(family);
    expect(sanitizeLine('👩🏽\u200d💻')).toBe('👩🏽\u200d💻');
    expect(sanitizeLine('a\u200d👩')).toBe('a\\u200d👩');
  });
});

describe('display width (string-width)', () => {
  it('takes the fast path only where string-width agrees: ASCII and the "…" of a cut', async () => {
    const { default: stringWidth } = await import('string-width');
    for (const text of ['', 'EGFR', '71e99bab…', '…', 'Competitive landscape of KR…', 'a…b…c']) {
      expect(displayWidth(text), text).toBe(stringWidth(text));
    }
  });

  it('measures emoji, ZWJ families, CJK and combining marks right', () => {
    expect(displayWidth('🚀')).toBe(2);
    expect(displayWidth('👨\u200d👩\u200d👧')).toBe(2);
    expect(displayWidth('漢字')).toBe(4);
    expect(displayWidth('e\u0301')).toBe(1);
    expect(displayWidth('\\u200b')).toBe(6);
  });

  it('cuts a flood of combining marks to four on one letter', () => {
    const flood = `Z${'\u0301'.repeat(2000)}x`;
    const shown = sanitizeLine(flood);
    expect(shown).toBe(`Z${'\u0301'.repeat(4)}x`);
    expect(sanitizeText(flood).length).toBe(6);
  });

  it('truncates by grapheme: never inside a family, an accented letter or an escape', () => {
    const family = '👨\u200d👩\u200d👧';
    expect(displayUnits(`a${family}b`)).toEqual(['a', family, 'b']);
    expect(truncate(`🚀🚀🚀🚀`, 5)).toBe('🚀🚀…');
    expect(truncate(`${family}${family}${family}`, 4)).toBe(`${family}…`);
    expect(truncate(`e\u0301e\u0301e\u0301`, 3)).toBe('e\u0301e\u0301e\u0301');
    expect(truncate(`e\u0301e\u0301e\u0301e\u0301`, 3)).toBe('e\u0301e\u0301…');
    expect(truncate('ab\\u200bcd', 5)).toBe('ab…');
  });

  it('aligns a table holding emoji and families', () => {
    const io = fakeIo({ tty: true, columns: 80 });
    const text = formatTable(
      io,
      [{ header: 'NAME' }, { header: 'N' }],
      [
        ['🚀 rocket', 1],
        ['👨\u200d👩\u200d👧 fam', 2],
        ['plain', 3],
      ],
    );
    const ends = text
      .trimEnd()
      .split('\n')
      .slice(1)
      .map((l) => displayWidth(l));
    expect(new Set(ends).size).toBe(1);
  });
});

describe('the live progress line', () => {
  it.each([
    ['emoji', `🚀${'🚀'.repeat(30)}`],
    ['families', '👨\u200d👩\u200d👧'.repeat(30)],
    ['a combining flood', `Z${'\u0301'.repeat(2000)}${'x'.repeat(40)}`],
    ['wide characters', '漢字'.repeat(30)],
  ])('with %s never draws wider than the terminal (a wrapped line cannot be redrawn)', (_what, name) => {
    const io = fakeIo({ tty: true, columns: 30 });
    const p = createProgress(io, { frameMs: 0 });
    p.update(`Watching ${name}`);
    p.stop();
    const drawn = io
      .err()
      .split('\r\x1b[2K')
      .filter((l) => l !== '');
    expect(drawn.length).toBeGreaterThan(0);
    for (const line of drawn) expect(displayWidth(line)).toBeLessThanOrEqual(29);
    expect(io.err().length).toBeLessThan(400);
  });
});

describe('printServiceText (rsi api text bodies, rsi mcp call text results)', () => {
  const hostile = 'ok\u001b]52;c;ZXZpbA==\u0007\u001b[2J\u001b]0;title\u0007\u009b31m\u200b\n';

  it('sanitises on a terminal', async () => {
    const io = fakeIo({ tty: true });
    await printServiceText(io, hostile);
    expect(io.out()).toBe('ok\\x1b]52;c;ZXZpbA==\\x07\\x1b[2J\\x1b]0;title\\x07\\x9b31m\\u200b\n');
  });

  it('is exact to a pipe', async () => {
    const io = fakeIo({ tty: false });
    await printServiceText(io, hostile);
    expect(io.out()).toBe(hostile);
  });
});

describe('visible text stays, invisible text shows (issue 41, item 5)', () => {
  const ENGLAND = '\u{1F3F4}\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}';
  const SCOTLAND = '\u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}';
  const WALES = '\u{1F3F4}\u{E0067}\u{E0062}\u{E0077}\u{E006C}\u{E0073}\u{E007F}';

  it('the flags of England, Scotland and Wales are kept whole, in a line and in a cell', () => {
    for (const flag of [ENGLAND, SCOTLAND, WALES]) {
      expect(sanitizeLine(`team ${flag}!`)).toBe(`team ${flag}!`);
      expect(sanitizeCell(flag, false)).toBe(flag);
    }
  });

  it('tag characters anywhere else are escaped: hidden words after a flag, a tag run of no RGI flag', () => {
    // A black flag with tags spelling something else (ASCII smuggling) shows every tag.
    expect(sanitizeLine('\u{1F3F4}\u{E0068}\u{E0069}\u{E007F}')).toBe('\u{1F3F4}\\u{e0068}\\u{e0069}\\u{e007f}');
    expect(sanitizeLine(`ok\u{E0041}\u{E0042}`)).toBe('ok\\u{e0041}\\u{e0042}');
    // A flag followed by more tags: the flag kept, the rest shown.
    expect(sanitizeLine(`${ENGLAND}\u{E0041}`)).toBe(`${ENGLAND}\\u{e0041}`);
  });

  it('the prepended concatenation marks (U+0600–U+0605, U+06DD, …) stay; other format characters are escaped', () => {
    for (const mark of ['\u0600', '\u0605', '\u06dd', '\u070f', '\u08e2', '\u{110bd}']) expect(sanitizeLine(`${mark}12`)).toBe(`${mark}12`);
    expect(sanitizeLine('a\u200bb\u2060c\ufeff')).toBe('a\\u200bb\\u2060c\\ufeff');
  });

  it('an unpaired surrogate shows as an escape instead of becoming U+FFFD; a pair is one character', () => {
    expect(sanitizeLine('x\ud800y')).toBe('x\\ud800y');
    expect(sanitizeCell('x\udfffy', false)).toBe('x\\udfffy');
    expect(sanitizeLine('\ud83d\ude00')).toBe('😀');
    // The escape is one unit: a cut never splits it.
    expect(displayUnits(sanitizeLine('\ud800ab'))).toEqual(['\\ud800', 'a', 'b']);
  });
});

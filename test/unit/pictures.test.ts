// Pictures: only in table output on a TTY, ASCII where block characters may not draw, bars that
// never push a table past the terminal.
import { describe, expect, it } from 'vitest';
import { bar, columnBarWidth, pictureStyle, progressBar, progressStyle, scoreBars, tableWidth, utf8Locale } from '../../src/io/pictures.js';
import { fakeIo } from '../support/fakes.js';

const UTF8 = { LANG: 'en_GB.UTF-8' };
const uni = { unicode: true, columns: 80 };
const ascii = { unicode: false, columns: 80 };

describe('when pictures are drawn', () => {
  it('only for table output on a TTY', () => {
    expect(pictureStyle(fakeIo({ tty: true }), 'table', UTF8)).toEqual({ unicode: true, columns: 100 });
    expect(pictureStyle(fakeIo({ tty: false }), 'table', UTF8)).toBeUndefined();
    for (const f of ['tsv', 'csv', 'json', 'ndjson'] as const) expect(pictureStyle(fakeIo({ tty: true }), f, UTF8)).toBeUndefined();
    expect(progressStyle(fakeIo({ tty: false }), UTF8)).toBeUndefined();
  });

  it('in ASCII under NO_COLOR or a locale that is not UTF-8 (LC_ALL, then LC_CTYPE, then LANG)', () => {
    expect(pictureStyle(fakeIo({ tty: true }), 'table', { ...UTF8, NO_COLOR: '1' })?.unicode).toBe(false);
    // no-color.org: set AND non-empty; an empty NO_COLOR= changes nothing.
    expect(pictureStyle(fakeIo({ tty: true }), 'table', { ...UTF8, NO_COLOR: '' })?.unicode).toBe(true);
    expect(progressStyle(fakeIo({ tty: true }), { ...UTF8, NO_COLOR: '' })?.unicode).toBe(true);
    expect(pictureStyle(fakeIo({ tty: true }), 'table', { LANG: 'C' })?.unicode).toBe(false);
    expect(pictureStyle(fakeIo({ tty: true }), 'table', {})?.unicode).toBe(false);
    expect(utf8Locale({ LC_ALL: 'C', LANG: 'en_US.UTF-8' })).toBe(false);
    expect(utf8Locale({ LC_CTYPE: 'de_DE.utf8', LANG: 'C' })).toBe(true);
  });
});

describe('bars', () => {
  it('draw eighths in Unicode and whole cells in ASCII, always the full width', () => {
    expect(bar(50, 100, 10, uni)).toBe('█████     ');
    expect(bar(55, 100, 10, uni)).toBe('█████▌    ');
    expect(bar(55, 100, 10, ascii)).toBe('######....');
    expect(bar(150, 100, 4, uni)).toBe('████');
    expect(bar(-1, 100, 4, ascii)).toBe('....');
    expect(bar(5, 0, 4, ascii)).toBe('....');
  });

  it('label scores and leave a missing one without a bar', () => {
    const lines = scoreBars(
      [
        { label: 'composite', value: 41.2, note: '(Moderate)' },
        { label: 'risk', value: undefined },
      ],
      { unicode: false, columns: 60 },
    );
    expect(lines[0]).toMatch(/^composite {2}#+\.+ {2}41\.2 \(Moderate\)$/);
    expect(lines[0]!.length).toBeLessThanOrEqual(60);
    expect(lines[1]).toBe('risk       —');
  });

  it('show analyses done, failed and open', () => {
    expect(progressBar({ done: 2, failed: 1, total: 4 }, { unicode: false, columns: 60 })).toBe('[####xx..]');
    expect(progressBar({ done: 4, failed: 0, total: 4 }, { unicode: true, columns: 60 })).toBe('▕████████▏');
    expect(progressBar({ done: 1, failed: 0, total: 4 }, ascii)).toBe(`[${'#'.repeat(5)}${'.'.repeat(15)}]`);
    expect(progressBar({ done: 0, failed: 0, total: 0 }, uni)).toBe('');
  });

  it('a bar column takes only the room a table leaves', () => {
    const rows = [{ name: 'Davabetinib', id: 'b1785f36-d987-55fb-96b0-26c754da06a9' }];
    const cols = [
      { header: 'NAME', value: (r: (typeof rows)[0]) => r.name },
      { header: 'ID', value: (r: (typeof rows)[0]) => r.id },
    ];
    expect(tableWidth(rows, cols)).toBe(11 + 2 + 36);
    expect(columnBarWidth({ unicode: true, columns: 120 }, 49)).toBe(15);
    expect(columnBarWidth({ unicode: true, columns: 56 }, 49)).toBe(0);
  });
});

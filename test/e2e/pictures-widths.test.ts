// The pictures (the keyword card's score bars, relations, opportunities, the scoreboard) and every
// table at 60, 80 and 120 columns, on a terminal that wide (main() in process, told its stdout and
// stderr are one terminal of that width): the golden files test/system/tmux-pictures.test.ts holds a
// real terminal to (it shows a sample; this is every one), in Unicode (a UTF-8 locale) and in ASCII
// (NO_COLOR, a C locale), and no table line wider than the terminal. RSI_UPDATE_GOLDEN=1 rewrites
// the golden files; docs/commands.md must show the 80-column ones.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { displayWidth } from '../../src/io/sanitize.js';
import { runCli } from '../support/inproc.js';
import {
  golden,
  goldenText,
  mayOverflow,
  normalise,
  PICTURES,
  type PicturesService,
  startPicturesService,
  TABLES,
  UTF8,
  WIDTHS,
} from '../support/pictures.js';

let service: PicturesService;

/** What a terminal of `width` columns shows of `rsi ARGS` (its colours are not characters). */
async function screen(args: string[], width: number, env: Record<string, string> = UTF8): Promise<string> {
  const r = await runCli(args, { terminal: { columns: width }, env: { ...service.fastEnv, ...env } });
  expect(r.code, `rsi ${args.join(' ')}: ${r.stderr}`).toBe(0);
  return stripVTControlCharacters(r.screen);
}

describe('pictures and tables on a terminal of 60, 80 and 120 columns', () => {
  beforeAll(async () => {
    service = await startPicturesService();
  });
  afterAll(async () => {
    await service?.stop();
  });

  for (const width of WIDTHS) {
    it(`keyword card, relations, opportunities and scoreboard at ${width} columns`, async () => {
      for (const [name, args] of Object.entries(PICTURES)) golden(`${name}-${width}.txt`, normalise(await screen(args, width)));
    });
  }

  // After the pictures: `analyses run` among the tables adds analyses, which the opportunities show.
  for (const width of WIDTHS) {
    it(`every table and list fits ${width} columns`, async () => {
      for (const args of TABLES) {
        const shown = await screen(args, width);
        expect(shown.trim(), `rsi ${args.join(' ')} at ${width}`).not.toBe('');
        for (const line of shown.split(/\r?\n|\r/)) {
          if (mayOverflow(line)) continue;
          expect(displayWidth(line.trimEnd()), `rsi ${args.join(' ')} at ${width}: ${line}`).toBeLessThanOrEqual(width);
        }
      }
    });
  }

  it('plain ASCII under NO_COLOR and in a C locale', async () => {
    golden('relations-80-no-color.txt', normalise(await screen(PICTURES.relations!, 80, { ...UTF8, NO_COLOR: '1' })));
    const card = normalise(await screen(PICTURES.card!, 80, { LANG: 'C' }));
    golden('card-80-c-locale.txt', card);
    expect(card).not.toMatch(/[█▏▎▍▌▋▊▉]/);
  });

  it('docs/commands.md shows the 80-column pictures', () => {
    const docs = readFileSync(new URL('../../docs/commands.md', import.meta.url), 'utf8');
    for (const name of Object.keys(PICTURES)) {
      expect(docs, `docs/commands.md shows ${name}-80.txt`).toContain(goldenText(`${name}-80.txt`).trimEnd());
    }
  });

  it('run in process on streams without a file descriptor, a table is not paged: it reaches the given stdout', async () => {
    // A pager is handed the terminal's descriptors (Io.fds); it would draw around these streams.
    const dir = mkdtempSync(join(tmpdir(), 'rsi-pager-'));
    try {
      const marker = join(dir, 'paged');
      const r = await runCli(['projects', 'list'], {
        terminal: { columns: 80 },
        env: { ...service.fastEnv, RSI_PAGER: `touch ${marker}; cat` },
      });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('KRAS inhibitors');
      expect(existsSync(marker)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an empty NO_COLOR changes nothing (no-color.org: set and non-empty)', async () => {
    expect(await screen(PICTURES.relations!, 80, { ...UTF8, NO_COLOR: '' })).toMatch(/[█▏▎▍▌▋▊▉]/);
  });
});

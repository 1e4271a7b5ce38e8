// The help cache (src/io/help-cache.ts): which requests it keeps, that a kept screen comes back
// byte for byte and only for the same build and width, that damage reads as a miss, and that its
// one assumption holds: a help screen depends on the words and the width, not on the environment.
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/main.js';
import { buildProgram } from '../../src/program.js';
import { buildKey, helpCacheEntry, helpRequestKey } from '../../src/io/help-cache.js';
import { fakeCtx, fakeIo } from '../support/fakes.js';

const work = mkdtempSync(join(tmpdir(), 'rsi-help-cache-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

let n = 0;
function fixture(entryText = 'export {} // build 1') {
  const dir = join(work, String(++n));
  const entry = join(work, `entry-${n}.js`);
  writeFileSync(entry, entryText);
  return { dir, entry };
}

describe('helpRequestKey', () => {
  it.each([
    [['--help'], '--help'],
    [['-h'], '-h'],
    [['keywords', 'search', '--help'], 'keywords+search+--help'],
    [['help'], 'help'],
    [['help', 'analyses', 'run'], 'help+analyses+run'],
  ])('keeps the plain request %j', (argv, key) => {
    expect(helpRequestKey(argv)).toBe(key);
  });

  it.each([
    [[]],
    [['keywords', 'search']],
    [['--profile', 'work', '--help']],
    [['keywords', 'search', '--json', '--help']],
    [['keywords', 'search', 'EGFR', '--help']],
    [['keywords', '--help', 'search']],
    [['help', '../../etc']],
    [['a', 'b', 'c', 'd', 'e', 'f', '--help']],
  ])('leaves %j to commander', (argv) => {
    expect(helpRequestKey(argv)).toBeUndefined();
  });
});

describe('helpCacheEntry', () => {
  it('gives back what was written, byte for byte, in a file only the user can read', () => {
    const { dir, entry } = fixture();
    const cache = helpCacheEntry(dir, entry, 'keywords+--help', 80)!;
    expect(cache.read()).toBeUndefined();
    const screen = 'Usage: rsi keywords [options] [command]\n\n  é — ✓\n';
    cache.write(screen);
    expect(helpCacheEntry(dir, entry, 'keywords+--help', 80)!.read()).toBe(screen);
    const [build] = readdirSync(join(dir, 'help'));
    expect(build).toBe(buildKey('export {} // build 1'));
    const files = readdirSync(join(dir, 'help', build!));
    expect(files).toEqual(['80-keywords+--help.txt']);
  });

  it('keys by width and by request', () => {
    const { dir, entry } = fixture();
    helpCacheEntry(dir, entry, '--help', 80)!.write('eighty\n');
    expect(helpCacheEntry(dir, entry, '--help', 120)!.read()).toBeUndefined();
    expect(helpCacheEntry(dir, entry, '-h', 80)!.read()).toBeUndefined();
  });

  it('a new build reads none of the old screens, and its first write removes them', () => {
    const { dir, entry } = fixture('export {} // build A');
    helpCacheEntry(dir, entry, '--help', 80)!.write('old build\n');
    writeFileSync(entry, 'export {} // build B');
    const fresh = helpCacheEntry(dir, entry, '--help', 80)!;
    expect(fresh.read()).toBeUndefined();
    fresh.write('new build\n');
    expect(readdirSync(join(dir, 'help'))).toEqual([buildKey('export {} // build B')]);
    expect(fresh.read()).toBe('new build\n');
  });

  it('treats a truncated, empty or oversized file as absent, and never writes one', () => {
    const { dir, entry } = fixture();
    const cache = helpCacheEntry(dir, entry, '--help', 80)!;
    cache.write('');
    cache.write('no newline at the end');
    cache.write(`${'x'.repeat(70_000)}\n`);
    expect(existsSync(join(dir, 'help'))).toBe(false);
    cache.write('whole\n');
    const file = join(dir, 'help', buildKey('export {} // build 1'), '80---help.txt');
    writeFileSync(file, 'Usage: rsi [opt');
    expect(cache.read()).toBeUndefined();
    writeFileSync(file, '');
    expect(cache.read()).toBeUndefined();
  });

  it('never prints a file holding an escape sequence or another control character', () => {
    const { dir, entry } = fixture();
    const cache = helpCacheEntry(dir, entry, '--help', 80)!;
    cache.write('plain\n');
    expect(cache.read()).toBe('plain\n');
    const file = join(dir, 'help', buildKey('export {} // build 1'), '80---help.txt');
    for (const bad of ['\x1b]0;owned\x07Usage\n', 'Usage: rsi\r\n', 'a\tb\n', 'csi \x9b2J\n', 'nul \0\n']) {
      writeFileSync(file, bad);
      expect(cache.read(), JSON.stringify(bad)).toBeUndefined();
    }
    cache.write('\x1b[2Jcleared\n');
    expect(cache.read()).toBeUndefined();
  });

  it('a cache folder that cannot be made or written costs nothing: no throw, no screen', () => {
    const { entry } = fixture();
    const blocker = join(work, 'a-file');
    writeFileSync(blocker, '');
    const cache = helpCacheEntry(blocker, entry, '--help', 80)!;
    expect(() => cache.write('screen\n')).not.toThrow();
    expect(cache.read()).toBeUndefined();
  });

  it('has no entry when the bundle file cannot be read (no build key)', () => {
    expect(helpCacheEntry(work, join(work, 'missing.js'), '--help', 80)).toBeUndefined();
  });
});

describe('main with a help cache', () => {
  it('prints the screen commander printed, then the same bytes from the cache', async () => {
    const dir = join(work, 'main');
    const first = fakeIo();
    expect(await main({ argv: ['keywords', 'search', '--help'], env: {}, io: first, cacheDir: dir })).toBe(0);
    expect(first.out()).toMatch(/^Usage: rsi keywords search/);
    const [build] = readdirSync(join(dir, 'help'));
    const file = join(dir, 'help', build!, '80-keywords+search+--help.txt');
    // Marked, so the second run proves where its bytes came from.
    writeFileSync(file, `${first.out()}(from the cache)\n`);
    const second = fakeIo();
    expect(await main({ argv: ['keywords', 'search', '--help'], env: {}, io: second, cacheDir: dir })).toBe(0);
    expect(second.out()).toBe(`${first.out()}(from the cache)\n`);
    expect(second.err()).toBe('');
  });

  it('keeps nothing for a request that fails or is not plain help', async () => {
    const dir = join(work, 'main-failing');
    const bad = fakeIo();
    expect(await main({ argv: ['help', 'nope'], env: {}, io: bad, cacheDir: dir })).toBe(2);
    expect(await main({ argv: ['keywords', 'search', '--json', '--help'], env: {}, io: fakeIo(), cacheDir: dir })).toBe(0);
    expect(existsSync(join(dir, 'help'))).toBe(false);
  });
});

describe('a help screen depends on the words and the width only', () => {
  const paths: string[][] = [];
  const walk = (cmd: Command, path: string[]): void => {
    paths.push(path);
    for (const sub of cmd.commands) walk(sub, [...path, sub.name()]);
  };
  walk(buildProgram(fakeCtx(fakeIo(), 'table')), []);

  // Every variable rsi or commander reads, set to something unusual.
  const loud = {
    RSI_PROFILE: 'work',
    RSI_BASE_URL: 'https://example.test/api/v1',
    RSI_HTTP_TIMEOUT: '5',
    RSI_DEBUG: '1',
    RSI_TOKEN: 'not-a-token',
    RSI_PAGES_IN_FLIGHT: '2',
    RSI_CONFIG_DIR: join(work, 'nowhere'),
    NO_COLOR: '1',
    FORCE_COLOR: '3',
    CLICOLOR_FORCE: '1',
    COLUMNS: '33',
    TERM: 'dumb',
    LANG: 'C',
  };

  it(`for all ${paths.length} commands at 60, 80 and 132 columns`, async () => {
    expect(paths.length).toBeGreaterThan(20);
    for (const path of paths) {
      for (const columns of [60, 80, 132]) {
        const quiet = fakeIo({ tty: true, columns });
        const noisy = fakeIo({ tty: true, columns, color: true });
        await main({ argv: [...path, '--help'], env: {}, io: quiet });
        await main({ argv: [...path, '--help'], env: loud, io: noisy });
        expect(noisy.out(), `${path.join(' ')} at ${columns}`).toBe(quiet.out());
        expect(quiet.out(), path.join(' ')).toMatch(/^Usage: rsi/);
        // Every real screen is one the cache keeps (printable text only, whole, not too large).
        const kept = helpCacheEntry(join(work, 'every-screen'), fixture().entry, `${columns}-${path.join('+')}`, columns)!;
        kept.write(quiet.out());
        expect(kept.read(), `${path.join(' ')} is kept`).toBe(quiet.out());
      }
    }
  });
});

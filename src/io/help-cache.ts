/**
 * Help screens kept on disk after commander first prints them, so that a later `rsi … --help`
 * prints the same bytes without loading commander and the command tree (docs/performance.md,
 * "Help from the cache"). Only plain requests are kept: command words followed by `--help`/`-h`,
 * or `help` followed by command words; anything else (a flag, an argument that is not a word)
 * goes to commander every time.
 *
 * An entry is keyed by three things, the only inputs of a help screen (test/unit/help-cache.test.ts
 * proves the environment is not one): the build, the width commander wrapped the text to, and the
 * exact words typed. The build is a hash of the bundle's entry file: esbuild names every chunk by a
 * hash of its content and of the chunks it imports, and the entry file imports the command tree by
 * that name, so any change to any help text gives a new build key. Each build has its own folder;
 * the first write of a new build removes the folders of older ones.
 *
 * The cache is an optimisation only: a folder that cannot be read or written, or an entry that is
 * not there, means commander renders the help as before. Nothing is printed about it.
 */
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** What is typed after `rsi`, as one file name; undefined when it is not a plain help request. */
export function helpRequestKey(argv: readonly string[]): string | undefined {
  if (argv.length === 0 || argv.length > 6) return undefined;
  const words = argv[0] === 'help' ? argv : argv.slice(0, -1);
  const last = argv.at(-1)!;
  if (argv[0] !== 'help' && last !== '--help' && last !== '-h') return undefined;
  if (!words.every((w) => /^[a-z][a-z0-9-]{0,31}$/.test(w))) return undefined;
  return argv.join('+');
}

/** A cheap, stable 53-bit string hash (cyrb53): enough to tell builds apart, no crypto module. */
export function buildKey(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}

/** The most a cached screen may hold: anything larger is not ours, and is not printed. */
const MAX_ENTRY_BYTES = 64 * 1024;

/**
 * What a help screen looks like: whole (it ends with a newline), not too large, and printable
 * text only. It is written to the terminal unsanitised, so a truncated, foreign or tampered file
 * (an escape sequence, any control character but the newline) is treated as absent.
 */
function isScreen(text: string): boolean {
  return text.length > 0 && text.length <= MAX_ENTRY_BYTES && text.endsWith('\n') && !/[\x00-\x09\x0b-\x1f\x7f-\x9f]/.test(text);
}

export interface HelpCacheEntry {
  /** The cached screen, or undefined (not cached yet, unreadable, or not a screen). */
  read(): string | undefined;
  /** Keeps a screen commander just printed. Never throws. */
  write(text: string): void;
}

/**
 * The entry for one request: `root` is rsi's per-user cache folder, `entryFile` the bundle's entry
 * (its text is the build key), `width` the column count commander wraps help to.
 */
export function helpCacheEntry(root: string, entryFile: string, request: string, width: number): HelpCacheEntry | undefined {
  let build: string;
  try {
    build = buildKey(readFileSync(entryFile, 'utf8'));
  } catch {
    return undefined;
  }
  const folder = join(root, 'help');
  const file = join(folder, build, `${width}-${request}.txt`);
  return {
    read() {
      try {
        const text = readFileSync(file, 'utf8');
        return isScreen(text) ? text : undefined;
      } catch {
        return undefined;
      }
    },
    write(text) {
      if (!isScreen(text)) return;
      try {
        let fresh = false;
        try {
          mkdirSync(join(folder, build), { mode: 0o700 });
          fresh = true;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EEXIST') mkdirSync(join(folder, build), { recursive: true, mode: 0o700 });
        }
        if (fresh) {
          for (const old of readdirSync(folder)) if (old !== build) rmSync(join(folder, old), { recursive: true, force: true });
        }
        // Written whole, then renamed: a reader sees the old screen, the new one, or none.
        const temp = `${file}.${process.pid}.tmp`;
        writeFileSync(temp, text, { mode: 0o600 });
        renameSync(temp, file);
      } catch {
        // Read-only home, full disk, a race with another rsi: only the gain is lost.
      }
    },
  };
}

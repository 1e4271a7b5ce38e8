/**
 * The npm package's loader, built to `dist/boot.cjs` and run by bin/rsi.js (every command but
 * `--version`): it compiles rsi's one-file bundle, `dist/rsi.cjs`, as the single executable does
 * (src/exe/load.ts), with V8's code cache made *after* a run. Node's own compile cache is written
 * right after a file compiles, before anything runs, so it holds the top level and none of the
 * functions a run then compiles lazily (docs/performance.md, "Where the time goes"); a cache made
 * once the command has finished holds them, ready.
 *
 * One cache file per command word (`keywords`, `projects`, the root help …), in the per-user
 * folder bin/rsi.js checked (`compileCacheDir`), named by everything that must match for V8 to take
 * it: the bundle's content hash (the build writes it on the bundle's first line), Node's version,
 * the CPU and the flags (`execArgv`, `NODE_OPTIONS`). V8 checks its version and flags again itself
 * and rejects a cache that does not fit (`cachedDataRejected`); rsi then writes a new one. Its
 * first line lists the runs it was made after (the command words and option names, the `--format`
 * value): a run of a shape not yet in it writes it again after running, so it gains what that run
 * compiled (up to MAX_SHAPES, so arguments that look like words cannot make every run write). Only
 * a run that exits 0 writes, so a mistyped command word leaves no file.
 *
 * Written 0600 through a new temporary file (created exclusively: never through a link) renamed
 * over the old one, so a concurrent run reads the old file or the new, never half of one. V8 checks
 * the payload's checksum (`checked`): a release V8 does not unless told to, and a damaged cache is
 * then a fatal error. A cache that cannot be read, written or trusted only costs the saving: never
 * an error, never a line.
 *
 * What a start touches is most of what it costs on a machine whose kernel is slow to hand out
 * memory (docs/performance.md, "Where the time goes"): the cache is read into the memory the
 * bundle was read into, once the bundle is a string.
 */
import { type Body, compileBody, compileScript, needsFullBundle, runBody } from './load.js';

/**
 * The bundle compiled and evaluated without a code cache, for a tool that runs it in its own
 * process (test/outside/mcp-conformance-client.mjs): what `boot` compiles, but main() left to the caller.
 */
export function load(bundle: string): Body {
  return compileBody(process.getBuiltinModule('node:fs').readFileSync(bundle, 'latin1'), undefined, bundle);
}

/** The header's first word and format version: a file that does not start so is ignored. */
const MAGIC = 'rsi-code-cache/2';
/** At most this many run shapes per file; past it, a new shape no longer rewrites the cache. */
export const MAX_SHAPES = 32;

export interface BootOptions {
  /** The cache folder (checked by bin/rsi.js), or undefined for no cache. */
  readonly dir: string | undefined;
  /** The package's bundle, `dist/rsi.cjs`. */
  readonly bundle: string;
  /** The full bundle, `dist/rsi-full.cjs`, for the runs that need it (`needsFullBundle`); without it, `bundle` always. */
  readonly full?: string;
  /** The process's arguments (after node and the script). */
  readonly argv: readonly string[];
  /** The command words of argv, outermost first (bin/rsi.js's `commandWords`). */
  readonly words: readonly string[];
}

/** Compiles the bundle (with its cache when there is one), runs main() as the process, keeps the cache. */
export function boot(options: BootOptions): void {
  const full = options.full !== undefined && needsFullBundle(options.argv);
  const bundle = full ? (options.full as string) : options.bundle;
  const read = readFile(bundle);
  const source = read.bytes.toString('latin1');
  const cache = options.dir ? cacheFile(options.dir, source, options.words, full) : undefined;
  const held = cache ? readCache(cache, read.block) : undefined;
  const shape = runShape(options.argv, options.words);
  const script = held ? checked(() => compileScript(source, held.data, bundle)) : compileScript(source, undefined, bundle);
  const { main, v8FlagsChanged } = runBody(script, bundle);
  const rejected = held !== undefined && script.cachedDataRejected === true;
  const shapes = held && !rejected ? held.shapes : [];
  const write = cache !== undefined && (held === undefined || rejected || (!shapes.includes(shape) && shapes.length < MAX_SHAPES));
  main().then((code) => {
    // A write to stdout that failed (a full disk) may have set the exit code while main() returned:
    // the failure wins over a 0 (which Node's timing decides, 22.13 and 26 differ).
    if (!process.exitCode) process.exitCode = code;
    // Only after a run that succeeded: a typo (`rsi kewords`, exit 2) leaves no file of its own.
    // Nor after a run that changed V8's flags (a batch favours memory): V8 would reject that cache
    // in the next run, which does not set them.
    if (write && process.exitCode === 0 && !v8FlagsChanged())
      writeCache(cache, [...shapes, shape], () => checked(() => script.createCachedData()));
  });
}

/**
 * `rsi-<bundle>-<node>-<arch>-<flags>-<word>.cache` (`.full.cache` for the full bundle's): a file
 * is read only by the very bundle, Node and flags it was made under. `<bundle>` names the pair of
 * bundles (the build writes one hash on both), so neither removes the other's caches. Undefined (no
 * cache) for a bundle without its hash line.
 */
export function cacheFile(dir: string, source: string, words: readonly string[], full = false): string | undefined {
  const bundle = /^\/\/ rsi-bundle ([0-9a-f]{16,64})\n/.exec(source.slice(0, 100))?.[1];
  if (!bundle) return undefined;
  const flags = fnv1a(`${process.execArgv.join('\0')}\n${process.env.NODE_OPTIONS ?? ''}`);
  const word = /^[a-z][a-z0-9-]{0,31}$/.test(words[0] ?? '') ? words[0] : '-';
  return `${dir}/rsi-${bundle.slice(0, 16)}-${process.version}-${process.arch}-${flags}-${word}${full ? '.full' : ''}.cache`;
}

/** What a run's compiled functions depend on: its command words and option names, and the format asked for. */
export function runShape(argv: readonly string[], words: readonly string[]): string {
  const options = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') break;
    if (!arg.startsWith('-')) continue;
    const name = arg.split('=')[0] as string;
    options.add(name === '--format' ? `--format=${arg.includes('=') ? arg.slice(9) : (argv[i + 1] ?? '')}` : name);
  }
  return [...words.slice(0, 2), ...[...options].sort()].join(' ');
}

interface Held {
  readonly data: Buffer;
  readonly shapes: readonly string[];
}

/** The cache's payload and the shapes it was made after, read into `block` when it fits; undefined for a missing or foreign file. */
function readCache(file: string, block: Buffer): Held | undefined {
  const fs = process.getBuiltinModule('node:fs');
  let bytes: Buffer;
  try {
    // O_NOFOLLOW: the folder is the user's and 0700, but a link in it is still not followed.
    bytes = readFile(file, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0), block).bytes;
  } catch {
    return undefined;
  }
  const end = bytes.subarray(0, 8192).indexOf(10);
  if (end < 0) return undefined;
  const header = /^rsi-code-cache\/2 (\[.*\])$/.exec(bytes.toString('latin1', 0, end));
  if (!header) return undefined;
  try {
    const shapes: unknown = JSON.parse(header[1] as string);
    if (!Array.isArray(shapes) || !shapes.every((s) => typeof s === 'string')) return undefined;
    return { data: bytes.subarray(end + 1), shapes };
  } catch {
    return undefined;
  }
}

/**
 * A whole file's bytes, in `block` when they fit (else in new memory, which `block` then is):
 * readFileSync's own buffer would be memory touched for the first time once more.
 */
function readFile(file: string, flags: number = 0, into?: Buffer): { bytes: Buffer; block: Buffer } {
  const fs = process.getBuiltinModule('node:fs');
  const fd = fs.openSync(file, flags);
  try {
    const size = fs.fstatSync(fd).size;
    const block = into && into.length >= size ? into : Buffer.allocUnsafeSlow(size);
    for (let done = 0; done < size; ) {
      const n = fs.readSync(fd, block, done, size - done, done);
      if (n === 0) throw new Error(`${file} was cut while it was read`);
      done += n;
    }
    return { bytes: block.subarray(0, size), block };
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * `work` (compiling with a cache, or making one) with V8's `--verify-snapshot-checksum` on: V8 then
 * checks the cache's checksum and rejects a damaged one (`cachedDataRejected`) instead of stopping
 * the process. The flag is part of the flags V8 keys a cache on, so a cache is made under it as it
 * is read; it is off again before anything else compiles, so Node's own code caches (made without
 * it) still fit.
 */
function checked<T>(work: () => T): T {
  const v8 = process.getBuiltinModule('node:v8');
  v8.setFlagsFromString('--verify-snapshot-checksum');
  try {
    return work();
  } finally {
    v8.setFlagsFromString('--no-verify-snapshot-checksum');
  }
}

/** Writes the cache whole, 0600, through an exclusive temporary file; any failure only loses the cache. */
function writeCache(file: string, shapes: readonly string[], make: () => Buffer): void {
  const fs = process.getBuiltinModule('node:fs');
  const temp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  let fd: number | undefined;
  try {
    const data = make();
    const header = Buffer.from(`${MAGIC} ${JSON.stringify(shapes)}\n`, 'latin1');
    // 'wx': O_CREAT | O_EXCL, which fails on anything already there, a link included.
    fd = fs.openSync(temp, 'wx', 0o600);
    fs.writeSync(fd, header);
    fs.writeSync(fd, data);
    fs.closeSync(fd);
    fd = undefined;
    fs.renameSync(temp, file);
    removeStale(file);
  } catch {
    if (fd !== undefined) fs.closeSync(fd);
    try {
      fs.unlinkSync(temp);
    } catch {
      // Never made.
    }
  }
}

/** Caches of other bundles (an earlier rsi), removed when this one writes: they can never be read again. */
function removeStale(file: string): void {
  const fs = process.getBuiltinModule('node:fs');
  const { basename, dirname } = process.getBuiltinModule('node:path');
  const ours = basename(file).slice(0, 'rsi-'.length + 16);
  const dir = dirname(file);
  for (const name of fs.readdirSync(dir)) {
    if (/^rsi-[0-9a-f]{16}-.*\.cache$/.test(name) && !name.startsWith(ours)) fs.rmSync(`${dir}/${name}`, { force: true });
  }
}

/** FNV-1a, 32 bits, as hex: a short name for the flags (V8 checks them itself). */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return (hash >>> 0).toString(16).padStart(8, '0');
}

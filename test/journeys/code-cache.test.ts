/**
 * The npm path's code cache (src/exe/npm.ts, run by bin/rsi.js): V8's cache of dist/rsi.cjs made
 * after a run, one file per command word in the compile cache's folder. Real bin/rsi.js processes:
 * what is proved is what one process leaves for the next. No timings: a cache the next run used is
 * seen by the file being left as it was, since a cache that is missing, unreadable, damaged or
 * rejected by V8 is always written anew after a run that succeeds (and a new run shape adds to it).
 * The folder's ownership checks are in test/journeys/signin-moves.test.ts ("the compile cache").
 */
import {
  type Stats,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Script } from 'node:vm';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A fresh XDG_CACHE_HOME; rsi's cache folder is `<it>/rsi/compile`. */
function cacheHome(): { env: { XDG_CACHE_HOME: string }; folder: string } {
  const home = mkdtempSync(join(tmpdir(), 'rsi-code-cache-'));
  dirs.push(home);
  return { env: { XDG_CACHE_HOME: home }, folder: join(home, 'rsi', 'compile') };
}

/** The cache files of a folder, by name. */
const caches = (folder: string): string[] => readdirSync(folder).filter((f) => f.endsWith('.cache'));

/** A cache file's header, checked: its magic and the run shapes it lists (V8's payload carries its own checksum). */
function header(file: string): { shapes: string[]; payload: Buffer } {
  const bytes = readFileSync(file);
  const end = bytes.indexOf(10);
  const m = /^rsi-code-cache\/2 (\[.*\])$/.exec(bytes.toString('latin1', 0, end));
  if (!m) throw new Error(`${file}: no header`);
  return { shapes: JSON.parse(m[1]!) as string[], payload: bytes.subarray(end + 1) };
}

/** What says a file was left alone: the same inode, size and modification time. */
const identity = (s: Stats) => `${s.ino}:${s.size}:${s.mtimeMs}`;

async function completion(env: Record<string, string>, shell = 'bash') {
  const r = await runCli(['completion', shell], { env });
  expect(r.code, r.stderr).toBe(0);
  expect(r.stderr).toBe('');
  expect(r.stdout).toContain('rsi');
  return r;
}

describe.skipIf(process.platform === 'win32')('the code cache of the npm path', () => {
  it('is written after a run, 0600, and used by the next; a new run shape adds to it', async () => {
    const { env, folder } = cacheHome();
    const first = await completion(env);
    const [name, ...more] = caches(folder);
    expect(more).toEqual([]);
    expect(name).toMatch(new RegExp(`^rsi-[0-9a-f]{16}-${process.version}-${process.arch}-[0-9a-f]{8}-completion\\.cache$`));
    const file = join(folder, name!);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(header(file).shapes).toEqual(['completion bash']);
    expect(header(file).payload.length).toBeGreaterThan(100_000);

    // The next run of the same shape reads it, V8 takes it, and it is left as it was.
    const before = identity(statSync(file));
    const second = await completion(env);
    expect(second.stdout).toBe(first.stdout);
    expect(identity(statSync(file))).toBe(before);

    // A run of another shape compiles functions the cache lacks: it is written again with both.
    await completion(env, 'zsh');
    expect(identity(statSync(file))).not.toBe(before);
    expect(header(file).shapes).toEqual(['completion bash', 'completion zsh']);
    // Another command word has a file of its own.
    const help = await runCli(['help', 'keywords'], { env });
    expect(help.code, help.stderr).toBe(0);
    expect(caches(folder).sort()).toEqual([name, name!.replace(/-completion\.cache$/, '-help.cache')].sort());
  });

  it('a run that fails writes nothing: a mistyped command word leaves no file of its own', async () => {
    const { env, folder } = cacheHome();
    const r = await runCli(['kewords', 'search', 'egfr'], { env });
    expect(r.code).toBe(2);
    expect(caches(folder)).toEqual([]);
  });

  // A batch sets V8's --optimize-for-size (src/commands/shared/batch.ts): V8 would reject a cache
  // made under it in the next run, which does not set it, and that run would write it again.
  it('a batch changes V8’s flags, so it writes nothing; the next run of the same word does', async () => {
    const { env, folder } = cacheHome();
    const batchEnv = { ...env, RSI_TOKEN: 'test-token', RSI_BASE_URL: 'http://127.0.0.1:9' };
    const batch = await runCli(['keywords', 'get', '-', '--format', 'ndjson'], { env: batchEnv, input: '# no items\n' });
    expect(batch.code, batch.stderr).toBe(0);
    expect(existsSync(folder) ? caches(folder) : []).toEqual([]);
    const help = await runCli(['keywords', 'get', '--help'], { env });
    expect(help.code, help.stderr).toBe(0);
    expect(caches(folder)).toEqual([expect.stringMatching(/-keywords\.cache$/)]);
  });

  // --jq compiles jq's wasm with V8's baseline compiler only (--liftoff-only, src/io/jq.ts): the same.
  it('a --jq run changes V8’s flags too, so it writes nothing; the next run of the same word does', async () => {
    const { env, folder } = cacheHome();
    const jq = await runCli(['config', 'list', '--jq', 'keys'], { env });
    expect(jq.code, jq.stderr).toBe(0);
    expect(existsSync(folder) ? caches(folder) : []).toEqual([]);
    const plain = await runCli(['config', 'list', '--json'], { env });
    expect(plain.code, plain.stderr).toBe(0);
    expect(caches(folder)).toEqual([expect.stringMatching(/-config\.cache$/)]);
  });

  it('a damaged or foreign cache is ignored and replaced, and the run is the same', async () => {
    const { env, folder } = cacheHome();
    const reference = await completion(env);
    const file = join(folder, caches(folder)[0]!);
    const good = readFileSync(file);
    const payload = header(file).payload;
    const withHeader = (data: Buffer) => Buffer.concat([Buffer.from('rsi-code-cache/2 ["completion bash"]\n'), data]);
    const damaged: Array<[string, Buffer]> = [
      ['not a cache at all', Buffer.from('garbage\n\u0000\u0001 not a cache')],
      ['empty', Buffer.alloc(0)],
      ['cut short', good.subarray(0, good.length >> 1)],
      [
        'a flipped byte in the payload',
        Buffer.concat([
          good.subarray(0, good.length - 5000),
          Buffer.from([good[good.length - 5000]! ^ 0xff]),
          good.subarray(good.length - 4999),
        ]),
      ],
      [
        'a flipped byte in the middle of the payload (V8 would stop the process on it unchecked)',
        Buffer.concat([
          good.subarray(0, good.length >> 1),
          Buffer.from([good[good.length >> 1]! ^ 0x5a]),
          good.subarray((good.length >> 1) + 1),
        ]),
      ],
      // A valid file whose payload V8 made for another script: V8 rejects it (cachedDataRejected).
      ['a cache of another script', withHeader(new Script('1 + 1', { filename: 'other.js' }).createCachedData())],
    ];
    for (const [what, bytes] of damaged) {
      writeFileSync(file, bytes);
      const r = await completion(env);
      expect(r.stdout, what).toBe(reference.stdout);
      // Written anew: a whole cache again (V8's bytes differ from run to run, not its size class).
      const again = header(file);
      expect(again.shapes, what).toEqual(['completion bash']);
      expect(again.payload.length, what).toBeGreaterThan(payload.length / 2);
    }
    // And what was written back is used again.
    const before = identity(statSync(file));
    await completion(env);
    expect(identity(statSync(file))).toBe(before);
  });

  it('a link at the cache’s name is never followed: its target is left alone, the link replaced', async () => {
    const { env, folder } = cacheHome();
    await completion(env);
    const file = join(folder, caches(folder)[0]!);
    const elsewhere = mkdtempSync(join(tmpdir(), 'rsi-code-cache-target-'));
    dirs.push(elsewhere);
    const target = join(elsewhere, 'precious.txt');
    writeFileSync(target, 'precious\n');
    rmSync(file);
    symlinkSync(target, file);
    await completion(env);
    expect(readFileSync(target, 'utf8')).toBe('precious\n');
    expect(lstatSync(file).isSymbolicLink()).toBe(false);
    expect(header(file).shapes).toEqual(['completion bash']);
  });

  it('runs at the same moment leave one whole cache, which the next run uses', async () => {
    const { env, folder } = cacheHome();
    const runs = await Promise.all(Array.from({ length: 6 }, () => completion(env)));
    expect(new Set(runs.map((r) => r.stdout)).size).toBe(1);
    expect(readdirSync(folder)).toEqual(caches(folder));
    expect(caches(folder)).toHaveLength(1);
    const file = join(folder, caches(folder)[0]!);
    expect(header(file).shapes).toEqual(['completion bash']);
    const before = identity(statSync(file));
    await completion(env);
    expect(identity(statSync(file))).toBe(before);
  });

  it('a cache of an earlier bundle is removed when this one writes; another Node’s is kept', async () => {
    const { env, folder } = cacheHome();
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    const earlier = 'rsi-0123456789abcdef-v22.13.0-x64-00000000-completion.cache';
    writeFileSync(join(folder, earlier), 'earlier bundle', { mode: 0o600 });
    await completion(env);
    const [ours] = caches(folder);
    expect(caches(folder)).not.toContain(earlier);
    const otherNode = ours!.replace(process.version, 'v99.0.0');
    writeFileSync(join(folder, otherNode), 'another Node', { mode: 0o600 });
    await completion(env, 'zsh');
    expect(caches(folder).sort()).toEqual([ours, otherNode].sort());
  });

  it('the full bundle’s caches (.full.cache) sit beside rsi.cjs’s: each is used by its next run, neither removes the other', async () => {
    const { env, folder } = cacheHome();
    await completion(env);
    const scoreboard = async () => {
      const r = await runCli(['scoreboard', '--help'], { env });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('Usage: rsi scoreboard');
    };
    await scoreboard();
    const [core, full] = caches(folder).sort();
    expect(core).toMatch(/-completion\.cache$/);
    expect(full).toMatch(/-scoreboard\.full\.cache$/);
    // The same bundle hash names both (the build writes one on the pair).
    expect(full!.slice(0, 20)).toBe(core!.slice(0, 20));
    const before = [core, full].map((f) => identity(statSync(join(folder, f!))));
    await completion(env);
    await scoreboard();
    expect(caches(folder).sort()).toEqual([core, full]);
    expect([core, full].map((f) => identity(statSync(join(folder, f!))))).toEqual(before);
  });

  it('NODE_DISABLE_COMPILE_CACHE turns it off; NODE_COMPILE_CACHE names its folder', async () => {
    const off = cacheHome();
    await completion({ ...off.env, NODE_DISABLE_COMPILE_CACHE: '1' });
    expect(readdirSync(off.env.XDG_CACHE_HOME)).toEqual([]);

    const named = cacheHome();
    const chosen = join(named.env.XDG_CACHE_HOME, 'chosen');
    await completion({ ...named.env, NODE_COMPILE_CACHE: chosen });
    expect(caches(chosen)).toHaveLength(1);
    expect(readdirSync(named.env.XDG_CACHE_HOME)).toEqual(['chosen']);
  });

  it('a cache folder that cannot be made costs the saving only: no line, the same output', async () => {
    const { env } = cacheHome();
    const reference = await completion(env);
    const blocked = join(env.XDG_CACHE_HOME, 'a-file');
    writeFileSync(blocked, '');
    const r = await completion({ XDG_CACHE_HOME: blocked });
    expect(r.stdout).toBe(reference.stdout);
  });
});

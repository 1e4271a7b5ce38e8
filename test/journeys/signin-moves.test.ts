// Issue 59 through real `bin/rsi.js` processes, where the boundary is the point: the same folder
// under another host name (a UTS namespace, as a recreated container or a renamed laptop), after
// `mv`, and moved to another file system; a copy beside the original; `auth token --refresh` into
// /dev/full and into a file under umask 022; a compile cache another user planted. The decisions
// themselves are tested in process (test/e2e/signin-copies.test.ts).
import { spawn } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_BROWSER } from '../support/browser.js';
import { CHILD_BOUND_MS, type CliResult, RSI_BIN, cleanEnv, runCli } from '../support/cli.js';
import { type InProcessSandbox, runCli as runInProcess, startSandbox } from '../support/inproc.js';
import { expireTokens } from '../support/sandbox.js';
import { otherUserPart, skipWithout, utsNamespacePart } from '../support/system.js';

let sandbox: InProcessSandbox;
const dirs: string[] = [];
beforeAll(async () => {
  sandbox = await startSandbox(['--auto-approve', '--quiet']);
});
afterAll(async () => {
  await sandbox?.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function folder(under = tmpdir()): string {
  const dir = mkdtempSync(join(under, 'rsi-moves-'));
  dirs.push(dir);
  return dir;
}
const envOf = (dir: string) => ({ RSI_CONFIG_DIR: dir, RSI_CREDENTIAL_STORE: 'file', BROWSER: FAKE_BROWSER });
const rsi = (dir: string, args: string[], input?: string) => runCli(args, { env: envOf(dir), ...(input === undefined ? {} : { input }) });
const refreshTokenOf = (dir: string): string | undefined =>
  (Object.values(JSON.parse(readFileSync(join(dir, 'credentials.json'), 'utf8')))[0] as { refreshToken?: string }).refreshToken;

/** Signed in in process (setting up is not what these tests are about; each judged run is a process). */
async function signedInFolder(): Promise<string> {
  const dir = join(folder(), 'rsi');
  const r = await runInProcess(['login', '--base-url', sandbox.url], { env: envOf(dir) });
  expect(r.code, r.stderr).toBe(0);
  return dir;
}

/**
 * `sh -c SCRIPT sh node bin/rsi.js ARGS…` (a script ending in `exec "$@"` runs rsi), in a clean
 * environment; `wrap` runs the shell under another command (`unshare --uts`).
 */
function viaShell(script: string, args: readonly string[], env: Record<string, string>, wrap: readonly string[] = []): Promise<CliResult> {
  const [command, ...rest] = [...wrap, 'sh', '-c', script, 'sh', process.execPath, RSI_BIN, ...args];
  return new Promise((resolve, reject) => {
    const child = spawn(command!, rest, {
      env: cleanEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_BOUND_MS);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

describe('the same folder, moved or renamed around', () => {
  it.skipIf(skipWithout(utsNamespacePart()))('under another host name (a UTS namespace): exit 0 after a refresh', async () => {
    const dir = await signedInFolder();
    await expireTokens(sandbox, dir, 3600);
    const before = refreshTokenOf(dir);
    const r = await viaShell('hostname rsi-renamed.test && exec "$@"', ['projects', 'list', '--json'], envOf(dir), ['unshare', '--uts']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveProperty('projects');
    expect(refreshTokenOf(dir)).not.toBe(before);
  });

  it('after `mv`: exit 0 after a refresh', async () => {
    const dir = await signedInFolder();
    const moved = join(folder(), 'moved');
    const mv = await viaShell('exec mv "$SRC" "$DST"', [], { SRC: dir, DST: moved });
    expect(mv.code, mv.stderr).toBe(0);
    await expireTokens(sandbox, moved, 3600);
    const before = refreshTokenOf(moved);
    const r = await rsi(moved, ['projects', 'list', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(refreshTokenOf(moved)).not.toBe(before);
  });

  it('a copy beside the original (cp -a): the copy is told, the original keeps working', async () => {
    const original = await signedInFolder();
    const copy = join(folder(), 'copy');
    expect((await viaShell('exec cp -a "$SRC" "$DST"', [], { SRC: original, DST: copy })).code).toBe(0);
    await expireTokens(sandbox, copy, 3600);
    const r = await rsi(copy, ['projects', 'list']);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(new RegExp(`^rsi: this sign-in is a copy of the one in ${original} on \\S+, which still holds it: `));
    expect(r.stderr).toMatch(
      /^hint: to give this folder a sign-in of its own, on \S+ run `\(umask 077 && RSI_CONFIG_DIR=\S+ rsi auth token --refresh > handover.txt\)`, then here `rsi login --with-token --base-url \S+ < handover.txt`/m,
    );
    await expireTokens(sandbox, original, 3600);
    const still = await rsi(original, ['projects', 'list', '--json']);
    expect(still.code, still.stderr).toBe(0);
  });

  it('moved to another file system: told, then kept with `rsi auth adopt`', async ({ skip }) => {
    const dir = await signedInFolder();
    const shm = '/dev/shm';
    let other: string | undefined;
    try {
      other = folder(shm);
    } catch {
      // No /dev/shm (macOS): no second file system to move to.
    }
    if (!other || statSync(other).dev === statSync(dir).dev) return skip('no second file system at /dev/shm');
    const moved = join(other, 'rsi');
    expect((await viaShell('exec mv "$SRC" "$DST"', [], { SRC: dir, DST: moved })).code).toBe(0);
    await expireTokens(sandbox, moved, 3600);
    const r = await rsi(moved, ['projects', 'list']);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/keep its sign-in with `rsi auth adopt`\n$/);
    expect((await rsi(moved, ['auth', 'adopt'])).code).toBe(0);
    const after = await rsi(moved, ['projects', 'list', '--json']);
    expect(after.code, after.stderr).toBe(0);
  });
});

describe('hand-over lines', () => {
  it('`auth token --refresh > /dev/full`: exit 12, and the sign-in still works', async () => {
    const dir = await signedInFolder();
    const before = refreshTokenOf(dir);
    const r = await viaShell('exec "$@" > /dev/full', ['auth', 'token', '--refresh'], envOf(dir));
    expect(r.code).toBe(12);
    expect(r.stderr).toMatch(/^Nothing was handed over: /m);
    expect(refreshTokenOf(dir)).toBe(before);
    await expireTokens(sandbox, dir, 3600);
    const still = await rsi(dir, ['projects', 'list', '--json']);
    expect(still.code, still.stderr).toBe(0);
  });

  it('written to a file under umask 022, the line is readable by its owner alone (0600)', async () => {
    const dir = await signedInFolder();
    const file = join(folder(), 'handover.txt');
    const r = await viaShell('umask 022 && exec "$@" > "$OUT"', ['auth', 'token', '--refresh'], { ...envOf(dir), OUT: file });
    expect(r.code, r.stderr).toBe(0);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toMatch(/^rsi-refresh\.\S+\n$/);
  });
});

describe('the compile cache', () => {
  it.skipIf(skipWithout(otherUserPart()))(
    'a planted one in a folder another user owns is never loaded; one line says the cache is off',
    async () => {
      const cache = folder();
      const planted = join(cache, 'rsi', 'compile');
      mkdirSync(planted, { recursive: true });
      chmodSync(join(cache, 'rsi'), 0o777);
      chmodSync(planted, 0o777);
      chownSync(join(cache, 'rsi'), 4242, 4242);
      chownSync(planted, 4242, 4242);
      const r = await runCli(['completion', 'bash'], { env: { XDG_CACHE_HOME: cache, NODE_DEBUG_NATIVE: 'COMPILE_CACHE' } });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(
        new RegExp(
          `^warning: the compile cache is off \\(rsi starts slower\\): ${join(cache, 'rsi')} is owned by another user \\(uid 4242\\)`,
          'm',
        ),
      );
      // Neither rsi nor Node opened it: no "[compile cache]" line, and nothing written there.
      expect(r.stderr).not.toMatch(/\[compile cache\]/);
      expect(readdirSync(planted)).toEqual([]);
    },
  );

  it('a folder of the user’s own is made 0700 and used', async () => {
    const cache = folder();
    const r = await runCli(['completion', 'bash'], { env: { XDG_CACHE_HOME: cache } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(statSync(join(cache, 'rsi')).mode & 0o777).toBe(0o700);
    expect(statSync(join(cache, 'rsi', 'compile')).mode & 0o777).toBe(0o700);
    // The code cache of the run's command word, readable by its owner alone (test/journeys/code-cache.test.ts).
    const files = readdirSync(join(cache, 'rsi', 'compile'));
    expect(files).toEqual([expect.stringMatching(/^rsi-[0-9a-f]{16}-.*-completion\.cache$/)]);
    expect(statSync(join(cache, 'rsi', 'compile', files[0]!)).mode & 0o777).toBe(0o600);
  });
});

// Where the planted cache's folder is the user's own but writable by others (no root needed).
it('a compile cache folder others can write is refused the same way', async () => {
  const cache = folder();
  const planted = join(cache, 'rsi', 'compile');
  mkdirSync(planted, { recursive: true });
  chmodSync(planted, 0o777);
  const r = await runCli(['completion', 'bash'], { env: { XDG_CACHE_HOME: cache } });
  expect(r.code).toBe(0);
  expect(r.stderr).toMatch(
    /^warning: the compile cache is off \(rsi starts slower\): \S+ can be written by other users \(mode 777\); fix: chmod 700 /m,
  );
  expect(readdirSync(planted)).toEqual([]);
});

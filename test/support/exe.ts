/**
 * The single executable for tests (docs/install.md): dist/exe/rsi-<host>, built by
 * `npm run build:exe` when it is missing or older than the sources (.ci/run builds it once per run
 * before the Node lines, so the three `npm test` runs reuse it). Where it cannot be built (no
 * registry, a platform without a Node package) the tests skip with the reason, unless
 * RSI_REQUIRE_SYSTEM_TESTS=1, where that is a failure.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SystemPart } from './system.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const HOST = `${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`;
export const exePath = (target: string): string => join(ROOT, 'dist', 'exe', `rsi-${target}`);
export const EXE = exePath(HOST);

/** The newest modification time of what goes into the binary. */
function newestSource(dir = join(ROOT, 'src')): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * Builds a target's binary when needed (once per test file that asks), and says whether it is
 * there. The tests run on a Linux x64 machine: its own binary, and the arm64 one under qemu-user.
 */
export function exePart(target = HOST): SystemPart {
  const exe = exePath(target);
  const name = `single executable (${exe.slice(ROOT.length)})`;
  if (HOST !== 'linux-x64') return { name, available: false, reason: `the tests run the Linux binaries on Linux x64; this is ${HOST}` };
  const inputs = Math.max(newestSource(), statSync(join(ROOT, 'package-lock.json')).mtimeMs);
  if (!existsSync(exe) || statSync(exe).mtimeMs < inputs) {
    const build = spawnSync(process.execPath, [join(ROOT, 'src/build/exe.mjs'), '--target', target], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 600_000,
    });
    if (build.status !== 0)
      return { name, available: false, reason: `npm run build:exe failed: ${(build.stderr || build.error?.message || '').trim()}` };
  }
  return { name, available: true, reason: '' };
}

/**
 * A PATH with no `node` on it: a folder of links to the few programs the tests' shell lines use,
 * so the binary is shown to need nothing from a Node installation.
 */
export function pathWithoutNode(programs: readonly string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'rsi-no-node-'));
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  for (const program of programs) {
    const found = spawnSync('sh', ['-c', `command -v ${program}`], { encoding: 'utf8' }).stdout.trim();
    if (found) symlinkSync(found, join(bin, program));
  }
  return bin;
}

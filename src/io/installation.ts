/**
 * How this rsi was installed, for `rsi doctor` (a bug report's first lines) and the update notice
 * (which runs for a release install only, and says how to update that one): the single executable,
 * an npm package (global, in a project, or npx's cache), or a checkout of the sources run through
 * bin/rsi.js (an `npm link`ed clone is one too: Node runs the linked file from its real path).
 * Worked out from where the running code is, never from the environment.
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { isSea } from 'node:sea';
import { fileURLToPath } from 'node:url';

export interface Installation {
  kind: 'executable' | 'npm' | 'checkout';
  /** The binary, or the package folder (the one holding package.json). */
  path: string;
  /** An npm package: installed with -g, as a project's dependency (in `project`), or by npx. */
  npm?: 'global' | 'local' | 'npx';
  /** The project whose node_modules holds a local install. */
  project?: string;
  /**
   * A release of the published package, the only kind the update check runs for: the single
   * executable, or an npm package installed under the name it was built with (the name this bundle
   * carries, its folder `node_modules/<name>` and its package.json agree). Never a checkout, a linked
   * clone, or a copy renamed by an alias install or a fork.
   */
  release: boolean;
}

/** Whether this process is a Node single executable application (node:sea, Node ≥ 21.7 / 20.12). */
export function isSingleExecutable(): boolean {
  try {
    return isSea();
  } catch {
    return false;
  }
}

/** `packageName`: the name this build carries (src/release.ts), which a release's folder must match. */
export function installation(packageName: string, moduleUrl: string = import.meta.url): Installation {
  if (isSingleExecutable() || !moduleUrl) return { kind: 'executable', path: process.execPath, release: true };
  // The bundle is dist/rsi.cjs; the sources (tests) are src/**: the package
  // folder is the nearest one above with a package.json, which is rsi's.
  let dir = dirname(fileURLToPath(moduleUrl));
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return classify(dir, packageName);
}

/** What kind of installation the package folder `dir` is (exported for tests: any folder, any name). */
export function classify(dir: string, packageName: string): Installation {
  const parts = dir.split(sep);
  const at = parts.lastIndexOf('node_modules');
  if (at < 0) return { kind: 'checkout', path: dir, release: false };
  const nodeModules = parts.slice(0, at + 1).join(sep);
  const owner = dirname(nodeModules);
  const npm: Installation['npm'] = parts.includes('_npx') ? 'npx' : existsSync(join(owner, 'package.json')) ? 'local' : 'global';
  return {
    kind: 'npm',
    path: dir,
    npm,
    ...(npm === 'local' ? { project: owner } : {}),
    release: parts.slice(at + 1).join('/') === packageName && manifestName(dir) === packageName && !linked(dir),
  };
}

function manifestName(dir: string): string | undefined {
  try {
    const name = (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown }).name;
    return typeof name === 'string' ? name : undefined;
  } catch {
    return undefined;
  }
}

/** A folder reached through a link (`npm link`, `npm install <folder>`) is someone's clone. */
function linked(dir: string): boolean {
  try {
    return realpathSync(dir) !== dir || existsSync(join(dir, '.git'));
  } catch {
    return true;
  }
}

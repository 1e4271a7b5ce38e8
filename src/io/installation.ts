/**
 * How this rsi was installed, for `rsi doctor` (a bug report's first lines) and the update notice
 * (which says how to update): the single executable, an npm package (global or in a project), or a
 * checkout of the sources run through bin/rsi.js. Worked out from where the running code is, never
 * from the environment.
 */
import { existsSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { isSea } from 'node:sea';
import { fileURLToPath } from 'node:url';

export interface Installation {
  kind: 'executable' | 'npm' | 'checkout';
  /** The binary, or the package folder (the one holding package.json). */
  path: string;
}

/** Whether this process is a Node single executable application (node:sea, Node ≥ 21.7 / 20.12). */
export function isSingleExecutable(): boolean {
  try {
    return isSea();
  } catch {
    return false;
  }
}

export function installation(moduleUrl: string = import.meta.url): Installation {
  if (isSingleExecutable() || !moduleUrl) return { kind: 'executable', path: process.execPath };
  // The bundle is dist/main.js or dist/chunks/*.js; the sources (tests) are src/**: the package
  // folder is the nearest one above with a package.json, which is rsi's.
  let dir = dirname(fileURLToPath(moduleUrl));
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return { kind: dir.split(sep).includes('node_modules') ? 'npm' : 'checkout', path: dir };
}

/**
 * A copy of the package laid out as `npm install -g` lays it (`<prefix>/lib/node_modules/<name>`):
 * a release install, the only kind the update check runs for (src/io/installation.ts). Shared by
 * the tests that need one (the update notice in tmux, the update check through a hostile proxy).
 */
import { copyFileSync, cpSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string };

/** The package under `<prefix>/lib/node_modules/<name>` (package.json, bin/, dist/ without dist/exe); its bin/rsi.js. */
export function releaseInstall(prefix: string): string {
  const dir = join(prefix, 'lib', 'node_modules', ...PKG.name.split('/'));
  mkdirSync(dir, { recursive: true });
  copyFileSync(join(ROOT, 'package.json'), join(dir, 'package.json'));
  cpSync(join(ROOT, 'bin'), join(dir, 'bin'), { recursive: true });
  cpSync(join(ROOT, 'dist'), join(dir, 'dist'), { recursive: true, filter: (from) => !from.startsWith(join(ROOT, 'dist', 'exe')) });
  // Its runtime dependencies, as npm would install them beside it.
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return join(dir, 'bin', 'rsi.js');
}

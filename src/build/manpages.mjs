/**
 * Manual pages from the command tree, at build time: src/commands/help/reference.ts renders them
 * from the same commander tree `--help` shows (so they cannot drift), into dist/man/ (rsi.1 and one
 * rsi-<command>.1 per command). package.json's `man` lists them for npm to install;
 * test/unit/registry.test.ts checks that list against the registry, test/e2e/manuals.test.ts the pages.
 *
 * The tree is TypeScript: it is bundled here, dependencies left to node_modules, into a scratch
 * module under node_modules/.cache and imported.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { commandTreeFromSource } from './scratch.mjs';

export async function writeManPages(root) {
  const { program, version, renderManPages } = await commandTreeFromSource(root, 'manpages', {
    'src/commands/help/reference.ts': ['renderManPages'],
  });
  const pages = renderManPages(program, version);
  const dir = join(root, 'dist/man');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of pages) writeFileSync(join(dir, name), text);
  return readdirSync(dir).sort();
}

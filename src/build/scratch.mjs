/**
 * What the build reads from rsi's TypeScript sources (the command tree for man pages and
 * completion scripts, the declarations for the root's summaries, the JSON Schemas): the named
 * exports bundled by esbuild, dependencies left to node_modules, into a scratch module under
 * node_modules/.cache, imported, and the scratch file removed. One home for the four readers.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

/** `exports`: source path (from the checkout's root) → the names it exports that the caller needs. */
export async function importFromSource(root, name, exports) {
  const scratch = join(root, `node_modules/.cache/rsi-build/${name}.mjs`);
  await build({
    stdin: {
      contents: Object.entries(exports)
        .map(([path, names]) => `export { ${names.join(', ')} } from './${path}';`)
        .join('\n'),
      resolveDir: root,
      loader: 'ts',
    },
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    packages: 'external',
    outfile: scratch,
    logLevel: 'warning',
  });
  try {
    return await import(`${pathToFileURL(scratch).href}?${Date.now()}`);
  } finally {
    rmSync(scratch, { force: true });
  }
}

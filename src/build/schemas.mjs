/**
 * dist/schemas/: the JSON Schema of every command's `--json` document (`rsi help schema <command…>`
 * prints the same), one file a command (`keywords-relations.json`), shipped with the package (dist/
 * is in package.json `files`). The declarations are TypeScript (src/commands/help/schemas.ts): they
 * are bundled here, dependencies left to node_modules, into a scratch module and imported.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

export async function writeSchemas(root) {
  const scratch = join(root, 'node_modules/.cache/rsi-build/schemas.mjs');
  await build({
    stdin: { contents: "export { DOCUMENTS, documentSchema } from './src/commands/help/schemas.ts';", resolveDir: root, loader: 'ts' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    packages: 'external',
    outfile: scratch,
    logLevel: 'warning',
  });
  const { DOCUMENTS, documentSchema } = await import(`${pathToFileURL(scratch).href}?${Date.now()}`);
  const dir = join(root, 'dist/schemas');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const path of Object.keys(DOCUMENTS)) {
    writeFileSync(join(dir, `${path.replace(/ /g, '-')}.json`), `${JSON.stringify(documentSchema(path), null, 2)}\n`);
  }
  rmSync(scratch, { force: true });
  return readdirSync(dir).sort();
}

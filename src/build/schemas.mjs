/**
 * dist/schemas/: the JSON Schema of every command's `--json` document (`rsi help schema <command…>`
 * prints the same), one file a command (`keywords-relations.json`), shipped with the package (dist/
 * is in package.json `files`). The declarations are TypeScript (src/commands/help/schemas.ts): they
 * are bundled here, dependencies left to node_modules, into a scratch module and imported.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { importFromSource } from './scratch.mjs';

export async function writeSchemas(root) {
  const { DOCUMENTS, documentSchema } = await importFromSource(root, 'schemas', {
    'src/commands/help/schemas.ts': ['DOCUMENTS', 'documentSchema'],
  });
  const dir = join(root, 'dist/schemas');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const path of Object.keys(DOCUMENTS)) {
    writeFileSync(join(dir, `${path.replace(/ /g, '-')}.json`), `${JSON.stringify(documentSchema(path), null, 2)}\n`);
  }
  return readdirSync(dir).sort();
}

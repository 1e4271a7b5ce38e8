/**
 * `rsi help schema <command…>`: the JSON Schema of the command's `--json` document (schemas.ts);
 * `rsi help schema` alone lists the commands that have one.
 */
import { UsageError } from '../../errors.js';
import { DOCUMENTS, documentSchema } from './schemas.js';

/**
 * `write` prints the list; `print` the schema, a JSON document (with its text, two-space
 * indented), which `--jq` filters like any other.
 */
export async function printSchema(
  words: readonly string[],
  write: (text: string) => void,
  print: (schema: object, text: string) => Promise<void>,
): Promise<void> {
  const path = words.join(' ').trim().replace(/\s+/g, ' ');
  const known = Object.keys(DOCUMENTS);
  if (path === '') {
    write(`The commands whose --json document has a JSON Schema (rsi help schema <command…>):\n${known.map((k) => `  ${k}\n`).join('')}`);
    return;
  }
  const schema = documentSchema(path);
  if (!schema) {
    const own = path === 'api' || path === 'mcp call' ? ` (${path} prints the service's JSON as it came: no fixed shape)` : '';
    throw new UsageError(`no JSON Schema for "${path}"${own}`, { hint: `the commands with one: ${known.join(', ')}` });
  }
  await print(schema, `${JSON.stringify(schema, null, 2)}\n`);
}

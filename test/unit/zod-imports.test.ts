import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// zod is imported as a static namespace (`import * as z from 'zod'`) and only its members are
// used, so esbuild keeps just those parts (~0.2 MB). `import { z } from 'zod'` or `import('zod')`
// keeps the whole namespace with every locale (~0.76 MB), which every request would then load.
const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');

function* walk(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* walk(path);
    else if (path.endsWith('.ts')) yield path;
  }
}

/** The imports of zod in `text` that keep its whole namespace. */
function wholeZodImports(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/^\s*import\s+(?!type\b)([^;]*?)\s+from\s+['"]zod(?:\/v4)?(?:\/mini)?['"]/gm)) {
    if (!/^\*\s+as\s+\w+$/.test(m[1]!.trim())) found.push(m[0].trim());
  }
  for (const m of text.matchAll(/import\(\s*['"]zod(?:\/[\w/]+)?['"]\s*\)/g)) found.push(m[0]);
  return found;
}

describe('zod imports', () => {
  it('the rule catches a named import, a default import and a dynamic import', () => {
    expect(wholeZodImports("import { z } from 'zod';")).toHaveLength(1);
    expect(wholeZodImports("import z from 'zod';")).toHaveLength(1);
    expect(wholeZodImports("import { z } from 'zod/mini';")).toHaveLength(1);
    expect(wholeZodImports("  const { z } = await import('zod');")).toHaveLength(1);
    expect(wholeZodImports("import * as z from 'zod';\nimport type { z as Z } from 'zod';")).toEqual([]);
  });

  it('every src file imports zod as a static namespace', () => {
    const offenders = [...walk(SRC)].flatMap((file) =>
      wholeZodImports(readFileSync(file, 'utf8')).map((i) => `${relative(SRC, file)}: ${i}`),
    );
    expect(offenders).toEqual([]);
  });
});

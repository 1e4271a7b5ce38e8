import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import * as z from 'zod/mini';

// zod is imported as a static namespace (`import * as z from 'zod'`) and only its members are
// used, so esbuild keeps just those parts (~0.2 MB). `import { z } from 'zod'` or `import('zod')`
// keeps the whole namespace with every locale (~0.76 MB), which every request would then load.
//
// The modules every request loads use zod/mini instead of classic zod: building rsi's schemas
// costs ~12 ms of CPU with classic zod and ~7.5 ms with mini (docs/performance.md, "zod on the
// request path"). Classic zod stays where it is loaded lazily
// or in another process: the MCP server (its SDK brings classic zod anyway) and the sandbox.
const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');

/** The modules on every request's path that build or type zod schemas. */
const REQUEST_PATH = [
  'client/schemas.ts',
  'client/client.ts',
  'commands/shared/flag-schemas.ts',
  'storage/config.ts',
  'storage/credentials.ts',
];
/** Where classic zod may still be imported. */
const CLASSIC_ALLOWED = ['mcp/', 'sandbox/'];

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
  for (const m of text.matchAll(/^\s*import\s+(?!type\b)([^;]*?)\s+from\s+['"]zod(?:\/v4)?(?:[/-]mini)?['"]/gm)) {
    if (!/^\*\s+as\s+\w+$/.test(m[1]!.trim())) found.push(m[0].trim());
  }
  for (const m of text.matchAll(/import\(\s*['"]zod(?:\/[\w/-]+)?['"]\s*\)/g)) found.push(m[0]);
  return found;
}

/** Every static import or re-export of any zod entry point in `text`, as written. */
function zodStatements(text: string): string[] {
  return [...text.matchAll(/^\s*(?:import|export)\s[^;]*?\sfrom\s+['"]zod(?:\/[\w/.-]+)?['"]/gm)].map((m) => m[0].trim());
}

/** What a request-path module may import of zod: the mini namespace (values or types) and the English locale. */
const MINI_ONLY = [/^import (?:type )?\* as \w+ from 'zod\/mini'$/, /^import \{ en \} from 'zod\/locales'$/];

/** The zod imports in `text` that a request-path module must not have (classic zod, or mini not as a namespace). */
function nonMiniImports(text: string): string[] {
  const bad = zodStatements(text).filter((s) => !MINI_ONLY.some((ok) => ok.test(s)));
  for (const m of text.matchAll(/import\(\s*['"]zod[^'"]*['"]\s*\)/g)) bad.push(m[0]);
  return bad;
}

/** The imports of classic zod (`zod`, `zod/v4`, `zod/v3`) in `text`. */
function classicImports(text: string): string[] {
  const classic = /['"]zod(?:\/v4|\/v3)?['"]/;
  return [...zodStatements(text), ...[...text.matchAll(/import\(\s*['"]zod[^'"]*['"]\s*\)/g)].map((m) => m[0])].filter((s) =>
    classic.test(s),
  );
}

describe('zod imports', () => {
  it('the rule catches a named import, a default import and a dynamic import', () => {
    expect(wholeZodImports("import { z } from 'zod';")).toHaveLength(1);
    expect(wholeZodImports("import z from 'zod';")).toHaveLength(1);
    expect(wholeZodImports("import { z } from 'zod/mini';")).toHaveLength(1);
    expect(wholeZodImports("  const { z } = await import('zod');")).toHaveLength(1);
    expect(wholeZodImports("import * as z from 'zod';\nimport type { z as Z } from 'zod';")).toEqual([]);
    expect(wholeZodImports("import * as z from 'zod/mini';")).toEqual([]);
  });

  it('every src file imports zod as a static namespace', () => {
    const offenders = [...walk(SRC)].flatMap((file) =>
      wholeZodImports(readFileSync(file, 'utf8')).map((i) => `${relative(SRC, file)}: ${i}`),
    );
    expect(offenders).toEqual([]);
  });

  it('the request-path rule catches classic zod, a type import of it and mini imported by name', () => {
    expect(nonMiniImports("import * as z from 'zod/mini';\nimport { en } from 'zod/locales';")).toEqual([]);
    expect(nonMiniImports("import type * as z from 'zod/mini';")).toEqual([]);
    expect(nonMiniImports("import * as z from 'zod';")).toHaveLength(1);
    expect(nonMiniImports("import type { z } from 'zod';")).toHaveLength(1);
    expect(nonMiniImports("import * as z from 'zod/v4';")).toHaveLength(1);
    expect(nonMiniImports("import { object } from 'zod/mini';")).toHaveLength(1);
    expect(nonMiniImports("import * as locales from 'zod/locales';")).toHaveLength(1);
    expect(nonMiniImports("export { string } from 'zod';")).toHaveLength(1);
    expect(nonMiniImports("const z = await import('zod/mini');")).toHaveLength(1);
    expect(classicImports("import * as z from 'zod';\nimport type { ZodType } from 'zod/v4';")).toHaveLength(2);
    expect(classicImports("import * as z from 'zod/mini';\nimport { en } from 'zod/locales';")).toEqual([]);
  });

  it('the modules every request loads import zod only as the zod/mini namespace', () => {
    const offenders = REQUEST_PATH.flatMap((file) => nonMiniImports(readFileSync(join(SRC, file), 'utf8')).map((i) => `${file}: ${i}`));
    expect(offenders).toEqual([]);
    // The list stays true: each module listed does use zod/mini.
    for (const file of REQUEST_PATH) expect(readFileSync(join(SRC, file), 'utf8'), file).toMatch(/from 'zod\/mini'/);
  });

  it('classic zod is imported only by the MCP server and the sandbox', () => {
    const offenders = [...walk(SRC)]
      .map((file) => relative(SRC, file).replaceAll('\\', '/'))
      .filter((file) => !CLASSIC_ALLOWED.some((dir) => file.startsWith(dir)))
      .flatMap((file) => classicImports(readFileSync(join(SRC, file), 'utf8')).map((i) => `${file}: ${i}`));
    expect(offenders).toEqual([]);
  });

  // zod/mini registers no locale (its messages read "Invalid input"), and rsi's errors quote zod's
  // English messages, so each module that builds schemas whose messages reach the user registers
  // English itself rather than relying on another module having been loaded first.
  it.each(['client/schemas.ts', 'storage/config.ts', 'commands/shared/flag-schemas.ts'])(
    '%s registers English messages itself',
    async (file) => {
      const config = z.config();
      const kept = config.localeError;
      try {
        config.localeError = undefined;
        vi.resetModules();
        await import(join(SRC, file.replace(/\.ts$/, '.js')));
        expect(z.string().safeParse(1).error?.issues[0]?.message).toBe('Invalid input: expected string, received number');
      } finally {
        config.localeError = kept;
        vi.resetModules();
      }
    },
  );
});

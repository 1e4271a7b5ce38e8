// `rsi help environment` lists every environment variable rsi reads (issue 43): the sources are
// searched for every read — `env.NAME`, `env['NAME']`, and the few places that read names from a
// list (each listed below with the list it reads, and checked to still be there) — and the help's
// two tables must name exactly those, no fewer and no more.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ALSO_READ, ENVIRONMENT } from '../../src/commands/help/environment.js';
import { SECRET_VARIABLES } from '../../src/main.js';
import { PROXY_VARIABLES } from '../../src/http/proxy.js';
import { NO_SYSTEM_CA } from '../../src/http/system-ca.js';
import { CI_VARIABLES } from '../../src/io/ci.js';
import { NPM_SETTINGS } from '../../src/update/registry.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function* sources(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* sources(path);
    else if (/\.(ts|mts|js|mjs|cjs)$/.test(name) && !name.endsWith('.d.ts') && !name.endsWith('.d.mts')) yield path;
  }
}

/** Where a name is read from a list or a constant, not spelled at the read: file → the names. */
const INDIRECT: Record<string, readonly string[]> = {
  'src/http/proxy.ts': [...PROXY_VARIABLES.http, ...PROXY_VARIABLES.https],
  'src/update/notice.ts': ['RSI_NO_UPDATE_NOTIFIER', 'NO_UPDATE_NOTIFIER'],
  // The update notice and `fetched N of M` stay off in CI (io/ci.ts's one list).
  'src/io/ci.ts': [...CI_VARIABLES],
  'src/http/system-ca.ts': [NO_SYSTEM_CA],
  // `rsi config set` notes a variable that wins over the setting just made.
  'src/commands/config/config.ts': ['RSI_PROFILE', 'RSI_PROJECT', 'RSI_NO_PROMPT', 'RSI_TIME', 'RSI_PAGER'],
  // npm's settings, `npm_config_<name>` in any case (Object.entries over the environment).
  'src/update/registry.ts': NPM_SETTINGS.map((name) => `npm_config_${name}`),
  // Hands the whole environment to a --jq program's `$ENV` and `env`, as jq does; reads no name itself.
  'src/io/jq.ts': [],
  // Every secret a variable holds is learnt at start, so no message can echo it (io/secrets.ts).
  'src/main.ts': [...SECRET_VARIABLES],
};
/** Reads by a computed name: `env[name]`, `env[CONSTANT]`, or a walk over every variable. */
const DYNAMIC = /\benv\[(?!['"])([^\]]+)\]|Object\.(?:entries|keys)\(\s*(?:process\.)?env\s*\)/g;

function readsInSources(): { names: Set<string>; dynamic: string[] } {
  const names = new Set<string>();
  const dynamic: string[] = [];
  for (const file of [...sources(join(ROOT, 'src')), join(ROOT, 'bin', 'rsi.js')]) {
    const rel = relative(ROOT, file).replaceAll('\\', '/');
    // The jq worker's `env` is the WebAssembly module's import object, not the process environment.
    if (rel === 'src/io/jq-worker.ts' || rel.startsWith('src/build/')) continue;
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/\benv\??\.([A-Za-z_][A-Za-z0-9_]*)\b|\benv\[['"]([^'"]+)['"]\]/g)) {
      const name = m[1] ?? m[2]!;
      // `env.network`, `env.userAgent`: members of a ports object some modules call env.
      if (/^[A-Z][A-Z0-9_]*$/.test(name) || /^[a-z]+(?:_[a-z]+)+$/.test(name)) names.add(name);
    }
    if ([...text.matchAll(DYNAMIC)].length) dynamic.push(rel);
    for (const name of INDIRECT[rel] ?? []) {
      // The list must still be what the file reads: each name (or npm's setting) is in it.
      expect(text, `${rel} no longer mentions ${name}`).toContain(name.replace(/^npm_config_/, "'"));
      names.add(name);
    }
  }
  return { names, dynamic };
}

const documented = (table: readonly (readonly [string, string])[]) => table.flatMap(([terms]) => terms.split(/,\s*/));
const upper = (names: Iterable<string>) => new Set([...names].map((n) => n.toUpperCase()));

describe('rsi help environment', () => {
  it('every place that reads a variable by a computed name is accounted for', () => {
    expect(readsInSources().dynamic.sort()).toEqual(Object.keys(INDIRECT).sort());
  });

  it('lists every variable rsi reads, and none it does not', () => {
    const read = upper(readsInSources().names);
    const listed = upper([...documented(ENVIRONMENT), ...documented(ALSO_READ)]);
    expect([...read].filter((n) => !listed.has(n)).sort(), 'read but not in `rsi help environment`').toEqual([]);
    expect([...listed].filter((n) => !read.has(n)).sort(), 'in `rsi help environment` but read nowhere').toEqual([]);
    // The issue's own example.
    expect(listed.has('RSI_NO_UPDATE_NOTIFIER')).toBe(true);
  });

  it('would notice a new read (the search works)', () => {
    const sample = "const x = env.RSI_SOMETHING_NEW; const y = ctx.env['OTHER_VAR']; env.userAgent;";
    const found = [...sample.matchAll(/\benv\??\.([A-Za-z_][A-Za-z0-9_]*)\b|\benv\[['"]([^'"]+)['"]\]/g)].map((m) => m[1] ?? m[2]);
    expect(found).toEqual(['RSI_SOMETHING_NEW', 'OTHER_VAR', 'userAgent']);
    expect([...'env[name]; Object.entries(env)'.matchAll(DYNAMIC)].length).toBe(2);
  });
});

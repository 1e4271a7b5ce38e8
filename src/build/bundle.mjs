#!/usr/bin/env node
/**
 * `npm run build`: src/main.ts → dist/ (ES modules, split so each command loads what it uses), and
 * jq's WebAssembly beside it. docs/architecture.md ("The bundle") and docs/performance.md explain
 * the choices; the ones that are not esbuild's defaults:
 *
 * - Node's built-ins are `require`d (through the banner's createRequire, itself from
 *   process.getBuiltinModule), never imported: an ES import of a built-in builds its ESM facade,
 *   which reads every export, lazy ones included (`node:process` ~4 ms on Node 24 against 0.08 ms
 *   for require, `node:module` loads the source-map support, `node:http` Node's own undici).
 */
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { writeManPages } from './manpages.mjs';
import { writeSchemas } from './schemas.mjs';
import { commandSummaries } from './summaries.mjs';
import { completionScripts } from './completions.mjs';
import { bundledPackages, jqWasmNotices, renderNotices, renderSbom, sbomSubject } from './notices.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** esbuild's options for dist/ (exported for the test that checks the notice file against them). */
export const options = {
  entryPoints: [join(ROOT, 'src/main.ts')],
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  external: ['@napi-rs/keyring', 'open'],
  outdir: join(ROOT, 'dist'),
  chunkNames: 'chunks/[name]-[hash]',
  logLevel: 'warning',
  legalComments: 'external',
  banner: { js: "const require = globalThis.process.getBuiltinModule('node:module').createRequire(import.meta.url);" },
  metafile: true,
};

/**
 * The `--jq` engine's thread (src/io/jq-worker.ts): one CommonJS file with jq-wasm's glue inside,
 * started only by --jq. CommonJS so that the single executable can run the same text as an `eval`
 * worker; jq-wasm's CommonJS entry because its ESM one reads import.meta.url.
 */
export const workerOptions = {
  entryPoints: [join(ROOT, 'src/io/jq-worker.ts')],
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node22',
  alias: { 'jq-wasm': join(ROOT, 'node_modules/jq-wasm/dist/index.cjs') },
  outfile: join(ROOT, 'dist/jq-worker.cjs'),
  logLevel: 'warning',
  legalComments: 'eof',
  metafile: true,
};

/**
 * The root's help screen (src/commands/help/root-screen.ts) as one small CommonJS file, which
 * bin/rsi.js requires for `rsi`, `rsi --help`, `rsi -h` and `rsi help` before anything else loads.
 */
export const rootHelpOptions = {
  entryPoints: [join(ROOT, 'src/commands/help/root-screen.ts')],
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node22',
  outfile: join(ROOT, 'dist/root-help.cjs'),
  logLevel: 'warning',
  legalComments: 'none',
};

/**
 * The packagers' switch: `RSI_BUILD_NO_UPDATE_NOTIFIER=1 npm run build` (or `build:exe`) makes a
 * build that never shows the update notice nor asks the registry (src/update/notice.ts), for a
 * distribution whose own package manager updates rsi. Unset, empty or `0`: the notice is built in.
 */
export function notifierDefine(env = process.env) {
  const value = env.RSI_BUILD_NO_UPDATE_NOTIFIER ?? '';
  return value !== '' && value !== '0' ? { RSI_UPDATE_NOTIFIER: 'false' } : {};
}

/** The notice file's name in dist/ (it ships in the tarball with the rest of dist/). */
export const NOTICES = 'THIRD-PARTY-NOTICES.txt';

/** The SBOM's name in dist/: the same packages as the notices, as CycloneDX JSON for scanners. */
export const SBOM = 'sbom.cdx.json';

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  // Chunk names carry a content hash: without this, every rebuild would leave the last build's
  // chunks beside the new ones (and the tests that read dist/chunks would read stale code).
  rmSync(join(ROOT, 'dist/chunks'), { recursive: true, force: true });
  // The root help's list of commands, read from the declarations here, so `rsi --help` loads no
  // command module (src/commands/summaries.ts). A string: esbuild inlines it where it is read,
  // where an array would become a module every other module imports.
  const summaries = JSON.stringify(await commandSummaries(ROOT));
  // The completion scripts, rendered from the whole tree here, so `rsi completion bash` loads no
  // other command (src/commands/completion/scripts.ts); RSI_COMPLETION_PRERENDERED tells
  // src/program.ts so without putting the scripts in its chunk.
  const completions = JSON.stringify(await completionScripts(ROOT));
  const { metafile } = await build({
    ...options,
    define: {
      RSI_COMMAND_SUMMARIES: JSON.stringify(summaries),
      RSI_COMPLETION_SCRIPTS: JSON.stringify(completions),
      RSI_COMPLETION_PRERENDERED: 'true',
      ...notifierDefine(),
    },
  });
  const worker = await build(workerOptions);
  // The root's help screen alone, with the same command list: bin/rsi.js prints it before loading
  // main.js (src/commands/help/root-screen.ts), as it answers --version.
  await build({ ...rootHelpOptions, define: { RSI_COMMAND_SUMMARIES: JSON.stringify(summaries) } });
  requireBuiltins(join(ROOT, 'dist'));
  mkdirSync(join(ROOT, 'dist'), { recursive: true });
  copyFileSync(join(ROOT, 'node_modules/jq-wasm/dist/build/jq.wasm'), join(ROOT, 'dist/jq.wasm'));
  // Every package esbuild put in dist/ (the main bundle and the jq worker), with its licence text,
  // and jq's and Oniguruma's for jq.wasm.
  const inputs = { inputs: { ...metafile.inputs, ...worker.metafile.inputs } };
  const notices = [...bundledPackages(inputs, ROOT), ...jqWasmNotices()];
  writeFileSync(join(ROOT, 'dist', NOTICES), renderNotices('Third-party notices for rsi (dist/)', notices));
  // The same list for scanners (npm sbom and npm audit see only what npm installed, not the bundle).
  writeFileSync(join(ROOT, 'dist', SBOM), renderSbom(sbomSubject(ROOT), notices));
  // dist/man/: rsi.1 and a page per command, from the command tree (package.json `man` lists them).
  await writeManPages(ROOT);
  // dist/schemas/: the JSON Schema of each command's --json document (rsi help schema prints the same).
  await writeSchemas(ROOT);
}

/**
 * Rewrites every import of a Node built-in in the output to a `require` (the banner's), so no ESM
 * facade is built. Static forms: `import * as a`, `import a`, `import a, { b }`, `import { b, c as
 * d }`; dynamic: `import("node:x")` becomes a promise of the required module (the same members).
 * Fails the build if one is left, so a new form esbuild emits cannot slip through unseen.
 */
function requireBuiltins(dir) {
  const STATIC = /(?<![\w$.])import\s*(?:\*\s*as\s+([\w$]+)|([\w$]+)(?:\s*,\s*\{([^}]*)\})?|\{([^}]*)\})\s*from\s*"(node:[^"]+)";/g;
  const DYNAMIC = /\bimport\("(node:[^"]+)"\)/g;
  for (const file of readdirSync(dir, { recursive: true })) {
    if (!String(file).endsWith('.js')) continue;
    const path = join(dir, String(file));
    const text = readFileSync(path, 'utf8');
    const out = text
      .replace(STATIC, (_all, ns, def, defNamed, named, id) => {
        const req = `require(${JSON.stringify(id)})`;
        if (ns) return `const ${ns} = ${req};`;
        if (def) return defNamed ? `const ${def} = ${req};\nconst ${destructure(defNamed, def)} = ${def};` : `const ${def} = ${req};`;
        return `const ${destructure(named, req)} = ${req};`;
      })
      .replace(DYNAMIC, (_all, id) => `Promise.resolve().then(() => require(${JSON.stringify(id)}))`);
    const left = [...out.matchAll(/(?<![\w$.])import\s*[^;()]*?from\s*"node:[^"]*"|(?<![\w$.])import\("node:[^"]*"\)/g)].map((m) => m[0]);
    if (left.length) throw new Error(`${path}: built-in imports left after the rewrite:\n${left.join('\n')}`);
    if (out !== text) writeFileSync(path, out);
  }
}

/** `{ a, b as c, default as d }` → `{ a, b: c }` (a built-in's default is the module itself). */
function destructure(list, source) {
  const parts = list
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => {
      const [name, as] = p.split(/\s+as\s+/);
      if (name === 'default') throw new Error(`default import of a built-in by name (${p}) from ${source}: write it as a default import`);
      return as ? `${name}: ${as}` : name;
    });
  return `{ ${parts.join(', ')} }`;
}

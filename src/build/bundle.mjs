#!/usr/bin/env node
/**
 * `npm run build`: src/main.ts → dist/rsi.cjs (one CommonJS script, which bin/rsi.js compiles
 * with V8's code cache through dist/boot.cjs, src/exe/npm.ts), and jq's WebAssembly and thread
 * beside it. docs/architecture.md ("The bundle") and docs/performance.md explain the choices; the
 * ones that are not esbuild's defaults:
 *
 * - One file, no splitting: a module reached by a dynamic import is evaluated only when imported
 *   (esbuild's lazy wrappers), so a run still evaluates only its own command; it is compiled as one
 *   `vm.Script`, whose code cache, made after a run, holds what the run compiled.
 * - No dynamic import() at run time (a `vm.Script` has none): every import() becomes a require().
 * - ASCII only, so the loader reads it as a one-byte string (`scriptText`).
 */
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { writeManPages } from './manpages.mjs';
import { writeSchemas } from './schemas.mjs';
import { commandSummaries } from './summaries.mjs';
import { completionScripts } from './completions.mjs';
import { bundledPackages, jqWasmNotices, renderNotices, renderSbom, sbomSubject } from './notices.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * Node's built-ins as rsi's packages import them, one home for the npm bundle and the binary's.
 *
 * - `import path from 'node:path'` in a package's ES module becomes esbuild's
 *   `__toESM(require('node:path'), 1)`: a new object with a getter for every export of the
 *   module, made when the package loads (commander makes four of them, env-paths three; node:fs
 *   has 105 exports). A built-in's default export is the module itself, so such a line is read as
 *   `const path = require('node:path')`, which is what it means.
 * - commander loads node:child_process when it loads (it spawns subcommands that are programs,
 *   which rsi has none of): it gets src/build/commander-child-process.cjs, which loads it on first
 *   use (node:child_process brings net, dgram and pipe modules).
 */
export const builtinImports = {
  name: 'builtin-imports',
  setup(build) {
    build.onResolve({ filter: /^node:child_process$/ }, (args) =>
      /[\\/]node_modules[\\/]commander[\\/]/.test(args.importer)
        ? { path: join(ROOT, 'src/build/commander-child-process.cjs') }
        : undefined,
    );
    build.onLoad({ filter: /[\\/]node_modules[\\/].*\.m?js$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      const line = /^import ([\w$]+) from (['"])(node:[\w/]+)\2;?[ \t]*$/gm;
      if (!line.test(text)) return undefined;
      return { contents: text.replace(line, 'const $1 = require("$3");'), loader: 'js', resolveDir: dirname(args.path) };
    });
  },
};

/**
 * What only `dist/rsi-full.cjs` holds: the MCP SDK (with ajv and zod's classic API, 40 % of the
 * bundle) and the sandbox's server, reached by dynamic imports only (src/mcp/server.ts, client.ts,
 * args.ts; src/commands/sandbox/sandbox.ts). `dist/rsi.cjs`, which every other run compiles, has a
 * stub in their place that fails with an internal error; the loaders give the runs that use them the
 * full bundle (`needsFullBundle`, src/exe/load.ts), and docs/performance.md says what it saves.
 */
export const FULL_ONLY = /^(@modelcontextprotocol\/sdk\/.*|.*[\\/]src[\\/]sandbox[\\/](server|faults)\.js)$/;

/** esbuild's plugin for `dist/rsi.cjs`: a dynamic import of what `FULL_ONLY` names loads a stub that says so. */
export const coreOnly = {
  name: 'core-only',
  setup(build) {
    build.onResolve({ filter: /./ }, (args) => {
      if (args.kind !== 'dynamic-import') return undefined;
      const local = args.path.startsWith('.');
      const path = local ? join(args.resolveDir, args.path) : args.path;
      if (!FULL_ONLY.test(path)) return undefined;
      // Named as it reads in the message (and the source map): src/sandbox/server.js, @modelcontextprotocol/sdk/….
      return { path: local ? relative(ROOT, path).replaceAll('\\', '/') : path, namespace: 'rsi-full-only' };
    });
    build.onLoad({ filter: /./, namespace: 'rsi-full-only' }, (args) => ({
      contents: `throw new Error(${JSON.stringify(`internal: ${args.path} is only in dist/rsi-full.cjs, which this run did not load (needsFullBundle, src/exe/load.ts)`)});`,
      loader: 'js',
    }));
  },
};

/**
 * rsi's bundle minified, names too, in the npm package and the binary: 1.7 MB to 1.2 MB that
 * every run reads and keeps as a string, and a smaller code cache (docs/performance.md, "What a
 * start touches"). Nothing rsi prints depends on a class or function name.
 */
export const MINIFY = { minifyWhitespace: true, minifySyntax: true, minifyIdentifiers: true };

/** esbuild's options for dist/rsi.cjs (exported for the test that checks the notice file against them). */
export const options = {
  entryPoints: [join(ROOT, 'src/main.ts')],
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node22',
  // A vm.Script has no dynamic import, not even of Node's built-ins (rsi imports node:zlib … lazily).
  supported: { 'dynamic-import': false },
  // Required from the package's node_modules (bin/rsi.js's require): the keychain's addon, and
  // `open`, which finds its own xdg-open beside itself.
  external: ['@napi-rs/keyring', 'open'],
  outfile: join(ROOT, 'dist/rsi.cjs'),
  ...MINIFY,
  // A `--debug` stack trace names minified functions: dist/rsi.cjs.map (not packed) maps them back.
  sourcemap: 'external',
  sourcesContent: false,
  logLevel: 'warning',
  legalComments: 'external',
  // The bundle's own URL where the sources read import.meta.url (jq's files beside it, the
  // installation's folder): __filename is the loader's (src/exe/load.ts).
  banner: { js: 'var RSI_MODULE_URL = require("node:url").pathToFileURL(__filename).href;' },
  metafile: true,
  plugins: [builtinImports],
};

/** The full bundle, for the runs that need what `FULL_ONLY` names (its licence file is `rsi-full.cjs.LEGAL.txt`). */
export const FULL_OUTFILE = join(ROOT, 'dist/rsi-full.cjs');

/** dist/boot.cjs: the npm package's loader (src/exe/npm.ts), which bin/rsi.js requires. */
export const bootOptions = {
  entryPoints: [join(ROOT, 'src/exe/npm.ts')],
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node22',
  outfile: join(ROOT, 'dist/boot.cjs'),
  logLevel: 'warning',
};

/**
 * A one-file CommonJS bundle as the loaders compile it (src/exe/load.ts, `compileBody`): wrapped
 * in the function expression they call, `(function (exports, require, module, __filename) {…})`,
 * so that V8 compiles the very string read from disk (joining the wrapper at run time made a second
 * copy); ASCII, so the loaders read it as latin1, a one-byte string (a copy, no decoding, half the
 * heap of a two-byte string); and checked to import nothing at run time (a real import() fails in
 * a vm.Script). esbuild escapes what is outside ASCII in strings, template literals and names; what
 * is left is in comments and regular expression literals, where a \u escape means the same
 * character. `first` is a comment line put before the wrapper.
 */
export function scriptText(file, first = '') {
  const text = readFileSync(file, 'utf8').replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  const code = text
    .split('\n')
    .filter((line) => !/^\s*(\*|\/\/)/.test(line))
    .join('\n');
  const stray = [...code.matchAll(/\bimport\(\s*["'`]([^"'`]+)/g)].map((m) => m[1]);
  if (stray.length) throw new Error(`${file} still imports at run time: ${stray.join(', ')}`);
  return `${first}(function (exports, require, module, __filename) {${text}\n})`;
}

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
  // What earlier builds left that nothing loads: the ES module build, and rsi.cjs's licence file
  // (the licence comments are in the MCP SDK's dependencies, now only in rsi-full.cjs).
  for (const old of ['chunks', 'main.js', 'rsi.cjs.LEGAL.txt']) rmSync(join(ROOT, 'dist', old), { recursive: true, force: true });
  // The root help's list of commands, read from the declarations here, so `rsi --help` loads no
  // command module (src/commands/summaries.ts). A string: esbuild inlines it where it is read,
  // where an array would become a module every other module imports.
  const summaries = JSON.stringify(await commandSummaries(ROOT));
  // The completion scripts, rendered from the whole tree here, so `rsi completion bash` loads no
  // other command (src/commands/completion/scripts.ts); RSI_COMPLETION_PRERENDERED tells
  // src/program.ts so without putting the scripts in its chunk.
  const completions = JSON.stringify(await completionScripts(ROOT));
  const define = {
    RSI_COMMAND_SUMMARIES: JSON.stringify(summaries),
    RSI_COMPLETION_SCRIPTS: JSON.stringify(completions),
    RSI_COMPLETION_PRERENDERED: 'true',
    'import.meta.url': 'RSI_MODULE_URL',
    ...notifierDefine(),
  };
  // The full bundle (every module) and rsi.cjs without what FULL_ONLY names, which the other runs compile.
  const { metafile } = await build({ ...options, outfile: FULL_OUTFILE, define });
  await build({ ...options, define, plugins: [...options.plugins, coreOnly] });
  // The first line of each names the pair by their content: the loader keys its code caches on it
  // (V8 itself checks only the source's length), and keeps the caches of both.
  const texts = [scriptText(options.outfile), scriptText(FULL_OUTFILE)];
  const hash = createHash('sha256').update(texts.join('\0')).digest('hex').slice(0, 32);
  for (const file of [options.outfile, FULL_OUTFILE]) writeFileSync(file, scriptText(file, `// rsi-bundle ${hash}\n`));
  await build(bootOptions);
  const worker = await build(workerOptions);
  // The root's help screen alone, with the same command list: bin/rsi.js prints it before loading
  // the bundle (src/commands/help/root-screen.ts), as it answers --version.
  await build({ ...rootHelpOptions, define: { RSI_COMMAND_SUMMARIES: JSON.stringify(summaries) } });
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

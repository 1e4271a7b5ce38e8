/**
 * What the build reads from rsi's TypeScript sources (the command tree for man pages and
 * completion scripts, the declarations for the root's summaries, the JSON Schemas): the named
 * exports bundled by esbuild, dependencies left to node_modules, into a scratch module under
 * node_modules/.cache, imported, and the scratch file removed. One home for the four readers.
 */
import { readFileSync, rmSync } from 'node:fs';
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

/**
 * The command tree as the build renders it (man pages, completion scripts), the package's version,
 * and the other `exports` the caller names, read from the sources in one scratch module.
 */
export async function commandTreeFromSource(root, name, exports) {
  const { loadProgram, createContext, ...rest } = await importFromSource(root, name, {
    'src/program.ts': ['loadProgram'],
    'src/context.ts': ['createContext'],
    ...exports,
  });
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  return { program: await loadProgram(buildTimeContext(createContext, version)), version, ...rest };
}

/**
 * The context the build renders the command tree with (man pages, completion scripts): building the
 * tree reads no settings, files or network. A very wide "terminal": the text commands add to their
 * help is re-flowed to the terminal's width, and roff fills it to the reader's.
 */
function buildTimeContext(createContext, version) {
  const sink = { write: () => true };
  const io = { stdin: undefined, stdout: sink, stderr: sink, stdinIsTTY: false, stdoutIsTTY: true, stderrIsTTY: false, columns: 10_000 };
  Object.assign(io, { color: false, colorStderr: false });
  return createContext({ io, env: {}, signal: new AbortController().signal, version, flags: () => ({}) });
}

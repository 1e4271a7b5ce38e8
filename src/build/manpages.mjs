/**
 * Manual pages from the command tree, at build time: src/commands/help/reference.ts renders them
 * from the same commander tree `--help` shows (so they cannot drift), into dist/man/ (rsi.1 and one
 * rsi-<command>.1 per command). package.json's `man` lists them for npm to install;
 * test/unit/manpages.test.ts checks that list against what is built.
 *
 * The tree is TypeScript: it is bundled here, dependencies left to node_modules, into a scratch
 * module under node_modules/.cache and imported.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { importFromSource } from './scratch.mjs';

export async function writeManPages(root) {
  const { loadProgram, createContext, renderManPages } = await importFromSource(root, 'manpages', {
    'src/program.ts': ['loadProgram'],
    'src/context.ts': ['createContext'],
    'src/commands/help/reference.ts': ['renderManPages'],
  });
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const pages = renderManPages(await loadProgram(buildTimeContext(createContext, version)), version);
  const dir = join(root, 'dist/man');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of pages) writeFileSync(join(dir, name), text);
  return readdirSync(dir).sort();
}

/**
 * The context the build renders the command tree with (man pages, completion scripts): building the
 * tree reads no settings, files or network. A very wide "terminal": the text commands add to their
 * help is re-flowed to the terminal's width, and roff fills it to the reader's.
 */
export function buildTimeContext(createContext, version) {
  const sink = { write: () => true };
  const io = { stdin: undefined, stdout: sink, stderr: sink, stdinIsTTY: false, stdoutIsTTY: true, stderrIsTTY: false, columns: 10_000 };
  Object.assign(io, { color: false, colorStderr: false });
  return createContext({ io, env: {}, signal: new AbortController().signal, version, flags: () => ({}) });
}

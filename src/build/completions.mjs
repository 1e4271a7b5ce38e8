/**
 * The completion scripts, at build time (src/commands/completion/scripts.ts): `script` from
 * src/commands/completion/completion.ts renders each shell's from the whole command tree, as
 * `rsi completion <shell>` would at run time, and the bundle gets them as RSI_COMPLETION_SCRIPTS,
 * so printing one loads no other command (issue 45). Bundled from src into a scratch module, as
 * the man pages are (manpages.mjs).
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { buildTimeContext } from './manpages.mjs';

export const SHELLS = ['bash', 'zsh', 'fish', 'powershell'];

export async function completionScripts(root) {
  const scratch = join(root, 'node_modules/.cache/rsi-build/completions.mjs');
  await build({
    stdin: {
      contents: [
        "export { loadProgram } from './src/program.ts';",
        "export { createContext } from './src/context.ts';",
        "export { script } from './src/commands/completion/completion.ts';",
      ].join('\n'),
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
  const { loadProgram, createContext, script } = await import(`${pathToFileURL(scratch).href}?${Date.now()}`);
  rmSync(scratch, { force: true });
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const program = await loadProgram(buildTimeContext(createContext, version));
  return Object.fromEntries(SHELLS.map((shell) => [shell, script(shell, program)]));
}

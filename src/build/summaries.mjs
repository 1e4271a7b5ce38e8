/**
 * The root help's table of commands (src/commands/summaries.ts), at build time: the registry is
 * bundled from src into a scratch module, every command loaded, and each top-level declaration's
 * path, description and hidden flag returned for esbuild's `define` of RSI_COMMAND_SUMMARIES.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

export async function commandSummaries(root) {
  const scratch = join(root, 'node_modules/.cache/rsi-build/summaries.mjs');
  await build({
    stdin: {
      contents: [
        "export { loadRegistry } from './src/commands/registry.ts';",
        "export { summariesOf } from './src/commands/summaries.ts';",
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
  const { loadRegistry, summariesOf } = await import(`${pathToFileURL(scratch).href}?${Date.now()}`);
  rmSync(scratch, { force: true });
  return summariesOf(await loadRegistry());
}

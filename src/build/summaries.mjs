/**
 * The root help's table of commands (src/commands/summaries.ts), at build time: the registry is
 * bundled from src into a scratch module, every command loaded, and each top-level declaration's
 * path, description and hidden flag returned for esbuild's `define` of RSI_COMMAND_SUMMARIES.
 */
import { importFromSource } from './scratch.mjs';

export async function commandSummaries(root) {
  const { loadRegistry, summariesOf } = await importFromSource(root, 'summaries', {
    'src/commands/registry.ts': ['loadRegistry'],
    'src/commands/summaries.ts': ['summariesOf'],
  });
  return summariesOf(await loadRegistry());
}

/**
 * What the root's help screen lists of each top-level command: its word, its description and
 * whether it is hidden, in help order. Read from the declarations (loading every command module)
 * unless the build has put them in: `npm run build` reads the same declarations once and defines
 * RSI_COMMAND_SUMMARIES (src/build/summaries.mjs), so `rsi --help` loads no command's code. One
 * fact, one home: the declarations; the table in dist/ is generated from them, never written.
 */
import { loadRegistry } from './registry.js';

export interface CommandSummary {
  name: string;
  description: string;
  hidden?: boolean | undefined;
}

/** The summaries as JSON text, where the build has defined them. */
declare const RSI_COMMAND_SUMMARIES: string | undefined;

/** The summaries as the build generated them, or read from the declarations (tests, the single executable). */
export async function commandSummaries(): Promise<readonly CommandSummary[]> {
  if (typeof RSI_COMMAND_SUMMARIES !== 'undefined') return JSON.parse(RSI_COMMAND_SUMMARIES) as CommandSummary[];
  return summariesOf(await loadRegistry());
}

/** A summary per registry entry: its declaration's path, description and hidden flag. */
export function summariesOf(
  entries: readonly { command: { path: string; description: string; hidden?: boolean | undefined } }[],
): CommandSummary[] {
  return entries.map(({ command }) => ({
    name: command.path,
    description: command.description,
    ...(command.hidden ? { hidden: true } : {}),
  }));
}

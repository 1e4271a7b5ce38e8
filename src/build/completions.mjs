/**
 * The completion scripts, at build time (src/commands/completion/scripts.ts): `script` from
 * src/commands/completion/completion.ts renders each shell's from the whole command tree, as
 * `rsi completion <shell>` would at run time, and the bundle gets them as RSI_COMPLETION_SCRIPTS,
 * so printing one loads no other command (issue 45). Read from src as the man pages are
 * (scratch.mjs).
 */
import { commandTreeFromSource } from './scratch.mjs';

export const SHELLS = ['bash', 'zsh', 'fish', 'powershell'];

export async function completionScripts(root) {
  const { program, script } = await commandTreeFromSource(root, 'completions', {
    'src/commands/completion/completion.ts': ['script'],
  });
  return Object.fromEntries(SHELLS.map((shell) => [shell, script(shell, program)]));
}

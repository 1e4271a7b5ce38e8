/**
 * The four completion scripts as `npm run build` rendered them from the whole command tree
 * (src/build/completions.mjs defines RSI_COMPLETION_SCRIPTS), so `rsi completion bash` prints one
 * without loading every command (issue 45: the tree is a chunk per command since round 5). One
 * home: the scripts are rendered by `script` in completion.ts, at build time or, where the build
 * did not define them (tests on src, the single executable), at run time from the tree.
 * test/unit/completion.test.ts checks that dist prints what the tree renders.
 */
declare const RSI_COMPLETION_SCRIPTS: string | undefined;

/** The script the build rendered for this shell, if it rendered them. */
export function prerendered(shell: string): string | undefined {
  if (typeof RSI_COMPLETION_SCRIPTS === 'undefined') return undefined;
  return (JSON.parse(RSI_COMPLETION_SCRIPTS) as Record<string, string>)[shell];
}

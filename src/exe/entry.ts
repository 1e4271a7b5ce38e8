/**
 * The single executable's entry (src/build/exe.mjs bundles it as one CommonJS script): bin/rsi.js
 * without its two caches. The compile cache is replaced by the code cache Node embeds at build
 * time; the help cache is keyed by the bundle file's text, which the binary does not have, so
 * help is rendered by commander each time (same bytes).
 */
import { main } from '../main.js';

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    // main() maps every error itself; this is the last resort bin/rsi.js gets from Node.
    process.stderr.write(`rsi: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);

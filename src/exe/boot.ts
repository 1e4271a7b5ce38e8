/**
 * The single executable's main script (src/build/exe.mjs): a few lines the SEA runs first. rsi's
 * bundle is the asset `rsi.cjs` (`rsi-full.cjs` for the runs that need the MCP SDK or the sandbox:
 * `needsFullBundle`), compiled only when a command needs it (src/exe/load.ts), with the
 * code cache the build trained (the asset `rsi.cache`, `rsi-full.cache`; the host's target only): the functions a
 * help screen and a GET run are in it already compiled, where the SEA's own code cache holds only
 * what V8 compiles before the script runs (docs/performance.md).
 *
 * `--version` is answered here, as bin/rsi.js answers it, before the bundle is even read: the
 * version is the build's (RSI_VERSION, package.json's, set by esbuild's define), and no module is
 * loaded for it; so is the root's help screen (src/commands/help/root-screen.ts).
 */
import { answerRootHelp } from '../commands/help/root-screen.js';
import { BODY, CACHE, compileBody, FULL_BODY, FULL_CACHE, needsFullBundle } from './load.js';
import { run } from './run.js';

declare const RSI_VERSION: string;

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) process.stdout.write(`${RSI_VERSION}\n`);
else if (argv.length <= 1 && answerRootHelp(argv)) {
  // `rsi`, `rsi --help`, `rsi -h`, `rsi help`: the root's screen, without the bundle (as bin/rsi.js).
} else {
  const sea = process.getBuiltinModule('node:sea');
  // The MCP SDK and the sandbox's server are only in the full bundle, for the runs that use them.
  const [body, trained] = needsFullBundle(argv) ? [FULL_BODY, FULL_CACHE] : [BODY, CACHE];
  // A cross-built binary has no trained cache: made by the host's Node, it only fits the host's.
  const cache = sea.getAssetKeys().includes(trained) ? new Uint8Array(sea.getRawAsset(trained) as ArrayBuffer) : undefined;
  // The build made the script ASCII: latin1 reads it as the one-byte string it is, without decoding.
  run(compileBody(Buffer.from(sea.getRawAsset(body) as ArrayBuffer).toString('latin1'), cache, body).main);
}

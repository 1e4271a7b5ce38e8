/**
 * How rsi's one-file bundle is compiled, one home for the three that must do it alike: the single
 * executable's boot script (src/exe/boot.ts), the build's training run (src/exe/train.ts) and the
 * npm package's loader (src/exe/npm.ts, run by bin/rsi.js). V8 accepts a code cache only for the
 * very source it was made from, so all of them wrap the text the same way.
 */
import type vm from 'node:vm';
import type { main, v8FlagsChanged } from '../main.js';

/** The single executable's asset names (src/build/exe.mjs embeds them). */
export const BODY = 'rsi.cjs';
export const CACHE = 'rsi.cache';
export const FULL_BODY = 'rsi-full.cjs';
export const FULL_CACHE = 'rsi-full.cache';

/**
 * Whether a run needs the full bundle (`rsi-full.cjs`), which alone holds the MCP SDK and the
 * sandbox's server (`FULL_ONLY` in src/build/bundle.mjs): `rsi mcp …`, `rsi scoreboard` and
 * `projects create --from-brief` talk MCP, `rsi sandbox` serves. Any argument before `--` that is
 * one of those words or that flag, wherever it stands (`rsi help mcp`, `--profile sandbox`): a run
 * that did not need it only compiles the larger script. Every other run compiles `rsi.cjs`, 40 %
 * smaller (docs/performance.md); what it lacks fails there with an internal error, never silently.
 */
export function needsFullBundle(argv: readonly string[]): boolean {
  for (const arg of argv) {
    if (arg === '--') return false;
    if (arg === 'mcp' || arg === 'scoreboard' || arg === 'sandbox' || arg === '--from-brief' || arg.startsWith('--from-brief='))
      return true;
  }
  return false;
}

export interface Body {
  readonly script: vm.Script;
  readonly main: typeof main;
  /** Whether the run changed V8's flags (then a code cache made after it would not fit the next run). */
  readonly v8FlagsChanged: typeof v8FlagsChanged;
}

/**
 * Compiles and evaluates the bundle, with V8's code cache when one is given; a cache V8 rejects
 * (another Node build) only costs the saving (`script.cachedDataRejected` says so). The bundle's
 * text is already the function expression `(function (exports, require, module, __filename) {…})`
 * (the build wraps it: `scriptText` in src/build/bundle.mjs), so V8 compiles the very string that
 * was read, with no second copy made by joining a wrapper to it (1.7 MB of heap). `require` is
 * the caller's: inside the binary, the SEA's, which loads Node's built-ins; on the npm path,
 * bin/rsi.js's, which also finds the package's dependencies. `filename` is the script's name in
 * stack traces and its `__filename` (the npm bundle finds jq's files beside itself from it).
 */
export function compileBody(source: string, cachedData?: Uint8Array, filename: string = BODY): Body {
  return runBody(compileScript(source, cachedData, filename), filename);
}

/** The bundle compiled, not yet run (`compileBody`'s first half). */
export function compileScript(source: string, cachedData?: Uint8Array, filename: string = BODY): vm.Script {
  // From getBuiltinModule, not an import: the boot script loads node:vm only when it compiles.
  const { Script } = process.getBuiltinModule('node:vm');
  return new Script(source, { filename, cachedData });
}

/** The compiled bundle evaluated (`compileBody`'s second half): its exports. */
export function runBody(script: vm.Script, filename: string = BODY): Body {
  const module = { exports: {} as { main: typeof main; v8FlagsChanged: typeof v8FlagsChanged } };
  script.runInThisContext()(module.exports, require, module, filename);
  return { script, main: module.exports.main, v8FlagsChanged: module.exports.v8FlagsChanged };
}

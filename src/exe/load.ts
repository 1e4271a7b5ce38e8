/**
 * How the single executable compiles rsi's bundle, one home for the two that must do it alike: the
 * binary's boot script (src/exe/boot.ts) and the build's training run (src/exe/train.ts). The
 * bundle travels as the SEA asset `rsi.cjs` and V8's code cache for it as `rsi.cache`; V8 accepts
 * a cache only for the very source it was made from, so both wrap the text the same way and give
 * it the same file name.
 */
import type vm from 'node:vm';
import type { main } from '../main.js';

/** The asset names (src/build/exe.mjs embeds them). */
export const BODY = 'rsi.cjs';
export const CACHE = 'rsi.cache';

export interface Body {
  readonly script: vm.Script;
  readonly main: typeof main;
}

/**
 * Compiles and evaluates the bundle (a CommonJS script whose exports are src/main.ts's), with V8's
 * code cache when one is given; a cache V8 rejects (another Node build) only costs the saving.
 * `require` is the caller's: inside the binary, the SEA's, which loads Node's built-ins.
 */
export function compileBody(source: string, cachedData?: Uint8Array): Body {
  // From getBuiltinModule, not an import: the boot script loads node:vm only when it compiles.
  const { Script } = process.getBuiltinModule('node:vm');
  const script = new Script(`(function (exports, require, module) {${source}\n})`, { filename: BODY, cachedData });
  const module = { exports: {} as { main: typeof main } };
  script.runInThisContext()(module.exports, require, module);
  return { script, main: module.exports.main };
}

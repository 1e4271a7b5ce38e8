/**
 * `--jq <expr>`: the real jq language (jq 1.8, compiled to WebAssembly by the `jq-wasm` package;
 * docs/scripting.md says why this one). Imported only when the flag is given, so no other run
 * loads the 1.3 MB engine.
 *
 * The build copies the package's `jq.wasm` to `dist/jq.wasm`, beside the chunks, and it is read
 * as bytes: the package's "inline" build (the wasm as base64 inside 1.4 MB of JavaScript) cost
 * ~100 ms more a run in parsing, decoding and garbage (docs/performance.md).
 */
import { UsageError } from '../errors.js';

/** A compiled `--jq` expression: each input value gives zero or more output values. */
export interface JqProgram {
  readonly expression: string;
  run(value: unknown): unknown[];
}

/** A jq error: the expression does not compile, or fails on the data (exit 2 either way). */
export class JqExpressionError extends UsageError {
  override readonly code = 'jq';
}

/**
 * Compiles `expression` once, before any request: it is wrapped in a branch jq never takes, so jq
 * parses and binds every name (syntax errors, unknown functions and variables are caught) without
 * evaluating anything against a placeholder input.
 */
export async function compileJq(expression: string): Promise<JqProgram> {
  if (expression.trim() === '') throw new JqExpressionError('--jq needs an expression, e.g. --jq .name');
  const [{ loadJq }, wasmBinary, v8] = await Promise.all([import('jq-wasm'), bundledWasm(), import('node:v8')]);
  // V8's baseline wasm compiler only: a run filters one reply, where optimising jq's 900 KB of wasm
  // in the background costs more CPU than it saves (~25% less CPU a run, docs/performance.md).
  v8.setFlagsFromString('--liftoff-only');
  const jq = await loadJq(wasmBinary ? { wasmBinary } : {});
  // The newline before `)` keeps a trailing `# comment` from swallowing the wrapper's end.
  const check = jq.raw(null, `if false then (\n${expression}\n) else empty end`);
  if (check.exitCode !== 0) throw new JqExpressionError(`--jq: ${jqMessage(check.stderr)}`, { hint: `the expression was: ${expression}` });
  return {
    expression,
    run(value) {
      // As JSON text: jq-wasm reads a JS string input as JSON text, not as a string value.
      const result = jq.raw(JSON.stringify(value ?? null), expression, ['-c']);
      if (result.exitCode !== 0) throw new JqExpressionError(`--jq: ${jqMessage(result.stderr)}`);
      // -c writes one value per line; a newline inside a string is escaped, so a split is exact.
      return result.stdout === '' ? [] : result.stdout.split('\n').map((line) => JSON.parse(line) as unknown);
    },
  };
}

/**
 * Set to true by the single executable's build only (src/build/exe.mjs, esbuild's define); an
 * undeclared name everywhere else, so `typeof` is the test.
 */
declare const RSI_SEA: boolean | undefined;

/**
 * `dist/jq.wasm` when running from the bundle (this module is then `dist/chunks/…`); undefined
 * when running from source (tests), where the package finds its own `build/jq.wasm`. Inside the
 * single executable there is no file beside the script: the build embeds the same bytes as the
 * SEA asset `jq.wasm`.
 */
async function bundledWasm(): Promise<Uint8Array | undefined> {
  if (typeof RSI_SEA !== 'undefined' && RSI_SEA) {
    const { getAsset } = await import('node:sea');
    return new Uint8Array(getAsset('jq.wasm'));
  }
  const { readFile } = await import('node:fs/promises');
  try {
    return await readFile(new URL('../jq.wasm', import.meta.url));
  } catch {
    return undefined;
  }
}

/**
 * jq's first error line without its `jq: error…:` prefix and the position inside rsi's wrapper
 * (line numbers are one off there), e.g. `syntax error, unexpected end of file`.
 */
export function jqMessage(stderr: string): string {
  const first = stderr.split('\n').find((l) => l.trim() !== '') ?? 'jq failed';
  return first
    .replace(/^jq: error(?: \(at [^)]*\))?: /, '')
    .replace(/ at <top-level>, line \d+(?:, column \d+)?:?$/, '')
    .trim();
}

/**
 * How jq -r prints a value: a string raw, anything else as JSON (indented on a terminal like jq,
 * compact when piped).
 */
export function jqText(value: unknown, pretty: boolean): string {
  if (typeof value === 'string') return value;
  return pretty ? JSON.stringify(value, null, 2) : JSON.stringify(value);
}

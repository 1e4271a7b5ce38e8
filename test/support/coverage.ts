/**
 * What a real rsi process evaluated of its bundle, from V8's own coverage (run it with
 * `NODE_V8_COVERAGE=<dir>`): dist/rsi.cjs (or dist/rsi-full.cjs, for the runs that need it) is one
 * script whose names are minified, so each function that ran is placed in its source file through
 * the bundle's source map (dist/rsi.cjs.map, esbuild's, which the build makes beside the bundle and
 * leaves out of the package). esbuild wraps
 * each module that is imported lazily (every command, the jq engine, the tunnel …) in a function
 * that runs when the module is first imported, and no function of a module runs before that.
 * Returns the source paths (`src/io/jq.ts`, `node_modules/commander/…`) of which a function ran, sorted.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { join } from 'node:path';

interface Coverage {
  result: Array<{ url: string; functions: Array<{ ranges: Array<{ startOffset: number; count: number }> }> }>;
}

/**
 * The source file of an offset into dist/<name> (`rsi.cjs`, `rsi-full.cjs`). The build wrapped
 * esbuild's output (bundle.mjs, `scriptText`): one comment line before it, and the wrapper's head
 * before its first line.
 */
function sourceAt(name: string): (offset: number) => string | undefined {
  const text = readFileSync(new URL(`../../dist/${name}`, import.meta.url), 'latin1');
  const map = new SourceMap(JSON.parse(readFileSync(new URL(`../../dist/${name}.map`, import.meta.url), 'utf8')));
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  const head = text.indexOf('{', starts[1]) + 1 - starts[1]!;
  return (offset) => {
    let line = 0;
    for (let lo = 0, hi = starts.length - 1; lo <= hi; ) {
      const mid = (lo + hi) >> 1;
      if (starts[mid]! <= offset) (line = mid), (lo = mid + 1);
      else hi = mid - 1;
    }
    const column = offset - starts[line]! - (line === 1 ? head : 0);
    if (line < 1 || column < 0) return undefined;
    const entry = map.findEntry(line - 1, column) as { originalSource?: string };
    return entry.originalSource?.replace(/^(?:file:\/\/)?.*?\/?(?=(src|node_modules)\/)/, '');
  };
}

/** Each of rsi's bundles (`rsi.cjs`, `rsi-full.cjs`) in a coverage folder, with the functions V8 saw in it. */
function* bundleScripts(coverageDir: string): Generator<{ name: string; functions: Coverage['result'][number]['functions'] }> {
  for (const file of readdirSync(coverageDir)) {
    const { result } = JSON.parse(readFileSync(join(coverageDir, file), 'utf8')) as Coverage;
    for (const script of result) {
      const name = /\/dist\/(rsi(?:-full)?\.cjs)$/.exec(script.url)?.[1];
      if (name) yield { name, functions: script.functions };
    }
  }
}

export function bundleModulesRun(coverageDir: string): string[] {
  const maps = new Map<string, (offset: number) => string | undefined>();
  const modules = new Set<string>();
  for (const { name, functions } of bundleScripts(coverageDir)) {
    const at = maps.get(name) ?? maps.set(name, sourceAt(name)).get(name)!;
    for (const fn of functions) {
      const range = fn.ranges[0]!;
      const source = range.count > 0 ? at(range.startOffset) : undefined;
      if (source && /^(src|node_modules)\//.test(source)) modules.add(source);
    }
  }
  return [...modules].sort();
}

/** Which of rsi's bundles a real process compiled (`rsi.cjs`, `rsi-full.cjs`), from the same coverage. */
export function bundlesRun(coverageDir: string): string[] {
  return [...new Set([...bundleScripts(coverageDir)].map((s) => s.name))].sort();
}

/**
 * What a real rsi process evaluated of its bundle, from V8's own coverage (run it with
 * `NODE_V8_COVERAGE=<dir>`): dist/rsi.cjs is one script, and esbuild wraps each module that is
 * imported lazily (every command, the jq engine, the tunnel …) in a function named by its source
 * path (`"src/commands/keywords/keywords.ts"()`), which runs when the module is first imported.
 * Returns the paths of those that ran, sorted.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

interface Coverage {
  result: Array<{ url: string; functions: Array<{ functionName: string; ranges: Array<{ count: number }> }> }>;
}

export function bundleModulesRun(coverageDir: string): string[] {
  const modules = new Set<string>();
  for (const file of readdirSync(coverageDir)) {
    const { result } = JSON.parse(readFileSync(join(coverageDir, file), 'utf8')) as Coverage;
    for (const script of result.filter((s) => /\/dist\/rsi\.cjs$/.test(s.url)))
      for (const fn of script.functions)
        if (/^(src|node_modules)\//.test(fn.functionName) && fn.ranges[0]!.count > 0) modules.add(fn.functionName);
  }
  return [...modules].sort();
}

#!/usr/bin/env node
// CommonJS (bin/package.json), not an ES module: Node starts a CommonJS main script for less than
// an ES one, which is most of what `--version` costs above `node -e 0` (docs/performance.md).
// Node's modules come from process.getBuiltinModule, which also spares the bundle's ES imports
// their facades.
'use strict';

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  // Answered here, as src/main.ts would, before the compile cache is opened and the bundle loads,
  // with nothing but node:fs, which Node has loaded already (docs/performance.md, round 3).
  const { readFileSync } = process.getBuiltinModule('node:fs');
  process.stdout.write(`${JSON.parse(readFileSync(`${__dirname}/../package.json`, 'utf8')).version}\n`);
} else {
  // Node ≥ 22.1 can keep V8's compiled code on disk, which cuts start-up (docs/performance.md). It
  // must be on before the bundle loads, hence the dynamic import below. Node 20 has no such
  // function; a cache that cannot be created (read-only home, full disk) only costs the gain, and
  // the CLI must never print or fail because of it. NODE_COMPILE_CACHE and
  // NODE_DISABLE_COMPILE_CACHE keep their Node meaning (Node honours them over the argument).
  try {
    process.getBuiltinModule('node:module').enableCompileCache?.(compileCacheDir());
  } catch {
    // No cache: same behaviour, slower start.
  }
  import('../dist/main.js').then(async ({ main }) => {
    process.exitCode = await main();
  });
}

/** A per-user folder, not Node's default under the shared /tmp, which another user could own. */
function compileCacheDir() {
  const { homedir } = process.getBuiltinModule('node:os');
  const { join } = process.getBuiltinModule('node:path');
  const env = process.env;
  if (process.platform === 'win32') return join(env.LOCALAPPDATA || join(homedir(), 'AppData', 'Local'), 'rsi', 'Cache', 'compile');
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Caches', 'rsi', 'compile');
  return join(env.XDG_CACHE_HOME?.startsWith('/') ? env.XDG_CACHE_HOME : join(homedir(), '.cache'), 'rsi', 'compile');
}

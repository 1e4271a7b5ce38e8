#!/usr/bin/env node
// Node's modules through process.getBuiltinModule, not `import`: an ES import of a built-in builds
// its ESM facade, which reads every export (node:module's loads source-map support).
const module = process.getBuiltinModule('node:module');
const { homedir } = process.getBuiltinModule('node:os');
const { join } = process.getBuiltinModule('node:path');

// Node ≥ 22.1 can keep V8's compiled code on disk, which cuts start-up (docs/performance.md). It
// must be on before the bundle loads, hence the dynamic import below. Node 20 has no such function;
// a cache that cannot be created (read-only home, full disk) only costs the gain, and the CLI
// must never print or fail because of it. NODE_COMPILE_CACHE and NODE_DISABLE_COMPILE_CACHE keep
// their Node meaning (Node honours them over the argument).
const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  // Answered here, as src/main.ts would, before the compile cache is opened and the bundle loads:
  // 0.89x the CPU of going through main on Node 24 (docs/performance.md, round 3).
  process.stdout.write(`${module.createRequire(import.meta.url)('../package.json').version}\n`);
} else {
  try {
    module.enableCompileCache?.(join(userCacheDir(), 'compile'));
  } catch {
    // No cache: same behaviour, slower start.
  }
  const { main } = await import('../dist/main.js');
  process.exitCode = await main();
}

/** A per-user folder, not Node's default under the shared /tmp, which another user could own. */
function userCacheDir() {
  const env = process.env;
  if (process.platform === 'win32') return join(env.LOCALAPPDATA || join(homedir(), 'AppData', 'Local'), 'rsi', 'Cache');
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Caches', 'rsi');
  return join(env.XDG_CACHE_HOME?.startsWith('/') ? env.XDG_CACHE_HOME : join(homedir(), '.cache'), 'rsi');
}

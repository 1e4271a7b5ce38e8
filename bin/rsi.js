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
} else if (!nodeSupported(argv)) {
  process.exitCode = 1;
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
    const code = await main();
    // A write to stdout that failed (a full disk) may have set the exit code while main() returned:
    // the failure wins over a 0 (which Node's timing decides, 22.13 and 26 differ).
    if (!process.exitCode) process.exitCode = code;
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

/**
 * Below package.json's `engines`, rsi stops with one line naming both versions (exit 1), instead of
 * running on a Node it was never tested with (cron's PATH often finds the distribution's old node).
 * `--version` (above) and `doctor`, which reports the same fact among its checks, still run. Written
 * for old Nodes: no process.getBuiltinModule (Node < 20.16 lacks it), nothing newer than ES2017.
 */
function nodeSupported(args) {
  const pkg = JSON.parse(require('node:fs').readFileSync(`${__dirname}/../package.json`, 'utf8'));
  const range = String(pkg.engines?.node || '');
  // `^22.13.0 || >=24`: each part `^x.y.z` (that major, from there) or `>=x[.y[.z]]`, as
  // nodeSupported in src/release.ts reads it (which this file cannot load before the check).
  const have = process.versions.node.split('.').map(Number);
  const parts = range.split('||').map((part) => /^\s*(\^|>=)\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?\s*$/.exec(part));
  if (parts.some((m) => !m)) return true;
  const ok = parts.some((m) => {
    const need = [Number(m[2]), Number(m[3] || 0), Number(m[4] || 0)];
    const cmp = have[0] - need[0] || have[1] - need[1] || have[2] - need[2];
    return cmp >= 0 && (m[1] === '>=' || have[0] === need[0]);
  });
  if (ok || commandWord(args) === 'doctor') return true;
  process.stderr.write(
    `rsi: Node.js ${process.versions.node} is running, but rsi needs Node.js ${range} (${process.execPath}); put a newer node first on PATH\n`,
  );
  return false;
}

/** The first word that is neither an option nor a global option's value (`--profile x doctor`). */
function commandWord(args) {
  const valued = ['--profile', '--base-url', '--format', '--http-timeout', '--jq', '--fields', '--time'];
  for (let i = 0; i < args.length; i++) {
    if (valued.includes(args[i])) i++;
    else if (!args[i].startsWith('-')) return args[i];
  }
  return undefined;
}

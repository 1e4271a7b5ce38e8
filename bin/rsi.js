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
} else if (argv.length <= 1 && require('../dist/root-help.cjs').answerRootHelp(argv)) {
  // `rsi`, `rsi --help`, `rsi -h`, `rsi help`: the root's screen from one small file, before the
  // compile cache and the bundle (src/commands/help/root-screen.ts; docs/performance.md).
} else {
  // rsi's bundle, dist/rsi.cjs, is compiled by dist/boot.cjs (src/exe/npm.ts) with V8's code cache
  // made after a run, one file per command word in a per-user folder (docs/performance.md). A cache
  // that cannot be made (read-only home, full disk) only costs the saving; the CLI never fails for
  // it. NODE_DISABLE_COMPILE_CACHE turns it off, as it does Node's; NODE_COMPILE_CACHE names the
  // folder to keep it in, as it does for Node's (which Node then keeps there itself).
  let dir;
  try {
    const env = process.env;
    if (!env.NODE_DISABLE_COMPILE_CACHE) dir = env.NODE_COMPILE_CACHE ? ownCacheDir(env.NODE_COMPILE_CACHE) : compileCacheDir();
  } catch {
    // No cache: same behaviour, slower start.
  }
  require('../dist/boot.cjs').boot({
    dir,
    bundle: `${__dirname}/../dist/rsi.cjs`,
    full: `${__dirname}/../dist/rsi-full.cjs`,
    argv,
    words: commandWords(argv),
  });
}

/** The folder NODE_COMPILE_CACHE names, made as Node makes it; the user chose it, so it is not checked. */
function ownCacheDir(dir) {
  const { resolve } = process.getBuiltinModule('node:path');
  const path = resolve(dir);
  process.getBuiltinModule('node:fs').mkdirSync(path, { recursive: true, mode: 0o700 });
  return path;
}

/**
 * A per-user folder for compiled code, not Node's default under the shared /tmp, which another
 * user could own. Code runs from it, so it passes the config folder's check (src/storage/trust.ts, `trustIssue`): each of
 * `rsi` and `rsi/compile` must be the user's (or root's), writable by nobody else, and not a link
 * another user made; it is made 0700. A folder that fails turns the cache off, with one line.
 */
function compileCacheDir() {
  const { homedir } = process.getBuiltinModule('node:os');
  const { join } = process.getBuiltinModule('node:path');
  const env = process.env;
  if (process.platform === 'win32') return join(env.LOCALAPPDATA || join(homedir(), 'AppData', 'Local'), 'rsi', 'Cache', 'compile');
  const rsi =
    process.platform === 'darwin'
      ? join(homedir(), 'Library', 'Caches', 'rsi')
      : join(env.XDG_CACHE_HOME?.startsWith('/') ? env.XDG_CACHE_HOME : join(homedir(), '.cache'), 'rsi');
  const dir = join(rsi, 'compile');
  const fs = process.getBuiltinModule('node:fs');
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  for (const path of [rsi, dir]) {
    const problem = folderProblem(fs, path);
    if (problem) {
      process.stderr.write(`warning: the compile cache is off (rsi starts slower): ${path} ${problem}\n`);
      return undefined;
    }
  }
  // Made 0755 by an earlier rsi: nobody else needs to read compiled code.
  if ((fs.statSync(dir).mode & 0o077) !== 0) fs.chmodSync(dir, 0o700);
  return dir;
}

/** trustIssue's rules for a folder (src/storage/trust.ts), which this file cannot load before the cache is on. */
function folderProblem(fs, path) {
  const uid = process.getuid();
  const link = fs.lstatSync(path);
  if (link.isSymbolicLink() && link.uid !== uid && link.uid !== 0) return `is a symbolic link made by another user (uid ${link.uid})`;
  const info = link.isSymbolicLink() ? fs.statSync(path) : link;
  const q = /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replaceAll("'", "'\\''")}'`;
  if (info.uid !== uid && info.uid !== 0) return `is owned by another user (uid ${info.uid}); fix: chown ${process.env.USER || uid} ${q}`;
  if ((info.mode & 0o022) !== 0)
    return `can be written by other users (mode ${(info.mode & 0o777).toString(8).padStart(3, '0')}); fix: chmod 700 ${q}`;
  return undefined;
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
  if (ok || commandWords(args)[0] === 'doctor') return true;
  process.stderr.write(
    `rsi: Node.js ${process.versions.node} is running, but rsi needs Node.js ${range} (${process.execPath}); put a newer node first on PATH\n`,
  );
  return false;
}

/** The words that are neither options nor a global option's value (`--profile x doctor` → doctor), up to an argument `--`. */
function commandWords(args) {
  const valued = ['--profile', '--base-url', '--format', '--http-timeout', '--timeout', '--jq', '--fields', '--time'];
  const words = [];
  for (let i = 0; i < args.length && args[i] !== '--'; i++) {
    if (valued.includes(args[i])) i++;
    else if (!args[i].startsWith('-')) words.push(args[i]);
  }
  return words;
}

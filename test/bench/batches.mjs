// `BENCH_ONLY=batches node test/bench/run.mjs` (and the end of `npm run bench`): the figures of
// issue 57 and issue 56 item 3, printed as the markdown of docs/performance.md's section
// "Batches and walks at the latency limit". Each run is a real bin/rsi.js process against a local
// `rsi sandbox`; timings are medians of BENCH_BATCH_RUNS runs, memory is the peak RSS the process
// reports at exit. BENCH_BATCH_SIZES (default "10000 100000 1000000") sets the memory rows: a
// million inputs take minutes on a loaded machine.
import { spawn } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = join(ROOT, 'bin', 'rsi.js');
const RUNS = Number(process.env.BENCH_BATCH_RUNS ?? 5);
const SIZES = (process.env.BENCH_BATCH_SIZES ?? '10000 100000 1000000').split(/\s+/).filter(Boolean).map(Number);
const LATENCY_MS = 50;
const IN_FLIGHT = 8;
const work = mkdtempSync(join(tmpdir(), 'rsi-bench-batches-'));
const log = (msg) => process.stderr.write(`bench batches: ${msg}\n`);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/**
 * Loaded into every measured process: at exit it writes its peak RSS, and the time from its first
 * HTTP request to its last reply (node:http's diagnostics channels), so start-up is not counted
 * against the latency limit.
 */
const PRELOAD = join(work, 'measure.cjs');
writeFileSync(
  PRELOAD,
  `const dc = require('node:diagnostics_channel');
let first; let last; let n = 0;
dc.subscribe('http.client.request.start', () => { n++; first ??= performance.now(); });
dc.subscribe('http.client.response.finish', () => { last = performance.now(); });
process.on('exit', () => require('node:fs').writeFileSync(process.env.BENCH_MEASURE, JSON.stringify({ rss: process.resourceUsage().maxRSS, walk: last - first, requests: n })));
`,
);

async function api(base, tok, path) {
  const res = await fetch(`${base}/api/v1${path}`, { headers: { authorization: `Bearer ${tok}` } });
  if (!res.ok) throw new Error(`${path}: ${res.status}`);
  return res.json();
}

let seq = 0;
/** One rsi run: stdin from `input`, stdout counted and dropped; wall ms, walk ms, peak RSS KiB, rows. */
function run(args, env, input) {
  return new Promise((resolve, reject) => {
    const measure = join(work, `m-${seq++}.json`);
    const start = performance.now();
    const child = spawn(process.execPath, ['--require', PRELOAD, BIN, ...args], {
      env: { ...process.env, ...env, BENCH_MEASURE: measure, RSI_NO_UPDATE_NOTIFIER: '1' },
      stdio: [input ? openSync(input, 'r') : 'ignore', 'pipe', 'pipe'],
    });
    let rows = 0;
    let err = '';
    child.stdout.on('data', (c) => {
      for (const b of c) if (b === 0x0a) rows++;
    });
    child.stderr.on('data', (c) => (err += c));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`rsi ${args.join(' ')} exited ${code}: ${err.trim().split('\n').pop()}`));
      const m = existsSync(measure) ? JSON.parse(readFileSync(measure, 'utf8')) : {};
      resolve({ wall: performance.now() - start, walk: m.walk, rss: m.rss, requests: m.requests, rows });
    });
  });
}

const ms = (x) => `${Math.round(x)} ms`;
const mib = (kib) => `${(kib / 1024).toFixed(0)} MiB`;

/**
 * `startSandbox` and `obtainTokens` are run.mjs's (one home for the bench's sandbox and sign-in);
 * the sandboxes here approve sign-ins themselves and print only their address.
 */
export async function benchBatches({ startSandbox, obtainTokens }) {
  const token = async (base) => (await obtainTokens(base)).access_token;
  const fast = await startSandbox(['--auto-approve', '--quiet']);
  const slow = await startSandbox(['--auto-approve', '--quiet', '--latency', String(LATENCY_MS)]);
  const out = [];
  try {
    const env = (sb, tok) => ({ RSI_TOKEN: tok, RSI_BASE_URL: sb.url, RSI_CONFIG_DIR: join(work, 'cfg') });
    const fastEnv = env(fast, await token(fast.url));
    const slowTok = await token(slow.url);
    const slowEnv = env(slow, slowTok);
    // Every keyword id the seeded data holds, cycled into inputs of any length.
    const ids = [];
    for (let page = 1; ; page++) {
      const { data } = await api(fast.url, fastEnv.RSI_TOKEN, `/keywords?q=a&limit=20&page=${page}`);
      if (data.length === 0) break;
      ids.push(...data.map((k) => k.id));
    }
    const inputOf = (n) => {
      const path = join(work, `ids-${n}.txt`);
      if (!existsSync(path)) {
        const lines = [];
        for (let i = 0; i < n; i++) lines.push(ids[i % ids.length]);
        writeFileSync(path, `${lines.join('\n')}\n`);
      }
      return path;
    };

    // --- walks and batches at the latency limit (50 ms a reply, 8 in flight) ---------------------
    const nsclc = (await api(slow.url, slowTok, `/keywords?q=${encodeURIComponent('Non-small cell lung cancer')}&limit=5`)).data[0].id;
    const total = (await api(slow.url, slowTok, `/keywords/${nsclc}/relations?relation=assets&limit=1`)).meta.total;
    const pages = Math.ceil(total / 100);
    const walkLimit = LATENCY_MS * (1 + (pages - 1) / IN_FLIGHT);
    const BATCH = 400;
    const batchLimit = LATENCY_MS * Math.ceil(BATCH / IN_FLIGHT);
    const walks = [];
    const batches = [];
    for (let i = 0; i < RUNS + 1; i++) {
      log(`latency round ${i + 1} of ${RUNS + 1}${i === 0 ? ' (warm-up)' : ''}`);
      const w = await run(['keywords', 'relations', nsclc, '--relation', 'assets', '--all', '--format', 'ndjson'], slowEnv);
      const b = await run(['keywords', 'get', '-', '--format', 'ndjson'], slowEnv, inputOf(BATCH));
      if (w.rows !== total || b.rows !== BATCH) throw new Error(`rows: walk ${w.rows} of ${total}, batch ${b.rows} of ${BATCH}`);
      if (i > 0) {
        walks.push(w);
        batches.push(b);
      }
    }
    const walk = median(walks.map((r) => r.walk));
    const batch = median(batches.map((r) => r.walk));
    out.push(
      '| figure | measured | limit | ratio | target |',
      '|---|---|---|---|---|',
      `| \`relations --all\`, ${total} links (${pages} pages of 100), first request to last reply | ${ms(walk)} | ${ms(walkLimit)} = 50 ms × (1 + ${pages - 1}/8) | ${(walk / walkLimit).toFixed(2)}× | ≤ 1.3× |`,
      `| \`keywords get -\`, ${BATCH} ids, first request to last reply | ${ms(batch)} | ${ms(batchLimit)} = 50 ms × ${BATCH}/8 | ${(batch / batchLimit).toFixed(2)}× | ≤ 1.3× |`,
      `| the same batch: rows a second | ${Math.round(BATCH / (batch / 1000))}/s | ${Math.round(BATCH / (batchLimit / 1000))}/s | ${(batchLimit / batch).toFixed(2)}× | ≥ 0.77× |`,
      `| whole process, walk / batch (start-up included) | ${ms(median(walks.map((r) => r.wall)))} / ${ms(median(batches.map((r) => r.wall)))} | — | — | — |`,
      '',
    );

    // --- a batch's memory and rate as the input grows (loopback, no latency) ----------------------
    out.push('| inputs | rows | wall | rows a second | peak RSS | target |', '|---|---|---|---|---|---|');
    for (const n of SIZES) {
      log(`${n} inputs (loopback)`);
      const r = await run(['keywords', 'get', '-', '--format', 'tsv'], fastEnv, inputOf(n));
      if (r.rows !== n) throw new Error(`${n} inputs gave ${r.rows} rows`);
      out.push(
        `| ${n.toLocaleString('en-US')} | ${r.rows.toLocaleString('en-US')} | ${ms(r.wall)} | ${Math.round(n / (r.wall / 1000))}/s | ${mib(r.rss)} | ≤ 150 MB |`,
      );
    }
  } finally {
    fast.child.kill('SIGTERM');
    slow.child.kill('SIGTERM');
  }
  return `${out.join('\n')}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.stdout.write(await benchBatches());

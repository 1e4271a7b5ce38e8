// A batch stopped by SIGTERM and resumed with --resume (issue 57, "Done when"), as real
// bin/rsi.js processes (a signal needs a process boundary) against an in-process sandbox:
// `rsi keywords get - --format ndjson < ids > out.ndjson`, SIGTERM once a share of the rows is
// out, then `rsi keywords get - --format ndjson --resume out.ndjson < ids >> out.ndjson`: every
// input's row exactly once, in input order. 1,000 lines (about 10 s on a busy 2-core machine)
// prove what 30,000 do (measured by hand: 30,000 lines, stopped at 538, resumed: 30,000 rows in
// order); the scale
// figures (10^4 to 10^6 inputs, memory, rows a second) are `npm run bench` (BENCH_ONLY=batches).
import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, RSI_BIN } from '../support/cli.js';
import { useSandbox } from '../support/e2e.js';

const e2e = useSandbox();
const LINES = 1000;

/** Every keyword id the sandbox holds (a search for "a", page by page). */
async function keywordIds(): Promise<string[]> {
  const ids: string[] = [];
  for (let page = 1; ; page++) {
    const res = await e2e.api('GET', `/keywords?q=a&limit=20&page=${page}`);
    const { data } = (await res.json()) as { data: Array<{ id: string }> };
    if (data.length === 0) return ids;
    ids.push(...data.map((k) => k.id));
  }
}

/**
 * Runs rsi with stdin from `input`, stdout to `out` (appended); `stop` sees stdout as it grows and
 * may SIGTERM. `node` are Node's own arguments (a preload), `env` more of the environment.
 */
function rsiTo(
  args: string[],
  input: string,
  out: string,
  stop?: (lines: number) => boolean,
  { node = [], env = {} }: { node?: string[]; env?: Record<string, string> } = {},
) {
  return new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [...node, RSI_BIN, ...args], {
      env: cleanEnv({ RSI_TOKEN: e2e.token, RSI_BASE_URL: e2e.url, RSI_CONFIG_DIR: e2e.configDir, ...env }),
      stdio: [openSync(input, 'r'), 'pipe', 'pipe'],
    });
    let lines = 0;
    let stderr = '';
    let sent = false;
    child.stdout!.on('data', (chunk: Buffer) => {
      appendFileSync(out, chunk);
      for (const byte of chunk) if (byte === 0x0a) lines++;
      if (!sent && stop?.(lines)) {
        sent = true;
        child.kill('SIGTERM');
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += String(chunk);
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('a batch stopped by SIGTERM, then --resume', () => {
  it(`${LINES} lines: each input's row exactly once, in input order`, async () => {
    const ids = await keywordIds();
    const inputs = Array.from({ length: LINES }, (_, i) => ids[i % ids.length]!);
    const dir = mkdtempSync(join(tmpdir(), 'rsi-resume-'));
    const input = join(dir, 'ids.txt');
    const out = join(dir, 'out.ndjson');
    writeFileSync(input, `${inputs.join('\n')}\n`);
    writeFileSync(out, '');
    const args = ['keywords', 'get', '-', '--format', 'ndjson'];
    const stopped = await rsiTo(args, input, out, (lines) => lines >= LINES * 0.4);
    expect(stopped.code, stopped.stderr).toBe(143);
    const partial = readFileSync(out, 'utf8');
    // Stopped part way, every line whole (no cut row to glue the next run's first row to).
    const before = partial.split('\n').length - 1;
    expect(before).toBeGreaterThanOrEqual(LINES * 0.4);
    expect(before).toBeLessThan(LINES);
    expect(partial.endsWith('\n')).toBe(true);
    const resumed = await rsiTo([...args, '--resume', out], input, out);
    expect(resumed.code, resumed.stderr).toBe(0);
    const rows = readFileSync(out, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { input: string; id: string });
    expect(rows.map((r) => r.input)).toEqual(inputs);
    expect(rows.every((r) => r.id === r.input)).toBe(true);
  });

  // docs/performance.md, "Batches and walks at the latency limit": flat memory at 10^6 inputs is
  // V8's --optimize-for-size, set by the batch itself (src/commands/shared/batch.ts, BATCH_V8_FLAG),
  // never by a command that sends one request. The flags each process sets are logged by a preload.
  it('a batch favours memory (V8 --optimize-for-size, set at run time); a single GET does not', async () => {
    const [id] = await keywordIds();
    const dir = mkdtempSync(join(tmpdir(), 'rsi-v8-flags-'));
    const input = join(dir, 'ids.txt');
    writeFileSync(input, `${id}\n${id}\n`);
    const preload = join(dir, 'log-v8-flags.cjs');
    writeFileSync(
      preload,
      `const v8 = require('node:v8');
const set = v8.setFlagsFromString;
v8.setFlagsFromString = (flags) => { require('node:fs').appendFileSync(process.env.V8_FLAGS_LOG, flags + '\\n'); set(flags); };
`,
    );
    const flagsOf = async (args: string[], name: string): Promise<string[]> => {
      const log = join(dir, `${name}.log`);
      writeFileSync(log, '');
      const out = join(dir, `${name}.out`);
      const run = await rsiTo(args, input, out, undefined, { node: ['--require', preload], env: { V8_FLAGS_LOG: log } });
      expect(run.code, run.stderr).toBe(0);
      expect(readFileSync(out, 'utf8').trimEnd().split('\n')).toHaveLength(name === 'batch' ? 2 : 1);
      // The npm loader turns V8's check of the code cache's checksum on around reading and making
      // the cache, and off again (src/exe/npm.ts, `checked`): that is not a flag a run keeps.
      return readFileSync(log, 'utf8')
        .split('\n')
        .filter((flag) => flag && !/^--(no-)?verify-snapshot-checksum$/.test(flag));
    };
    expect(await flagsOf(['keywords', 'get', '-', '--format', 'ndjson'], 'batch')).toEqual(['--optimize-for-size']);
    expect(await flagsOf(['keywords', 'get', id!, '--format', 'ndjson'], 'one')).toEqual([]);
  });
});

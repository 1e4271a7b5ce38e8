// Batches at research scale (issue 57), in process against an in-process sandbox: rows stream
// from the first line (a producer that has not written its second line yet already has its first
// row), no item cap, binary input refused with what it looked like, --resume continuing a
// previous run's ndjson, csv or tsv (transient errors asked again, a cut answer of many rows
// completed), and the summary line at a terminal. The same for `keywords get -` and
// `keywords relations -`. The real-process journey (SIGTERM, then --resume) is
// test/journeys/batch-resume.test.ts; the scale figures are `npm run bench` (BENCH_ONLY=batches).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/main.js';
import { cleanEnv } from '../support/cli.js';
import { useSandbox } from '../support/e2e.js';
import { runCli } from '../support/inproc.js';
import { sandboxStats } from '../support/sandbox.js';

const e2e = useSandbox();
const rsi = (args: string[], input?: string, env: Record<string, string> = {}) => e2e.rsi(args, { input, env });
const lines = (text: string): string[] => text.split('\n').filter((l) => l !== '');
const json = (text: string): Record<string, unknown>[] => lines(text).map((l) => JSON.parse(l) as Record<string, unknown>);
const dir = mkdtempSync(join(tmpdir(), 'rsi-batches-'));
const file = (name: string, text: string): string => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

describe('batches stream (issue 57, item 1)', () => {
  it('the first row is out while the producer has not written its second line; the second follows it', async () => {
    const stdin = new PassThrough();
    let out = '';
    const waiters: Array<() => void> = [];
    const stdout = new Writable({
      write(chunk, _encoding, done) {
        out += String(chunk);
        for (const wake of waiters.splice(0)) wake();
        done();
      },
    });
    const until = async (ready: () => boolean): Promise<void> => {
      while (!ready()) await new Promise<void>((wake) => waiters.push(wake));
    };
    const run = main({
      argv: ['keywords', 'get', '-', '--format', 'ndjson'],
      env: cleanEnv({ RSI_TOKEN: e2e.token, RSI_BASE_URL: e2e.url, RSI_CONFIG_DIR: e2e.configDir }),
      stdio: { stdin, stdout, stderr: new PassThrough() },
      signal: new AbortController().signal,
    });
    stdin.write('EGFR\n');
    // Waits on the row itself: a batch that read to the end of input first would never print it.
    await until(() => out.includes('\n'));
    expect(json(out).map((r) => r.input)).toEqual(['EGFR']);
    stdin.end('KRAS\n');
    expect(await run).toBe(0);
    expect(json(out).map((r) => [r.input, r.name])).toEqual([
      ['EGFR', 'EGFR'],
      ['KRAS', 'KRAS'],
    ]);
  });

  it('no item cap: the page cap (RSI_MAX_PAGES) does not bound a batch', async () => {
    const r = await rsi(['keywords', 'get', '-', '--format', 'tsv', '--fields', 'input,name'], 'EGFR\nKRAS\nerbb1\nKRAS\nEGFR\n', {
      RSI_MAX_PAGES: '2',
    });
    expect(r.code, r.stderr).toBe(0);
    expect(lines(r.stdout)).toEqual(['EGFR\tEGFR', 'KRAS\tKRAS', 'erbb1\tEGFR', 'KRAS\tKRAS', 'EGFR\tEGFR']);
  });

  it('binary input: exit 2 naming what it looked like, and not one request', async () => {
    const before = (await sandboxStats(e2e.sandbox)).apiRequests;
    // (The signatures of gzip, zip, UTF-16… are held in test/unit/scripting.test.ts, on raw bytes.)
    const r = await rsi(['keywords', 'get', '-'], 'EGFR\nKR\u0000AS\n');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^rsi: stdin is not text: line 2 holds a NUL byte \(at byte 3\); a batch reads one keyword id or name a line\n/,
    );
    expect(r.stdout).toBe('');
    expect((await sandboxStats(e2e.sandbox)).apiRequests).toBe(before);
  });

  it('keywords relations -: an input without links still has its row, so every input is answered', async () => {
    const r = await rsi(['keywords', 'relations', '-', '--relation', 'indications', '--offset', '100000', '--format', 'ndjson'], 'EGFR\n');
    expect(r.code, r.stderr).toBe(0);
    expect(json(r.stdout)).toEqual([{ input: 'EGFR' }]);
  });
});

describe('--resume (issue 57, item 2)', () => {
  const ids = 'EGFR\nKRAS\nerbb1\nnosuchkeyword\nKRAS\nEGFR\n';

  it('ndjson: the answered inputs are skipped, a transient error is asked again first, the rest follow', async () => {
    const full = await rsi(['keywords', 'get', '-', '--format', 'ndjson'], ids);
    expect(full.code).toBe(11);
    const rows = lines(full.stdout);
    // A stop after four answers, the second of which met a 503 (transient): asked again.
    const kras = JSON.parse(rows[1]!) as Record<string, unknown>;
    const transient = JSON.stringify({ input: 'KRAS', error: 'the service answered 503', error_code: 'unavailable' });
    const out = file('resume.ndjson', `${rows[0]}\n${transient}\n${rows[2]}\n${rows[3]}\n`);
    const before = (await sandboxStats(e2e.sandbox)).apiRequests;
    const r = await rsi(['keywords', 'get', '-', '--format', 'ndjson', '--resume', out], ids);
    expect(r.code, r.stderr).toBe(0);
    expect(json(r.stdout)).toEqual([kras, JSON.parse(rows[4]!), JSON.parse(rows[5]!)]);
    // Three cards and two searches (KRAS resolved once), nothing for what the file answered.
    expect((await sandboxStats(e2e.sandbox)).apiRequests - before).toBe(5);
    // The definitive error (no such keyword) was an answer: not asked again.
    expect(r.stdout).not.toContain('nosuchkeyword');
    // Read again with what this run appended: everything is answered.
    writeFileSync(out, readFileSync(out, 'utf8') + r.stdout);
    const again = await rsi(['keywords', 'get', '-', '--format', 'ndjson', '--resume', out], ids);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe('');
  });

  it('a file that is not there yet: nothing is skipped', async () => {
    const r = await rsi(['keywords', 'get', '-', '--format', 'tsv', '--fields', 'input,name', '--resume', join(dir, 'none.tsv')], 'EGFR\n');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('EGFR\tEGFR\n');
  });

  it('csv: the continued file gets no second header, and error_code is found by its column', async () => {
    const full = await rsi(['keywords', 'get', '-', '--format', 'csv', '--fields', 'input,name,error,error_code'], 'EGFR\nKRAS\nerbb1\n');
    expect(full.code, full.stderr).toBe(0);
    const [header, first, second, third] = full.stdout.split('\r\n');
    const out = file('resume.csv', `${header}\r\n${first}\r\n`);
    const r = await rsi(
      ['keywords', 'get', '-', '--format', 'csv', '--fields', 'input,name,error,error_code', '--resume', out],
      'EGFR\nKRAS\nerbb1\n',
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${second}\r\n${third}\r\n`);
  });

  it('tsv without a header: the input first, an error row known by its last cells', async () => {
    const full = await rsi(['keywords', 'get', '-', '--format', 'tsv'], 'EGFR\nKRAS\n');
    const [egfr, kras] = lines(full.stdout);
    const transient = ['KRAS', ...Array(egfr!.split('\t').length - 3).fill(''), 'timed out', 'unavailable'].join('\t');
    const out = file('resume.tsv', `${egfr}\n${transient}\n`);
    const r = await rsi(['keywords', 'get', '-', '--format', 'tsv', '--resume', out], 'EGFR\nKRAS\n');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${kras}\n`);
  });

  it('keywords relations -: the last answer may be cut short, so it is asked again and only its missing rows print', async () => {
    const args = ['keywords', 'relations', '-', '--relation', 'indications', '--limit', '3', '--format', 'ndjson'];
    const full = await rsi(args, 'EGFR\nKRAS\n');
    expect(full.code, full.stderr).toBe(0);
    const rows = lines(full.stdout);
    expect(rows).toHaveLength(6);
    const out = file('resume-relations.ndjson', `${rows[0]}\n${rows[1]}\n`);
    const r = await rsi([...args, '--resume', out], 'EGFR\nKRAS\n');
    expect(r.code, r.stderr).toBe(0);
    expect(lines(r.stdout)).toEqual(rows.slice(2));
  });

  it('a file that answers another input: exit 2 naming the line, before any request', async () => {
    const out = file('other.ndjson', '{"input":"BRAF","id":"x"}\n');
    const before = (await sandboxStats(e2e.sandbox)).apiRequests;
    const r = await rsi(['keywords', 'get', '-', '--format', 'ndjson', '--resume', out], 'EGFR\nKRAS\n');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^rsi: --resume: .*other\.ndjson is not this input's output: its answer 1 is for "BRAF", but stdin line 1 is "EGFR"\n/,
    );
    expect((await sandboxStats(e2e.sandbox)).apiRequests).toBe(before);
  });

  it.each([
    [
      'a cut last line',
      ['--format', 'ndjson'],
      '{"input":"EGFR","id":"x"}\n{"input":"KR',
      /ends in a cut line[^\n]*\nhint: remove that last line/,
    ],
    ['a JSON array', ['--format', 'json'], '', /--resume continues a file of rows, which --format json cannot do/],
    ['--jq', ['--jq', '.name'], '', /--resume continues a file of rows, which --jq does not print/],
    ['--fields without input', ['--format', 'tsv', '--fields', 'name'], '', /--fields must include input/],
  ])('%s: exit 2 with the reason', async (_what, extra, text, message) => {
    const out = file('bad-resume', text);
    const r = await rsi(['keywords', 'get', '-', ...extra, '--resume', out], 'EGFR\nKRAS\n');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });

  it('--resume without - is a usage error', async () => {
    const r = await rsi(['keywords', 'get', 'EGFR', '--resume', join(dir, 'x')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--resume continues a batch: give - as the keyword/);
  });
});

describe('the summary (issue 57, item 3)', () => {
  it('at a terminal: inputs, rows, failures by kind and the time, on stderr', async () => {
    const r = await e2e.rsi(['keywords', 'relations', '-', '--relation', 'indications', '--limit', '2', '--format', 'tsv'], {
      input: 'EGFR\nnosuchkeyword\nKRAS\n',
    });
    expect(r.code).toBe(11);
    expect(r.stderr).toMatch(/^rsi: 1 of 3 items failed \(1 ambiguous_name\)$/m);
    // Not at a terminal: no summary line (the exit-11 message counts the failures).
    expect(r.stderr).not.toMatch(/inputs, \d+ rows in/);
    const tty = await runCli(['keywords', 'relations', '-', '--relation', 'indications', '--limit', '2'], {
      env: { RSI_TOKEN: e2e.token, RSI_BASE_URL: e2e.url, RSI_CONFIG_DIR: e2e.configDir },
      input: 'EGFR\nnosuchkeyword\nKRAS\n',
      terminal: { columns: 120 },
    });
    expect(tty.code).toBe(11);
    expect(tty.stderr).toMatch(/^3 inputs, 5 rows in [\d.]+ m?s \(\d+\/s\); 1 failed: 1 ambiguous_name$/m);
  });
});

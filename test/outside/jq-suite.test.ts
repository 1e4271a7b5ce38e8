// jq 1.8.2's own tests (tests/*.test from jq's release, MIT-licensed: the notice is in
// vendor/jq-1.8.2/COPYING, unpacked beside them by test/outside/fetch.sh; none of jq's files are
// committed) run through `rsi api … --jq` against a loopback server that returns each case's input
// as the reply body (issue 30). Each case is also run on jq-wasm directly, and every case the engine
// passes directly must pass through rsi, with rsi's stdout exactly what the engine's outputs give
// (strings raw, everything else as jq wrote it). The bulk runs in-process through main() (argv,
// env and streams injected: the same code path as bin/rsi.js), a sample through real processes.
//
// Cases are compared as jq's runner (src/jq_test.c) compares them: each output equal as JSON to the
// expected one, in order, none missing, none extra; an error after the expected outputs is allowed.
// A `%%FAIL` case must not compile, and rsi must exit 2 before sending the request; with plain
// `%%FAIL` the message is jq's.
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { escapeHiddenJson } from '../../src/io/json.js';
import { main } from '../../src/main.js';
import { RSI_BIN, cleanEnv, runCli } from '../support/cli.js';
import { fakeIo } from '../support/fakes.js';
import { outsideSuitePart, skipWithout } from '../support/system.js';
import { startStub, type StubServer } from '../support/stub-server.js';

const part = outsideSuitePart('jq-1.8.2');

interface JqCase {
  id: number;
  where: string;
  program: string;
  /** The input line (absent for a `%%FAIL` case, which jq only compiles). */
  input?: string;
  expected: string[];
  /** `%%FAIL`: must not compile; `message` is jq's error line unless `%%FAIL IGNORE MSG`. */
  fail?: { message?: string };
}

/** jq's test file format: program, input, expected outputs, then a blank line; `#` comments. */
function parseSuite(text: string, file: string, firstId: number): JqCase[] {
  const lines = text.split('\n');
  const skip = (l: string | undefined) => l === undefined || /^[ \t]*(#|$)/.test(l);
  const cases: JqCase[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (skip(line)) {
      i++;
      continue;
    }
    if (line === '%%FAIL' || line === '%%FAIL IGNORE MSG') {
      i++;
      while (i < lines.length && skip(lines[i])) i++;
      const where = `${file}:${i + 1}`;
      const program = lines[i++]!;
      const message = lines[i++]!;
      // The lines after the message show jq's excerpt of the program: not compared by jq either.
      while (i < lines.length && lines[i]!.trim() !== '') i++;
      cases.push({ id: firstId + cases.length, where, program, expected: [], fail: line === '%%FAIL' ? { message } : {} });
      continue;
    }
    const where = `${file}:${i + 1}`;
    const program = line;
    const input = lines[i + 1] ?? '';
    i += 2;
    const expected: string[] = [];
    while (i < lines.length && !skip(lines[i])) expected.push(lines[i++]!);
    cases.push({ id: firstId + cases.length, where, program, input, expected });
  }
  return cases;
}

/**
 * Cases that cannot apply to `rsi api … --jq`, with the reason. Anything else runs: a case is not
 * left out for failing.
 */
const NOT_APPLICABLE: Array<{ reason: string; test: (c: JqCase) => boolean }> = [
  {
    reason: 'uses modules (import/include/modulemeta need -L, a library folder; rsi gives jq none)',
    test: (c) => /\b(import|include|modulemeta|get_search_list)\b/.test(c.program),
  },
  {
    reason: 'reads further inputs (input/inputs): rsi gives jq one reply, one input',
    test: (c) => /\binputs?\b/.test(c.program) && !/"[^"]*\binputs?\b[^"]*"/.test(c.program),
  },
  {
    reason: 'names the input file (input_filename) or the program location ($__loc__): there is no file over HTTP',
    test: (c) => /\binput_filename\b|\$__loc__/.test(c.program),
  },
  {
    reason: 'the input is not one JSON text (NaN, several values, a BOM…): jq reads it, but a reply must be JSON',
    test: (c) => c.input !== undefined && !isJson(c.input),
  },
];

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function notApplicable(c: JqCase): string | undefined {
  return NOT_APPLICABLE.find((n) => n.test(c))?.reason;
}

/** JSON equality as jq's jv_equal: objects by members (any order), numbers by value. */
function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((v, i) => equal(v, (b as unknown[])[i]));
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && equal((a as never)[k], (b as never)[k]));
}

type Engine = Awaited<ReturnType<typeof import('jq-wasm').loadJq>>;
let engine: Engine;

/** One JSON text as a value; jq's own reading for what JSON.parse refuses (`nan`, huge exponents). */
function value(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    const r = engine.raw(text, 'tojson', ['-c']);
    return r.exitCode === 0 ? JSON.parse(JSON.parse(r.stdout) as string) : Symbol('unreadable');
  }
}

/** jq's runner's verdict on a run's outputs: each expected one equal, in order, nothing extra. */
function verdict(c: JqCase, outputs: unknown[], errored: boolean): boolean {
  const expected = c.expected.map(value);
  if (outputs.length < expected.length) return false;
  if (outputs.length > expected.length) return false;
  // A run that ended in an error passes only when every expected output came first (as in jq's runner).
  void errored;
  return expected.every((e, i) => equal(e, outputs[i]));
}

/**
 * What rsi prints for jq's outputs: a string raw, anything else as jq wrote it (with rsi's escapes
 * for characters a terminal hides, the same value); one a line.
 */
function render(outputs: string[]): string {
  return outputs.map((o) => `${o.startsWith('"') ? (JSON.parse(o) as string) : escapeHiddenJson(o)}\n`).join('');
}

/**
 * rsi's stdout read back into values, guided by what the case expects (a raw string has no quotes,
 * and may hold newlines): an expected string takes its text and a newline, anything else one line.
 */
function readBack(c: JqCase, stdout: string): unknown[] | undefined {
  const outputs: unknown[] = [];
  let rest = stdout;
  for (const line of c.expected) {
    const e = value(line);
    if (typeof e === 'string') {
      if (!rest.startsWith(`${e}\n`)) return undefined;
      outputs.push(e);
      rest = rest.slice(e.length + 1);
    } else {
      const end = rest.indexOf('\n');
      if (end < 0) return undefined;
      outputs.push(value(rest.slice(0, end)));
      rest = rest.slice(end + 1);
    }
  }
  return rest === '' ? outputs : undefined;
}

interface Direct {
  pass: boolean;
  outputs: string[];
  error?: string;
}

/**
 * The case on jq-wasm directly: jq's main, the input as its stdin. A trap (the engine's stack or
 * heap) fails the case and leaves that instance unusable: a fresh one is loaded for the next.
 */
async function runDirect(c: JqCase): Promise<Direct> {
  try {
    if (c.fail) {
      const r = engine.raw('', c.program, ['-c', '--']);
      const errors = r.stderr.split('\n').filter((l) => l.startsWith('jq: error'));
      const message = c.fail.message;
      const pass = r.exitCode === 3 && (message === undefined || errors[0] === message);
      return { pass, outputs: [], error: errors[0] };
    }
    const r = engine.raw(c.input!, c.program, ['-c', '--']);
    const outputs = r.stdout === '' ? [] : r.stdout.split('\n');
    const errored = r.exitCode !== 0;
    return { pass: verdict(c, outputs.map(value), errored), outputs, ...(errored ? { error: r.stderr } : {}) };
  } catch (error) {
    engine = await loadEngine();
    return { pass: false, outputs: [], error: String(error) };
  }
}

async function loadEngine(): Promise<Engine> {
  return (await import('jq-wasm')).loadJq();
}

interface ViaRsi {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Requests the server got for this case. */
  requests: number;
}

/** rsi's verdict: jq's runner's, plus rsi's rules (exit 2 before any request for a `%%FAIL`). */
function rsiPasses(c: JqCase, r: ViaRsi): boolean {
  if (c.fail) {
    if (r.code !== 2 || r.requests !== 0 || r.stdout !== '') return false;
    const m = /^rsi: --jq: (.*?)(?: \(and \d+ more\))?$/m.exec(r.stderr);
    if (!m) return false;
    return c.fail.message === undefined || c.fail.message.replace(/:$/, '') === `jq: error: ${m[1]}`;
  }
  if (r.requests !== 1) return false;
  const errored = r.code !== 0;
  if (errored && (r.code !== 2 || !/^rsi: --jq: /m.test(r.stderr))) return false;
  const outputs = readBack(c, r.stdout);
  return outputs !== undefined && verdict(c, outputs, errored);
}

describe.skipIf(skipWithout(part))("jq 1.8.2's test suite through rsi api --jq", () => {
  const files = part.available ? readdirSync(join(part.dir, 'tests')).filter((f) => f.endsWith('.test')) : [];
  const all: JqCase[] = [];
  for (const f of files.sort()) all.push(...parseSuite(readFileSync(join(part.dir, 'tests', f), 'utf8'), f, all.length));
  const applicable = all.filter((c) => notApplicable(c) === undefined);

  let server: StubServer;
  let base: string;
  const requests = new Map<number, number>();
  /** Bodies the sample of real processes asks for beyond the suite's own inputs. */
  const extra = new Map<string, string>([
    ['deep', `${'['.repeat(10_000)}${']'.repeat(10_000)}`],
    ['big', '[13911860366432393, 9E999999999, 1.10]'],
    ['mixed', '[1,"x",3]'],
  ]);
  const configDir = mkdtempSync(join(tmpdir(), 'rsi-jq-suite-'));
  // $ENV as jq's own harness sets it (man.test reads $ENV.PAGER).
  const env = () => ({ RSI_TOKEN: 'jq-suite-token', RSI_BASE_URL: base, RSI_CONFIG_DIR: configDir, PAGER: 'less' });

  beforeAll(async () => {
    engine = await loadEngine();
    server = await startStub((req, res) => {
      const name = (req.url ?? '').split('?')[0]!.split('/').at(-1)!;
      const id = Number(name);
      if (Number.isInteger(id) && all[id]) requests.set(id, (requests.get(id) ?? 0) + 1);
      const body = extra.get(name) ?? all[id]?.input;
      if (body === undefined) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"no such case"}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    });
    base = server.url;
  });
  afterAll(() => server?.close());

  /** The case through main(), as bin/rsi.js runs it, with streams and environment injected. */
  async function inProcess(c: JqCase): Promise<ViaRsi> {
    const io = fakeIo({ stdin: '' });
    const before = requests.get(c.id) ?? 0;
    const code = await main({ argv: ['api', `/cases/${c.id}`, `--jq=${c.program}`], env: env(), io });
    return { code, stdout: io.out(), stderr: io.err(), requests: (requests.get(c.id) ?? 0) - before };
  }

  it('every case the engine passes directly passes through rsi api --jq, with the same output', async () => {
    const rows: Array<{ c: JqCase; direct: Direct; rsi: ViaRsi; pass: boolean }> = [];
    for (const c of applicable) rows.push({ c, direct: await runDirect(c), rsi: undefined as never, pass: false });
    // Four runs at a time: each waits on a socket and on the engine's thread, so they overlap.
    let next = 0;
    const lane = async () => {
      for (let row = rows[next++]; row; row = rows[next++]) {
        row.rsi = await inProcess(row.c);
        row.pass = rsiPasses(row.c, row.rsi);
      }
    };
    await Promise.all([lane(), lane(), lane(), lane()]);
    const broken = rows
      .filter((r) => r.direct.pass && (!r.pass || (!r.c.fail && r.rsi.stdout !== render(r.direct.outputs))))
      .map((r) => ({
        where: r.c.where,
        program: r.c.program,
        input: r.c.input,
        stdout: r.rsi.stdout,
        stderr: r.rsi.stderr,
        code: r.rsi.code,
      }));
    const reasons = new Map<string, number>();
    for (const c of all) {
      const why = notApplicable(c);
      if (why) reasons.set(why, (reasons.get(why) ?? 0) + 1);
    }
    const passed = rows.filter((r) => r.pass).length;
    const direct = rows.filter((r) => r.direct.pass).length;
    console.info(
      `jq 1.8.2 suite: ${all.length} cases in ${files.length} files; ${applicable.length} run, ${passed} pass through rsi, ` +
        `${direct} pass on the engine directly; ${all.length - applicable.length} not applicable:\n` +
        [...reasons].map(([why, n]) => `  ${n} ${why}`).join('\n') +
        `\n  failing on the engine directly (the engine's, not rsi's): ${rows
          .filter((r) => !r.direct.pass)
          .map((r) => `${r.c.where}${r.pass ? ' (passes through rsi)' : ''}`)
          .join(', ')}`,
    );
    expect(broken).toEqual([]);
    // The files are jq's: the counts say the parser read them (a format change would show here).
    expect(files).toHaveLength(7);
    expect(applicable.length).toBeGreaterThan(800);
    // Over 800 cases, each twice (the engine directly, then main()): CPU work that took more than
    // vitest's 300 s with two suites on 2 busy cores. An outer bound, not a speed limit.
  }, 900_000);

  it('through real processes: a sample of cases, and each rule of --jq', async () => {
    const cli = (path: string, program: string, extraEnv: Record<string, string> = {}) =>
      runCli(['api', path, `--jq=${program}`], { env: { ...env(), ...extraEnv } });
    // Every 90th applicable case, and two compile errors: run two at a time (the machine is shared).
    const sample = [...applicable.filter((_c, i) => i % 90 === 0), ...applicable.filter((c) => c.fail).slice(0, 2)];
    const failed: string[] = [];
    for (let i = 0; i < sample.length; i += 2) {
      await Promise.all(
        sample.slice(i, i + 2).map(async (c) => {
          const before = requests.get(c.id) ?? 0;
          const r = await cli(`/cases/${c.id}`, c.program);
          const pass = rsiPasses(c, { ...r, requests: (requests.get(c.id) ?? 0) - before });
          if (!pass && (await runDirect(c)).pass) failed.push(c.where);
        }),
      );
    }
    expect(failed).toEqual([]);

    // Numbers reach jq as the service sent them.
    const big = await cli('/big', '(.[0] | tostring), .[]');
    expect(big.stdout).toBe('13911860366432393\n13911860366432393\n9E+999999999\n1.10\n');
    expect(big.code).toBe(0);

    // Outputs before a runtime error are printed, then jq's words, exit 2.
    const mixed = await cli('/mixed', '.[] | .+1');
    expect(mixed.stdout).toBe('2\n');
    expect(mixed.stderr).toBe('rsi: --jq: string ("x") and number (1) cannot be added\n');
    expect(mixed.code).toBe(2);

    // A program that does not compile: jq's message, exit 2, and nothing sent.
    const before = requests.get(0) ?? 0;
    const bad = await cli('/cases/0', '1) , (2');
    expect(bad.stderr).toMatch(
      /^rsi: --jq: syntax error, unexpected INVALID_CHARACTER, expecting end of file at <top-level>, line 1, column 2\n/,
    );
    expect(bad.code).toBe(2);
    expect(requests.get(0) ?? 0).toBe(before);

    // $ENV and env are the process environment.
    const envRun = await cli('/big', '$ENV.RSI_JQ_SUITE_PROBE, env.RSI_JQ_SUITE_PROBE', { RSI_JQ_SUITE_PROBE: 'from the environment' });
    expect(envRun.stdout).toBe('from the environment\nfrom the environment\n');

    // A structure too deep for the engine's stack: one --jq line, exit 2, no crash report.
    const deep = await cli('/deep', '.');
    expect(deep.code).toBe(2);
    expect(deep.stderr).toMatch(/^rsi: --jq: [^\n]*\n$/);
    expect(deep.stderr).not.toMatch(/unexpected error|report/i);
    // A dozen rsi processes, two at a time: the same outer bound as above.
  }, 900_000);

  it.each([
    ['SIGINT', 'rsi: interrupted', 130],
    ['SIGTERM', 'rsi: stopped by SIGTERM', 143],
  ] as const)('%s stops an endless program at once (%s, exit %i)', async (signal, line, exit) => {
    const child = spawn(process.execPath, [RSI_BIN, 'api', '/big', '--jq=repeat(1)'], {
      env: cleanEnv(env()),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    // Once a megabyte of output has flowed the program is well under way: its memory is flat (the
    // output waits for stdout; nothing gathers), then the signal.
    await new Promise<void>((resolve) => {
      let read = 0;
      child.stdout.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read >= 1024 * 1024) resolve();
      });
    });
    const rss = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1]) * 1024;
    expect(rss).toBeLessThan(400 * 1024 * 1024);
    child.kill(signal);
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    expect(code).toBe(exit);
    expect(stderr).toBe(`${line}\n`);
  });
});

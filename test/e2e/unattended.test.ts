// rsi run unattended (issue 46), through real processes: wall-clock --timeout against a service that
// accepts connections and never answers, SIGTERM during a watch, and the machine's old Node.
import { spawn } from 'node:child_process';
import { chmodSync, closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHILD_BOUND_MS, RSI_BIN, cleanEnv, runCli } from '../support/cli.js';
import { useSandbox } from '../support/e2e.js';

/** package.json's engines range, as the refusal names it. */
const ENGINES = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { engines: { node: string } }).engines
  .node;

const PROJECT_ID = '00000000-0000-4000-8000-000000000046';

describe('a hanging service', () => {
  let server: Server;
  let url = '';
  const sockets = new Set<Socket>();
  beforeAll(async () => {
    // Accepts every connection and never says a word: what a wedged service looks like.
    server = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined).on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  const hang = (args: string[]) => {
    const started = Date.now();
    return runCli(args, { env: { RSI_TOKEN: 'test-token', RSI_BASE_URL: url, RSI_HTTP_TIMEOUT: '60' } }).then((r) => ({
      ...r,
      seconds: (Date.now() - started) / 1000,
    }));
  };

  it('status --watch --timeout 2 ends by its bound, not a request timeout later, and says what it waited for', async () => {
    const r = await hang(['status', PROJECT_ID, '--watch', '--timeout', '2']);
    expect(r.code, r.stderr).toBe(9);
    // A request alone may take 60 s here (RSI_HTTP_TIMEOUT), with a retry twice that: the whole
    // command must end near its 2 s, start-up on a busy machine included.
    expect(r.seconds).toBeLessThan(20);
    expect(r.stderr).toMatch(
      /^rsi: gave up after 2 s \(--timeout\) waiting for scoring to finish: no status received yet; the last status request was still unanswered$/m,
    );
  });

  it('the project lookup before the watch counts against the same bound', async () => {
    const r = await hang(['status', 'Some project', '--watch', '--timeout', '2']);
    expect(r.code, r.stderr).toBe(9);
    expect(r.seconds).toBeLessThan(20);
    expect(r.stderr).toMatch(/^rsi: gave up after 2 s \(--timeout\) waiting for the project Some project to be looked up$/m);
  });
});

describe('SIGTERM during a watch', () => {
  const e2e = useSandbox();

  function terminateOnceWatching(args: string[]): Promise<{ code: number | null; stderr: string }> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [RSI_BIN, ...args], {
        env: cleanEnv({ RSI_TOKEN: e2e.token, RSI_BASE_URL: e2e.url, RSI_CONFIG_DIR: e2e.configDir }),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      let sent = false;
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      // The first NDJSON status line: the watch is under way.
      child.stdout.setEncoding('utf8').on('data', () => {
        if (sent) return;
        sent = true;
        child.kill('SIGTERM');
      });
      const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_BOUND_MS);
      child.on('error', reject);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stderr });
      });
    });
  }

  it('status --watch exits 143, as a shell reports SIGTERM, and says how to watch again', async () => {
    // No scoring setup: the service keeps saying "wait" until --timeout.
    const id = await e2e.newProject('Watched until SIGTERM', { setup: false });
    const r = await terminateOnceWatching(['status', id, '--watch', '--json', '--interval', '0.2']);
    expect(r.code, r.stderr).toBe(143);
    expect(r.stderr).toMatch(/^rsi: stopped by SIGTERM$/m);
    expect(r.stderr).toMatch(/^hint: only the watching stopped/m);
  });

  it('analyses run --yes --wait: one line says what --yes confirmed, and SIGTERM during the wait exits 143', async () => {
    const id = await e2e.newProject('Run, then SIGTERM');
    const ready = await e2e.rsi(['status', id, '--watch', '--interval', '0.1', '--json']);
    expect(ready.code, ready.stderr).toBe(0);
    const r = await terminateOnceWatching([
      'analyses',
      'run',
      id,
      '--top',
      '2',
      '--type',
      'target',
      '--yes',
      '--wait',
      '--json',
      '--interval',
      '0.2',
    ]);
    expect(r.code, r.stderr).toBe(143);
    expect(r.stderr).not.toMatch(/asks you to confirm/);
    expect(r.stderr.split('\n').filter((line) => line.startsWith('confirmed by --yes: '))).toEqual([
      // A project given by id is named by its id.
      `confirmed by --yes: running 2 analyses for "${id}"`,
    ]);
    expect(r.stderr).toMatch(/^rsi: stopped by SIGTERM$/m);
  });
});

describe('RSI_ERROR_FORMAT=json', () => {
  const e2e = useSandbox();
  const lines = (stderr: string) =>
    stderr
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);

  it('makes each error one JSON line on stderr: code, exit, message, hint', async () => {
    const env = { RSI_ERROR_FORMAT: 'json' };
    const usage = await e2e.rsi(['keywords', 'search', 'egfr', '--limit', '99'], { env });
    expect(usage.code).toBe(2);
    expect(lines(usage.stderr)).toEqual([
      { code: 'usage', exit: 2, message: '--limit must be an integer from 1 to 20 (got "99")', hint: null },
    ]);
    const unknown = await e2e.rsi(['projects', 'list', '--bogus'], { env });
    expect(unknown.code).toBe(2);
    expect(lines(unknown.stderr)).toEqual([expect.objectContaining({ code: 'usage', exit: 2, message: "unknown option '--bogus'" })]);
    const missing = await e2e.rsi(['status', PROJECT_ID], { env });
    expect(missing.code).toBe(4);
    expect(lines(missing.stderr)).toEqual([
      {
        code: 'forbidden',
        exit: 4,
        message: expect.stringContaining('may not exist, or you may not be a member of it'),
        hint: 'the projects you belong to: `rsi projects list`',
      },
    ]);
    const signedOut = await e2e.rsi(['projects', 'list'], { env: { ...env, RSI_TOKEN: undefined } });
    expect(signedOut.code).toBe(3);
    expect(lines(signedOut.stderr)).toEqual([
      expect.objectContaining({ code: 'not_signed_in', exit: 3, hint: expect.stringContaining('rsi') }),
    ]);
    // A batch's failed item carries the input it answers, then the batch's own error.
    const batch = await e2e.rsi(['keywords', 'get', '-', '--json'], { env, input: 'EGFR\nno such keyword 46\n' });
    expect(batch.code).toBe(11);
    const [item, end] = lines(batch.stderr);
    expect(item).toEqual(expect.objectContaining({ input: 'no such keyword 46', exit: 2 }));
    expect(end).toEqual(expect.objectContaining({ code: 'batch_items_failed', exit: 11 }));
  });
});

describe('a local write that fails', () => {
  const runTo = (args: string[], stdout: number, env: Record<string, string> = {}) =>
    new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [RSI_BIN, ...args], { env: cleanEnv(env), stdio: ['ignore', stdout, 'pipe'] });
      let stderr = '';
      child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stderr }));
    });

  it.runIf(existsSync('/dev/full'))('output to a full disk is an I/O error with its own line, exit 12', async () => {
    const full = openSync('/dev/full', 'w');
    try {
      for (const args of [['completion', 'bash'], ['--help']]) {
        const r = await runTo(args, full);
        expect(r.code, args.join(' ')).toBe(12);
        expect(r.stderr).toBe(
          'rsi: cannot write the output (stdout): no space left on the device (ENOSPC)\nhint: free some space, or write somewhere else, and run again\n',
        );
      }
      const json = await runTo(['completion', 'bash'], full, { RSI_ERROR_FORMAT: 'json' });
      expect(JSON.parse(json.stderr)).toEqual(expect.objectContaining({ code: 'io_error', exit: 12 }));
    } finally {
      closeSync(full);
    }
  });

  it.runIf(process.getuid?.() !== 0)('a read-only config folder is an I/O error naming the file, exit 12', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rsi-ro-'));
    try {
      chmodSync(dir, 0o500);
      const r = await runCli(['config', 'set', 'format', 'json'], { env: { RSI_CONFIG_DIR: dir } });
      expect(r.code, r.stderr).toBe(12);
      expect(r.stderr).toMatch(/^rsi: cannot write .*config\.json.*: permission denied \(EACCES\)$/m);
    } finally {
      chmodSync(dir, 0o700);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('an older Node than engines', () => {
  // The machine's own node (Node 20), which cron's PATH finds first.
  const oldNode = '/usr/bin/node';
  const run = (args: string[]) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(oldNode, [RSI_BIN, ...args], {
        env: cleanEnv({ RSI_BASE_URL: 'http://127.0.0.1:9' }),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
      child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });

  it.runIf(existsSync(oldNode))('stops every command with one line naming both versions, exit 1', async () => {
    const { version } = await run(['--version']).then((r) => ({ version: r.stdout.trim() }));
    expect(version).toMatch(/^\d+\.\d+\.\d+/);
    const probe = spawn(oldNode, ['-p', 'process.versions.node']);
    let running = '';
    probe.stdout.setEncoding('utf8').on('data', (c: string) => (running += c));
    await new Promise((resolve) => probe.on('close', resolve));
    expect(Number(running.split('.')[0])).toBeLessThan(22);
    for (const args of [['projects', 'list'], ['--profile', 'x', 'status', 'P'], ['help']]) {
      const r = await run(args);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(
        `rsi: Node.js ${running.trim()} is running, but rsi needs Node.js ${ENGINES} (${oldNode}); put a newer node first on PATH\n`,
      );
    }
    // doctor still runs, and says the same among its checks.
    // …after any global option that takes a value (each is skipped with its value to find the word).
    for (const globals of [
      ['--profile', 'x'],
      ['--timeout', '5s'],
      ['--http-timeout', '5', '--format', 'json'],
    ]) {
      const doctor = await run([...globals, 'doctor', '--json']);
      expect(doctor.stderr, globals.join(' ')).not.toMatch(/is running, but rsi needs/);
      expect(JSON.parse(doctor.stdout)).toContainEqual(expect.objectContaining({ name: 'Node.js', ok: false }));
    }
  });
});

// `rsi status` once and with --watch, end to end against a sandbox child process; watches jump
// the sandbox clock instead of racing it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { RSI_BIN, cleanEnv, runCli, CHILD_BOUND_MS } from '../support/cli.js';
import { obtainTokens } from '../support/oauth.js';
import { advanceSandbox } from '../support/sandbox.js';
import { startSandbox, type InProcessSandbox } from '../support/inproc.js';

interface Status {
  signals_ready: boolean;
  scoring: string;
  next: string;
  analyses: Array<{ status?: string; keyword_name?: string }>;
}

let sandbox: InProcessSandbox;
let configDir: string;
let token: string;

const rsi = (args: string[]) => runCli(args, { env: { RSI_TOKEN: token, RSI_BASE_URL: sandbox.url, RSI_CONFIG_DIR: configDir } });

async function api(method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${sandbox.url}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(res.status, await res.clone().text()).toBeLessThan(300);
  return res.json();
}

async function newProject(name: string): Promise<string> {
  const { id } = (await api('POST', '/projects', { name })) as { id: string };
  const form = await fetch(`${sandbox.url}/projects/${id}/setup`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: '',
    redirect: 'manual',
  });
  expect(form.status).toBeLessThan(400);
  return id;
}

/**
 * Runs a watch and, once it has printed its first state, jumps the sandbox clock past the scan:
 * the test sees "scanning" then "ready" however slow the machine is.
 */
function watchThenAdvance(
  args: string[],
  firstSeen: (out: { stdout: string; stderr: string }) => boolean,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [RSI_BIN, ...args], {
      env: cleanEnv({ RSI_TOKEN: token, RSI_BASE_URL: sandbox.url, RSI_CONFIG_DIR: configDir }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out = { stdout: '', stderr: '' };
    let advanced = false;
    const check = (): void => {
      if (advanced || !firstSeen(out)) return;
      advanced = true;
      advanceSandbox(sandbox, 31).catch(reject);
    };
    child.stdout.setEncoding('utf8').on('data', (c: string) => ((out.stdout += c), check()));
    child.stderr.setEncoding('utf8').on('data', (c: string) => ((out.stderr += c), check()));
    const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_BOUND_MS);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, ...out });
    });
  });
}

const lines = (text: string) =>
  text
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as Status);

beforeAll(async () => {
  // Real-time clock: a new project's scan lasts 30 s unless a test jumps the clock.
  sandbox = await startSandbox(['--auto-approve', '--quiet']);
  token = (await obtainTokens(sandbox.url)).access_token;
  configDir = mkdtempSync(join(tmpdir(), 'rsi-e2e-'));
});

afterAll(async () => {
  await sandbox?.stop();
  if (configDir) rmSync(configDir, { recursive: true, force: true });
});

describe('status once', () => {
  it('--json prints the ProjectStatus body', async () => {
    const r = await rsi(['status', 'Oncology watchlist', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const status = JSON.parse(r.stdout) as Status;
    expect(status).toMatchObject({ scoring: 'done', signals_ready: true });
    expect(status.analyses.length).toBeGreaterThan(0);
  });

  it('piped: one tsv document (a status row, then the analyses) on stdout, the summary on stderr; exit 0 even with failures', async () => {
    const r = await rsi(['status', 'Oncology watchlist']);
    expect(r.code, r.stderr).toBe(0);
    const rows = r.stdout.trimEnd().split('\n');
    expect(rows.length).toBeGreaterThan(1);
    // section, signals_ready, scoring, next, summary, keyword_id, keyword_name, task_id, status, updated_at, runs
    for (const row of rows) expect(row.split('\t')).toHaveLength(11);
    expect(rows[0]!.split('\t').slice(0, 3)).toEqual(['status', 'true', 'done']);
    expect(rows.slice(1).every((row) => row.startsWith('analysis\t'))).toBe(true);
    expect(r.stderr).toMatch(/^Scoring: +done/m);
    expect(r.stderr).toMatch(/^Next: /m);
  });

  it('an unknown project name: exit 2', async () => {
    const r = await rsi(['status', 'No such project']);
    expect(r.code).toBe(2);
  });

  it('a project the user does not belong to, by id: exit 4', async () => {
    // "Competitor intel" is not listed for this user, so only its id could reach the API; an
    // unknown id answers the same way (403: not a member).
    const r = await rsi(['status', '00000000-0000-4000-8000-000000000000']);
    expect(r.code, r.stderr).toBe(4);
  });
});

describe('status --watch', () => {
  it('--json: one ProjectStatus per line from scan to signals, the last line the final state', async () => {
    const id = await newProject('Watched scan');
    const r = await watchThenAdvance(['status', id, '--watch', '--interval', '0.1', '--json'], (o) => o.stdout.includes('\n'));
    expect(r.code, r.stderr).toBe(0);
    const states = lines(r.stdout);
    expect(states[0]!.next).toBe('wait');
    expect(states.at(-1)!.next).not.toBe('wait');
    expect(states.at(-1)!.signals_ready).toBe(true);
    // Only changes are printed: no two neighbouring lines are the same.
    for (let i = 1; i < states.length; i++) expect(states[i]).not.toEqual(states[i - 1]);
    expect(r.stderr).toBe('');
  });

  it('piped, human: one progress line per change on stderr, then the final status', async () => {
    const id = await newProject('Watched plainly');
    const r = await watchThenAdvance(['status', id, '--watch', '--interval', '0.1'], (o) => o.stderr.includes('scanning for signals'));
    expect(r.code, r.stderr).toBe(0);
    const progress = r.stderr.split('\n').filter((l) => l.startsWith('scanning') || l.startsWith('scoring'));
    expect(progress[0]).toMatch(/^scanning for signals · The discovery scan is running/);
    expect(new Set(progress).size).toBe(progress.length);
    expect(r.stderr).toMatch(/^Signals: +ready/m);
  });

  it('returns at once when the user must act', async () => {
    const r = await rsi(['status', 'KRAS inhibitors', '--watch', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(lines(r.stdout)).toHaveLength(1);
  });

  it('a failure from before the watch is reported, not exit 10; plain status exits 0 too', async () => {
    // Seeded: 6 analyses finished, the one of rank 7 failed.
    const once = await rsi(['status', 'Oncology watchlist', '--json']);
    expect(once.code).toBe(0);
    expect((JSON.parse(once.stdout) as Status).analyses.filter((a) => a.status === 'failed')).toHaveLength(1);
    const watched = await rsi(['status', 'Oncology watchlist', '--watch', '--json']);
    // Exit 10 is for failures this watch saw happen (test/e2e/fidelity.test.ts has that case).
    expect(watched.code, watched.stderr).toBe(0);
    expect(watched.stderr).toMatch(/^note: 1 analysis of "Oncology watchlist" had failed before/m);
    expect(lines(watched.stdout)).toHaveLength(1);
  });
});

// The small things of issue 43 (item 8), through real processes: the README's exit table, the next
// step after `analyses run` without --wait, the setup URL printed once on exit 6, and a demo that
// is the same every run (`rsi sandbox --seed`).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv } from '../support/cli.js';
import { useSandbox } from '../support/e2e.js';
import { obtainTokens } from '../support/oauth.js';
import { type InProcessSandbox, startSandbox } from '../support/inproc.js';
import { runBash } from '../support/shell.js';

const e2e = useSandbox(['--time-scale', '50']);

describe('README exit table', () => {
  it('says 2 is also an unknown name, which it is', async () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const row = readme.split('\n').find((l) => l.startsWith('| 2 |'))!;
    expect(row).toMatch(/unknown or ambiguous name/);
    const r = await e2e.rsi(['status', 'No project of this name']);
    expect(r.code).toBe(2);
  });
});

describe('analyses run', () => {
  const NAME = "Bob's $(targets)";
  beforeAll(async () => {
    await e2e.newProject(NAME);
    const watched = await e2e.rsi(['status', NAME, '--watch', '--interval', '0.1', '--json']);
    expect(watched.code, watched.stderr).toBe(0);
  });

  it('without --wait, a table ends with how to follow the runs, the name quoted for a shell', async () => {
    const r = await e2e.rsi(['analyses', 'run', NAME, '--top', '1', '--type', 'target', '--yes', '--format', 'table']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("Next: follow it with `rsi status 'Bob'\\''s $(targets)' --watch`\n");
    // The line is a command that works as pasted into a shell (without --watch: its status once).
    const pasted = /`(rsi status .*) --watch`/.exec(r.stderr)![1]!;
    const env = { RSI_TOKEN: e2e.token, RSI_BASE_URL: e2e.url, RSI_CONFIG_DIR: e2e.configDir };
    const followed = await runBash(`${pasted} --json`, { env });
    expect(followed.code, followed.stderr).toBe(0);
    expect(JSON.parse(followed.stdout)).toHaveProperty('scoring');
  });

  it('with --json, no such line: the data alone', async () => {
    const r = await e2e.rsi(['analyses', 'run', NAME, '--top', '1', '--type', 'target', '--yes', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('Next:');
  });

  it('exit 6 (scoring setup missing) prints the setup URL once', async () => {
    const id = await e2e.newProject('Setup never finished', { setup: false });
    const r = await e2e.rsi(['analyses', 'run', id, '--top', '1', '--type', 'target', '--yes']);
    expect(r.code).toBe(6);
    const url = `${e2e.url}/projects/${id}/overview?setup=1`;
    expect(r.stderr.split(url).length - 1, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/^hint: finish the project's scoring setup in the browser \(at the URL above\)$/m);
  });
});

describe('rsi sandbox --seed', () => {
  const sandboxes: InProcessSandbox[] = [];
  afterAll(async () => {
    await Promise.all(sandboxes.map((s) => s.stop()));
  });

  /** A project made in a fresh sandbox with this seed: its id and its signals' names in rank order. */
  async function projectIn(seed: string): Promise<{ id: string; signals: string[] }> {
    const sandbox = await startSandbox(['--auto-approve', '--quiet', '--time-scale', '50', '--seed', seed]);
    sandboxes.push(sandbox);
    const { access_token: token } = await obtainTokens(sandbox.url);
    const api = (path: string, init: RequestInit = {}) =>
      fetch(`${sandbox.url}/api/v1${path}`, { ...init, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } });
    const { id } = (await (await api('/projects', { method: 'POST', body: JSON.stringify({ name: 'Seeded' }) })).json()) as { id: string };
    await fetch(`${sandbox.url}/projects/${id}/setup`, { method: 'POST', redirect: 'manual' });
    await expect
      .poll(async () => ((await (await api(`/projects/${id}/status`)).json()) as { signals_ready: boolean }).signals_ready)
      .toBe(true);
    const { signals } = (await (await api(`/projects/${id}/signals`)).json()) as { signals: Array<{ name: string }> };
    return { id, signals: signals.map((s) => s.name) };
  }

  it('the same seed gives the same ids and signals; another seed others', async () => {
    const [a, b, c] = await Promise.all([projectIn('one'), projectIn('one'), projectIn('two')]);
    expect(a.signals.length).toBeGreaterThan(0);
    expect(b).toEqual(a);
    expect(c.id).not.toBe(a.id);
    expect(c.signals).not.toEqual(a.signals);
  });
});

describe('npm run demo', () => {
  it('is the same every run: its seed fails one analysis, and it says how to retry it', async () => {
    const demo = fileURLToPath(new URL('../demo/demo.mjs', import.meta.url));
    const out = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [demo], { env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
      child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toContain('seed "demo": the same data every run');
    // The seed "demo" makes GLP-1R (rank 7 of the project's signals) the one that fails, every run.
    expect(out.stdout).toContain('$ rsi analyses run "EGFR resistance demo" --select GLP-1R --yes --wait');
  });
});

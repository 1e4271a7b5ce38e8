// The misbehaving-server catalogue: each sandbox fault, as a real rsi process meets it. The right
// exit code, nothing partial on stdout, retries only where safe — and the sandbox's own counters
// prove that a POST was never repeated.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { sandboxStats } from '../support/sandbox.js';
import { obtainTokens } from '../support/oauth.js';
import { runCli, startSandbox, type InProcessSandbox } from '../support/inproc.js';

const FAULTS = ['truncated-json', 'bad-schema', 'hang', 'reset', 'rate-limit', 'flaky-503', 'slow', 'analyses-504', 'html-502'] as const;
// The tests run side by side (most of their time is retry backoffs and timeouts), so every test that
// reads the sandbox's counters has a sandbox to itself: the second 'reset' test gets its own.
const SANDBOXES = { ...Object.fromEntries(FAULTS.map((f) => [f, f])), 'reset-post': 'reset' } as Record<Name, Fault>;
type Fault = (typeof FAULTS)[number];
type Name = Fault | 'reset-post';
const sandboxes = new Map<Name, { sb: InProcessSandbox; token: string }>();
const KRAS = '49dbcd30-6d6d-5043-8f83-feb4b3ba6ca9';

beforeAll(async () => {
  await Promise.all(
    Object.entries(SANDBOXES).map(async ([name, fault]) => {
      const sb = await startSandbox(['--auto-approve', '--quiet', '--time-scale', '20', '--fault', fault]);
      sandboxes.set(name as Name, { sb, token: (await obtainTokens(sb.url)).access_token });
    }),
  );
});
afterAll(async () => {
  await Promise.all([...sandboxes.values()].map(({ sb }) => sb.stop()));
});

function rsi(name: Name, args: string[], extra: string[] = []) {
  const { sb, token } = sandboxes.get(name)!;
  return runCli([...extra, ...args], {
    env: { RSI_TOKEN: token, RSI_BASE_URL: sb.url, RSI_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'rsi-srv-')) },
  });
}

const stats = (name: Name) => sandboxStats(sandboxes.get(name)!.sb.url);

describe.concurrent('a misbehaving server', () => {
  it('HTML 502 from a proxy: exit 8, the page is never printed or parsed', async ({ expect }) => {
    const r = await rsi('html-502', ['keywords', 'search', 'egfr', '--json']);
    expect(r.code).toBe(8);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^rsi: .*502/);
    expect(r.stderr).not.toContain('<html');
  });

  it('truncated JSON: exit 1 "unexpected reply", nothing on stdout', async ({ expect }) => {
    const r = await rsi('truncated-json', ['projects', 'list', '--json']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^rsi: unexpected reply/);
  });

  it('JSON that breaks the spec: exit 1 naming the field, nothing on stdout', async ({ expect }) => {
    const r = await rsi('bad-schema', ['keywords', 'search', 'egfr', '--json']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /^rsi: unexpected reply from GET \/keywords: data\.0\.name: Invalid input: expected string, received number$/m,
    );
  });

  it('a server that hangs: exit 8 after the timeout, not forever', async ({ expect }) => {
    const r = await rsi('hang', ['projects', 'list'], ['--http-timeout', '1']);
    expect(r.code).toBe(8);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^rsi: .*timed out after 1 s/);
  });

  it('connection reset mid-body: GETs are retried, then exit 8 with nothing partial', async ({ expect }) => {
    const before = await stats('reset');
    const r = await rsi('reset', ['projects', 'list', '--json']);
    expect(r.code).toBe(8);
    expect(r.stdout).toBe('');
    const after = await stats('reset');
    expect(after.byRoute['GET /api/v1/projects']! - (before.byRoute['GET /api/v1/projects'] ?? 0)).toBe(4);
  });

  it('429 with Retry-After: the GET waits and succeeds', async ({ expect }) => {
    const r = await rsi('rate-limit', ['projects', 'list', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).projects.length).toBeGreaterThan(0);
  });

  it('503 then success: the GET is retried once and succeeds', async ({ expect }) => {
    const before = await stats('flaky-503');
    const r = await rsi('flaky-503', ['keywords', 'search', 'kras', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).data[0].name).toBe('KRAS');
    const after = await stats('flaky-503');
    expect(after.byRoute['GET /api/v1/keywords']! - (before.byRoute['GET /api/v1/keywords'] ?? 0)).toBe(2);
  });

  it('504 on analyses run: exit 8, exactly one POST, zero runs recorded, "safe to run again"', async ({ expect }) => {
    const before = await stats('analyses-504');
    const r = await rsi('analyses-504', ['analyses', 'run', KRAS, '--top', '2', '--type', 'target', '--yes']);
    expect(r.code).toBe(8);
    expect(r.stderr).toContain('no run was recorded');
    expect(r.stderr).toMatch(/again is safe/);
    const after = await stats('analyses-504');
    const key = 'POST /api/v1/projects/{projectId}/analyses';
    // One POST that the service answers with needs_confirmation, one with confirmed: true that
    // gets the 504 — and no automatic third.
    expect(after.byRoute[key]! - (before.byRoute[key] ?? 0)).toBe(2);
    expect(after.runs).toBe(0);
  });

  it('a POST is not retried after a reset either: projects create fails once, clearly', async ({ expect }) => {
    const before = await stats('reset-post');
    const r = await rsi('reset-post', ['projects', 'create', '--name', 'reset me', '--json']);
    expect(r.code).toBe(8);
    expect(r.stdout).toBe('');
    const after = await stats('reset-post');
    expect(after.byRoute['POST /api/v1/projects']! - (before.byRoute['POST /api/v1/projects'] ?? 0)).toBe(1);
  });

  it('slow responses under status --watch: the watch still ends right', async ({ expect }) => {
    const r = await rsi('slow', ['status', 'KRAS inhibitors', '--watch', '--interval', '0.2', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const last = JSON.parse(r.stdout.trim().split('\n').at(-1)!);
    expect(last.next).not.toBe('wait');
  });
});

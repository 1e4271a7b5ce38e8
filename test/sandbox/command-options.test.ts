// `rsi sandbox` flags: --latency (a network-like delay on every answer), --port with a chosen
// number (the README's known address), --quiet, and the admin secret's sources. Flag parsing is
// checked through the command's own parsing (build); behaviour through real sandboxes (in-process and the process).
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as sandbox from '../../src/commands/sandbox/sandbox.js';
import { UsageError } from '../../src/errors.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { runCli } from '../support/cli.js';
import { parseFlags } from '../support/commands.js';
import { fakeCtx, fakeIo } from '../support/fakes.js';
import { obtainTokens } from '../support/oauth.js';
import { sandboxAdmin, startSandbox as startProcess } from '../support/sandbox.js';

/** The options `rsi sandbox ARGV` runs with, in an environment of `env`. */
const parse = (argv: string[], env: Record<string, string> = {}) => parseFlags(sandbox.build, argv, fakeCtx(fakeIo(false), { env }));

describe('the options', () => {
  it('defaults: no latency, no secret (the sandbox makes one), not quiet', async () => {
    expect(await parse([])).toMatchObject({ latencyMs: 0, adminSecret: undefined, quiet: false, port: 0 });
  });

  it('--latency takes whole milliseconds from 0 to 60000', async () => {
    expect((await parse(['--latency', '50'])).latencyMs).toBe(50);
    expect((await parse(['--latency', '60000'])).latencyMs).toBe(60000);
    for (const bad of ['-1', '1.5', 'abc', '', '60001']) await expect(parse(['--latency', bad])).rejects.toThrow(UsageError);
  });

  it('the admin secret: the flag wins over RSI_SANDBOX_ADMIN_SECRET; an empty variable means none', async () => {
    const env = { RSI_SANDBOX_ADMIN_SECRET: 'from-the-environment-123' };
    expect((await parse([], env)).adminSecret).toBe('from-the-environment-123');
    expect((await parse(['--admin-secret', 'from-the-flag-0123456789'], env)).adminSecret).toBe('from-the-flag-0123456789');
    expect((await parse([], { RSI_SANDBOX_ADMIN_SECRET: '' })).adminSecret).toBeUndefined();
  });

  it('--port takes a fixed number', async () => {
    expect((await parse(['--port', '8765'])).port).toBe(8765);
  });
});

describe('--latency', () => {
  let sb: Sandbox;
  let token: string;
  const LATENCY = 300;
  beforeAll(async () => {
    sb = await startSandbox({ autoApprove: true, latencyMs: LATENCY });
    token = (await obtainTokens(sb.url)).access_token;
  });
  afterAll(async () => {
    await sb?.close();
  });

  // A lower bound only: a delayed answer can never come sooner, however loaded the machine is.
  const elapsed = async (f: () => Promise<Response>): Promise<number> => {
    const start = performance.now();
    const res = await f();
    await res.arrayBuffer();
    expect(res.status).toBeLessThan(500);
    return performance.now() - start;
  };

  it('delays API, OAuth and page answers by at least the latency', async () => {
    expect(
      await elapsed(() => fetch(`${sb.url}/api/v1/projects`, { headers: { authorization: `Bearer ${token}` } })),
    ).toBeGreaterThanOrEqual(LATENCY - 5);
    expect(await elapsed(() => fetch(`${sb.url}/.well-known/oauth-authorization-server`))).toBeGreaterThanOrEqual(LATENCY - 5);
    expect(await elapsed(() => fetch(`${sb.url}/`))).toBeGreaterThanOrEqual(LATENCY - 5);
  });

  it('concurrent requests are all answered, and close() ends delayed ones without waiting for them', async () => {
    const replies = await Promise.all(
      Array.from({ length: 8 }, () => fetch(`${sb.url}/api/v1/keywords?q=egfr`, { headers: { authorization: `Bearer ${token}` } })),
    );
    expect(replies.map((r) => r.status)).toEqual(Array(8).fill(200));
    const other = await startSandbox({ latencyMs: 60_000 });
    const pending = fetch(`${other.url}/`).catch((e: unknown) => e);
    // A head start for the request, not a wait the assertion depends on: a request that has not
    // arrived yet fails on close() just the same, so slowness cannot trip this.
    await new Promise((r) => setTimeout(r, 50));
    await other.close(); // would hang for a minute if the delay held the connection
    expect(await pending).toBeInstanceOf(Error);
  });

  it('admin routes are outside the simulated service: not counted', async () => {
    const before = (await (await sandboxAdmin(sb, 'stats')).json()) as { requests: number };
    const after = (await (await sandboxAdmin(sb, 'stats')).json()) as { requests: number };
    expect(after.requests).toBe(before.requests);
  });
});

describe('rsi sandbox process: --port N, --latency, --quiet', () => {
  async function freePort(): Promise<number> {
    const srv = createServer();
    await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
    const { port } = srv.address() as { port: number };
    await new Promise<void>((resolve) => srv.close(() => resolve()));
    return port;
  }

  it('listens on the port it is given, says the latency, and --quiet silences the request log', async () => {
    // A port free a moment ago may be taken by then (another suite runs beside this one): another
    // free port is tried, never a fixed one.
    let port = 0;
    let p: Awaited<ReturnType<typeof startProcess>> | undefined;
    for (let attempt = 0; !p; attempt++) {
      port = await freePort();
      p = await startProcess(['--port', String(port), '--latency', '20', '--quiet']).catch((e: unknown) => {
        if (attempt < 10 && /already in use/.test(String(e))) return undefined;
        throw e;
      });
    }
    try {
      expect(p.url).toBe(`http://127.0.0.1:${port}`);
      expect((await fetch(`${p.url}/api/v1/projects`)).status).toBe(401);
      expect(p.stderr()).toContain('latency 20 ms');
      expect(p.stderr()).not.toMatch(/sandbox: GET /);
    } finally {
      await p.stop();
    }
  });

  it('without --quiet each request is logged on stderr', async () => {
    const p = await startProcess([]);
    try {
      await fetch(`${p.url}/api/v1/projects`);
      // The log line is written before the answer, but the pipe may carry it later: wait for it,
      // with an outer bound a busy machine cannot trip.
      const end = Date.now() + 120_000;
      while (!p.stderr().includes('sandbox: GET /api/v1/projects') && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
      expect(p.stderr()).toContain('sandbox: GET /api/v1/projects');
    } finally {
      await p.stop();
    }
  });

  it.each([['-5'], ['abc'], ['1.5'], ['60001']])('--latency %s is a usage error: exit 2, one line', async (value) => {
    const r = await runCli(['sandbox', '--latency', value]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^rsi: --latency must be an integer from 0 to 60000/);
  });
});

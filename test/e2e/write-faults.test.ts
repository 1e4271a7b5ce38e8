// The fault matrix of issue 52: every write (projects create; analyses run with --top, with
// --select, with --selections from stdin; the MCP tools create_project and run_analyses) against
// a loopback service that records each write it receives and then loses the reply in one way.
// Each cell asserts what the service received (the write once, or twice only where the protocol
// says the first was not acted on: 429, 503 with Retry-After), the exit code, and the outcome told
// (done and "confirmed by reading back", not done, or unknown with a command that checks).
// `rsi` runs as main() in this process; the service is a small stub here, so each fault is exact.
// docs/reliability.md, "Writes: sent once, and told", is the table these cells hold.
import { mkdtempSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/client/client.js';
import { systemClock } from '../../src/context.js';
import { Network } from '../../src/http/network.js';
import { RetryingHttp } from '../../src/http/retrying-http.js';
import { main } from '../../src/main.js';
import { cleanEnv } from '../support/cli.js';
import { data, serve, text } from '../unit/mcp-tools.harness.js';

const PID = '0b0c5d5e-0000-4000-8000-0000000000aa';
const KID = '0b0c5d5e-0000-4000-8000-0000000000bb';
const SID = '0b0c5d5e-0000-4000-8000-0000000000cc';

/** How the service loses the reply to the write (the POST that records). */
type Fault =
  | 'none'
  /** Reads the write, records it, and closes the connection without a word. */
  | 'close'
  /** As close, and then the service stays down: the read-back fails too. */
  | 'close-down'
  /** Records it, sends the status line and half the body, and closes. */
  | 'cut'
  /** Records it and never answers. */
  | 'hang'
  /** 429 (not recorded), then the write goes through. */
  | '429'
  /** 503 with Retry-After (not recorded), then the write goes through. */
  | '503-retry-after'
  /** 503 without Retry-After (not recorded, a gateway's word). */
  | '503'
  /** Every read hangs (the look for a project of the same name, the status). */
  | 'hang-reads';

interface Scenario {
  fault: Fault;
  /** Every reply says Connection: close, so each request goes on a new connection. */
  fresh: boolean;
  /** Write POSTs received (the question a --top run asks first is not one). */
  writes: number;
  /** Writes the service recorded. */
  recorded: number;
  projects: { id: string; name: string; role: string }[];
  runs: { id: string; keyword_id: string }[];
  down: boolean;
  /** Called when a write POST arrives (the signal cell stops rsi then). */
  onWrite?: () => void;
  hung: ServerResponse[];
}

const scenarios = new Map<string, Scenario>();
let server: Server;
let port: number;
/**
 * A port nobody listens on: connections are refused before a byte of the request leaves. Port 1,
 * not one freed a moment before, which another suite's listen(0) may be given (docs/testing.md).
 */
const refusedBase = 'http://127.0.0.1:1';
let configDir: string;

function scenario(fault: Fault, fresh = false): { name: string; s: Scenario } {
  const name = `s${scenarios.size}`;
  const s: Scenario = { fault, fresh, writes: 0, recorded: 0, projects: [], runs: [], down: false, hung: [] };
  scenarios.set(name, s);
  return { name, s };
}

function send(res: ServerResponse, s: Scenario, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...(s.fresh ? { connection: 'close' } : {}), ...headers });
  res.end(JSON.stringify(body));
}

/** The write itself: records it unless the fault says the service refused it. */
function write(req: IncomingMessage, res: ServerResponse, s: Scenario, record: () => unknown, status: number) {
  s.writes += 1;
  s.onWrite?.();
  const refusedOnce = (s.fault === '429' || s.fault === '503-retry-after') && s.writes === 1;
  if (refusedOnce) return send(res, s, s.fault === '429' ? 429 : 503, { error: 'busy' }, { 'retry-after': '0' });
  if (s.fault === '503') return send(res, s, 503, { error: 'unavailable' });
  s.recorded += 1;
  const reply = record();
  switch (s.fault) {
    case 'close-down':
      s.down = true;
      return void req.socket.destroy();
    case 'close':
      return void req.socket.destroy();
    case 'cut': {
      const text = JSON.stringify(reply);
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(text.length) });
      res.write(text.slice(0, text.length >> 1), () => res.socket?.destroy());
      return;
    }
    case 'hang':
      s.hung.push(res);
      return;
    default:
      return send(res, s, status, reply);
  }
}

function handle(req: IncomingMessage, res: ServerResponse, body: string) {
  const [, name = '', ...rest] = (req.url ?? '').split('?')[0]!.split('/');
  const s = scenarios.get(name);
  const path = `/${rest.join('/')}`.replace(/^\/api\/v1/, '');
  if (!s) return void res.writeHead(404).end();
  // Down after the lost reply: every read fails at once (a 500 is not retried), so the read-back does too.
  if (s.down) return send(res, s, 500, { error: 'down' });
  const json = body ? JSON.parse(body) : {};
  if (req.method === 'GET' && path === '/projects' && s.fault === 'hang-reads') return void s.hung.push(res);
  if (req.method === 'GET' && path === '/projects') return send(res, s, 200, { projects: s.projects });
  if (req.method === 'POST' && path === '/projects') {
    return write(
      req,
      res,
      s,
      () => {
        const id = `0b0c5d5e-0000-4000-8000-${String(s.projects.length + 1).padStart(12, '0')}`;
        s.projects.push({ id, name: json.name, role: 'owner' });
        return { id, name: json.name, role: 'owner', setup_url: `http://127.0.0.1:${port}/${name}/projects/${id}/overview?setup=1` };
      },
      201,
    );
  }
  if (req.method === 'GET' && path === `/projects/${PID}/status`) {
    return send(res, s, 200, {
      signals_ready: true,
      scoring: s.runs.length ? 'running' : 'not_started',
      summary: s.runs.length ? 'Scoring is running.' : 'Signals are ready.',
      next: s.runs.length ? 'wait' : 'run_analyses',
      analyses: s.runs.map((r) => ({
        keyword_id: r.keyword_id,
        status: 'running',
        runs: [{ id: r.id, type: 'score', status: 'running' }],
      })),
    });
  }
  if (req.method === 'GET' && path === `/projects/${PID}/signals`) {
    // What the MCP tool names in its question before a run (the one signal of this project).
    const signals = [{ keyword_id: KID, signal_keyword_id: SID, name: 'EGFR', type: 'target', analysed: false }];
    return send(res, s, 200, {
      analysis_mode: 'most_promising',
      analysis_mode_label: 'Most promising',
      filter: 'all',
      total: 1,
      unanalysed_total: 1,
      signals,
    });
  }
  if (req.method === 'POST' && path === `/projects/${PID}/analyses`) {
    // A --top request asks first, as the service does; that question records nothing.
    if (json.top && !json.confirmed) {
      return send(res, s, 202, { needs_confirmation: true, assumption: 'Score the top 1 target.', available: 3, limit: 1, runs: [] });
    }
    return write(
      req,
      res,
      s,
      () => {
        const runs = (json.selections ?? [{ signal_keyword_id: SID }]).map((sel: { signal_keyword_id: string }, i: number) => ({
          id: `run-${s.runs.length + i + 1}`,
          keyword_id: sel.signal_keyword_id,
        }));
        s.runs.push(...runs);
        return {
          needs_confirmation: false,
          runs: runs.map((r: { id: string; keyword_id: string }) => ({ ...r, kind: 'score' })),
          skipped: [],
        };
      },
      202,
    );
  }
  send(res, s, 404, { error: 'not found' });
}

beforeAll(async () => {
  configDir = mkdtempSync(join(tmpdir(), 'rsi-write-faults-'));
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => handle(req, res, body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  for (const s of scenarios.values()) for (const res of s.hung) res.destroy();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** `rsi ARGS` in this process, with `stop` standing for SIGTERM. */
async function rsi(
  base: string,
  args: string[],
  options: { input?: string; stop?: AbortSignal } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c) => (out += c));
  stderr.on('data', (c) => (err += c));
  const code = await main({
    argv: args,
    env: cleanEnv({ RSI_TOKEN: 'write-faults-token', RSI_BASE_URL: base, RSI_CONFIG_DIR: configDir }),
    stdio: { stdin: Readable.from(options.input ? [Buffer.from(options.input)] : []), stdout, stderr },
    ...(options.stop ? { signal: options.stop } : {}),
  });
  return { code, stdout: out, stderr: err };
}

const WRITES = {
  create: { args: ['projects', 'create', '--name', 'Lung', '--json'], asks: 0 },
  top: { args: ['analyses', 'run', PID, '--top', '1', '--type', 'target', '--yes', '--json'], asks: 1 },
  select: { args: ['analyses', 'run', PID, '--select', `${KID}:${SID}`, '--json'], asks: 0 },
  batch: {
    args: ['analyses', 'run', PID, '--selections', '-', '--json'],
    asks: 0,
    input: JSON.stringify([{ keyword_id: KID, signal_keyword_id: SID }]),
  },
} as const;
type Write = keyof typeof WRITES;

const DONE = /confirmed by reading back/;
const NOT_SENT = /nothing was sent/;
const NOT_DONE = /did not happen/;

/** fault, fresh connections, write POSTs received, exit code, what stderr says. */
const CELLS: Array<[Fault, boolean, number, number, RegExp | undefined]> = [
  ['none', false, 1, 0, undefined],
  ['close', true, 1, 0, DONE],
  ['close', false, 1, 0, DONE],
  ['close-down', false, 1, 8, /is unknown: reading the service back failed too/],
  ['cut', false, 1, 0, DONE],
  ['hang', false, 1, 0, DONE],
  ['429', false, 2, 0, undefined],
  ['503-retry-after', false, 2, 0, undefined],
  ['503', false, 1, 8, NOT_DONE],
];

describe('each write × each lost reply: sent once, and the outcome told', () => {
  for (const write of Object.keys(WRITES) as Write[]) {
    for (const [fault, fresh, writes, exit, says] of CELLS) {
      it(`${write} × ${fault}${fresh ? ' (fresh connections)' : ''} → ${writes} write(s) received, exit ${exit}`, async () => {
        const { name, s } = scenario(fault, fresh);
        const w = WRITES[write];
        // The hanging reply is ended by --timeout (half a second here): the read-back follows.
        const args = fault === 'hang' ? ['--timeout', '500ms', ...w.args] : [...w.args];
        const r = await rsi(`http://127.0.0.1:${port}/${name}`, args, 'input' in w ? { input: w.input } : {});
        expect({ writes: s.writes, recorded: s.recorded, code: r.code }, r.stderr).toEqual({
          writes,
          recorded: exit === 8 && fault === '503' ? 0 : 1,
          code: exit,
        });
        if (says) expect(r.stderr).toMatch(says);
        if (exit === 0) {
          // What was done is on stdout as the API's shape: the project, or the runs.
          const out = JSON.parse(r.stdout);
          if (write === 'create') expect(out).toMatchObject({ id: s.projects[0]!.id, name: 'Lung', setup_url: expect.any(String) });
          else expect(out.runs.map((x: { id: string }) => x.id)).toEqual(s.runs.map((x) => x.id));
        } else {
          expect(r.stdout).toBe('');
        }
        if (fault === 'close-down') {
          // The command that checks, as it will be pasted.
          expect(r.stderr).toMatch(
            write === 'create'
              ? /hint: check with `rsi projects list --jq '\.projects\[\] \| select\(\.name == "Lung"\)'`/
              : /hint: check with `rsi status 0b0c5d5e/,
          );
        }
      });
    }
  }

  // One write only: the reads before it are retried with backoff against a refused port (~2 s each).
  it.each(['select'] as const)('%s × refused before sending → 0 writes, exit 8, "nothing was sent"', async (write) => {
    const r = await rsi(refusedBase, [...WRITES[write].args]);
    expect(r.code).toBe(8);
    expect(r.stderr).toMatch(NOT_SENT);
    expect(r.stdout).toBe('');
  });

  it.each(['create', 'top'] as const)('%s × SIGTERM after the write was sent → 1 write, exit 143, the outcome read back', async (write) => {
    const { name, s } = scenario('hang');
    const stop = new AbortController();
    s.onWrite = () => stop.abort();
    const r = await rsi(`http://127.0.0.1:${port}/${name}`, [...WRITES[write].args], { stop: stop.signal });
    expect({ writes: s.writes, code: r.code }, r.stderr).toEqual({ writes: 1, code: 143 });
    expect(r.stderr).toMatch(write === 'create' ? /the project "Lung" was created \(id [0-9a-f-]+\)/ : /1 analysis was started/);
    expect(r.stderr).toMatch(DONE);
  });

  it('analyses run --wait --timeout 5 against a POST that never answers ends within 7 s, saying what it knows', async () => {
    // Modules loaded first: the bound is the command's, not vitest's first transform of them.
    await rsi(`http://127.0.0.1:${port}/${scenario('none').name}`, [...WRITES.select.args]);
    const { name, s } = scenario('hang');
    const started = Date.now();
    const r = await rsi(`http://127.0.0.1:${port}/${name}`, [
      '--timeout',
      '5',
      ...WRITES.select.args.filter((a) => a !== '--json'),
      '--wait',
    ]);
    expect(Date.now() - started).toBeLessThan(7000);
    expect(s.writes).toBe(1);
    // The write was read back as done; the wait then had no time left: exit 9, the last state named.
    expect(r.stderr).toMatch(DONE);
    expect(r.code).toBe(9);
  });

  it('--timeout bounds the look before a create too, naming the step; nothing was sent', async () => {
    // Modules loaded first (vitest transforms them on first import, which can take longer than the bound).
    await rsi(`http://127.0.0.1:${port}/${scenario('none').name}`, [...WRITES.create.args]);
    const { name, s } = scenario('hang-reads');
    const started = Date.now();
    const r = await rsi(`http://127.0.0.1:${port}/${name}`, ['--timeout', '1s', ...WRITES.create.args]);
    expect(Date.now() - started).toBeLessThan(3000);
    expect({ code: r.code, writes: s.writes }).toEqual({ code: 9, writes: 0 });
    expect(r.stderr).toMatch(/gave up after 1 s \(--timeout\) waiting for the project list \(looking for a project of the same name\)/);
  });

  it('projects create --if-absent returns the project of that name, and creates nothing', async () => {
    const { name, s } = scenario('none');
    s.projects.push({ id: PID, name: 'Lung', role: 'owner' });
    const r = await rsi(`http://127.0.0.1:${port}/${name}`, [...WRITES.create.args, '--if-absent']);
    expect({ code: r.code, writes: s.writes }).toEqual({ code: 0, writes: 0 });
    expect(JSON.parse(r.stdout)).toMatchObject({ id: PID, name: 'Lung' });
    expect(r.stderr).toMatch(/already exists \(--if-absent\): nothing was created/);
    // Without it, a second project of that name is made, with the warning.
    const again = await rsi(`http://127.0.0.1:${port}/${name}`, [...WRITES.create.args]);
    expect({ code: again.code, writes: s.writes }).toEqual({ code: 0, writes: 1 });
    expect(again.stderr).toMatch(/you already have a project named "Lung"/);
  });
});

describe('the MCP write tools: sent once, and the outcome read back', () => {
  async function tool(fault: Fault, name: 'create_project' | 'run_analyses', args: Record<string, unknown>) {
    const { name: scenarioName, s } = scenario(fault);
    const network = new Network({ env: {}, timeoutMs: 30_000 });
    const http = new RetryingHttp(
      { baseUrl: `http://127.0.0.1:${port}/${scenarioName}`, timeoutMs: 30_000, userAgent: 'rsi/t', clock: systemClock },
      network,
    );
    const served = await serve({
      allowWrite: true,
      api: new ApiClient(http) as never,
      capabilities: { elicitation: { form: {} } },
      elicit: () => ({ action: 'accept' }),
    });
    try {
      return { s, r: await served.call(name, args) };
    } finally {
      await served.close();
      await network.close();
    }
  }

  it.each(['close', 'cut'] as const)('create_project × %s → 1 write, the project, confirmed by reading back', async (fault) => {
    const { s, r } = await tool(fault, 'create_project', { name: 'Lung' });
    expect(s.writes).toBe(1);
    expect(data(r)).toMatchObject({ id: s.projects[0]!.id, name: 'Lung', rsi_confirmation: 'accepted' });
  });

  it.each(['close', 'cut'] as const)('run_analyses × %s → 1 write, the runs read back', async (fault) => {
    const { s, r } = await tool(fault, 'run_analyses', { project: PID, selections: [{ keyword_id: KID, signal_keyword_id: SID }] });
    expect(s.writes).toBe(1);
    expect(data(r).runs).toEqual([{ id: 'run-1', keyword_id: SID, kind: 'score' }]);
  });

  it('run_analyses × close, the service down after → 1 write, an error naming the command that checks', async () => {
    const { s, r } = await tool('close-down', 'run_analyses', { project: PID, selections: [{ keyword_id: KID, signal_keyword_id: SID }] });
    expect(s.writes).toBe(1);
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/is unknown/);
    expect(text(r)).toContain(`rsi status ${PID}`);
  });
});

// `rsi mcp call` when a server's event streams end early (issue 53, item 2) and the protocol's
// hygiene on rsi's client side (item 4): `main()` in process, as the SDK client it is, against a
// hand-written MCP server on loopback. A stream that ends before any event id cannot be resumed:
// a request that may be sent twice is sent again once, at once; then the call fails with its
// cause (never "wait longer"), within the request's deadline. A server's `retry:` is capped at
// 5 s; `initialize` is never cancelled; an answer that breaks its tool's output schema is the
// server's fault (exit 1); a server's error text is capped with a count of what was cut. Every
// call here runs with a deadline far above what it may take, so one that waited it out fails.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/inproc.js';
import { startStub } from '../support/stub-server.js';

/** What the server does with a request: answer, end its stream before any event id, or end it after an id with a retry hint. */
type Step = 'answer' | 'drop' | 'hang' | { primeRetryMs: number; resume?: 'refuse' };

interface Script {
  initialize?: Step[];
  call?: Step[];
  /** Every event stream opens a session (Mcp-Session-Id). */
  session?: boolean;
  /** The answer to tools/call (a result, or a JSON-RPC error). */
  reply?: { result?: unknown; error?: { code: number; message: string } };
}

interface Server {
  url: string;
  posts: Array<{ method?: string; id?: unknown; params?: Record<string, unknown> }>;
  resumed: string[];
  stop(): Promise<void>;
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

const TOOLS = [
  { name: 'read', annotations: { readOnlyHint: true }, inputSchema: { type: 'object', properties: {} } },
  { name: 'write', inputSchema: { type: 'object', properties: {} } },
  {
    name: 'typed',
    annotations: { readOnlyHint: true },
    inputSchema: { type: 'object', properties: {} },
    outputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
  },
];

async function mcpServer(script: Script): Promise<Server> {
  const posts: Server['posts'] = [];
  const resumed: string[] = [];
  const open = new Set<ServerResponse>();
  const steps = { initialize: [...(script.initialize ?? [])], call: [...(script.call ?? [])] };
  let pending: unknown;
  let refuse = false;
  const reply = (id: unknown) => ({
    jsonrpc: '2.0',
    id,
    ...(script.reply ?? { result: { content: [{ type: 'text', text: 'answered' }] } }),
  });
  const sse = (res: ServerResponse) => {
    open.add(res);
    res.on('close', () => open.delete(res));
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      ...(script.session ? { 'mcp-session-id': 'session-1' } : {}),
    });
  };
  const server = await startStub(async (req: IncomingMessage, res: ServerResponse, body: string) => {
    if (req.method === 'GET') {
      const last = req.headers['last-event-id'];
      if (typeof last !== 'string') return res.writeHead(405).end();
      resumed.push(last);
      if (refuse) return res.writeHead(404).end();
      sse(res);
      return res.end(`id: e-2\ndata: ${JSON.stringify(reply(pending))}\n\n`);
    }
    if (req.method === 'DELETE') return res.writeHead(200).end();
    const message = JSON.parse(body) as Server['posts'][number];
    posts.push(message);
    if (message.id === undefined || message.method === undefined) return res.writeHead(202).end();
    const step =
      message.method === 'initialize'
        ? (steps.initialize.shift() ?? 'answer')
        : message.method === 'tools/call'
          ? (steps.call.shift() ?? 'answer')
          : 'answer';
    const result =
      message.method === 'initialize'
        ? {
            jsonrpc: '2.0',
            id: message.id,
            result: { protocolVersion: '2025-11-25', serverInfo: { name: 's', version: '1' }, capabilities: { tools: {} } },
          }
        : message.method === 'tools/list'
          ? { jsonrpc: '2.0', id: message.id, result: { tools: TOOLS } }
          : reply(message.id);
    sse(res);
    if (step === 'hang') return;
    if (step === 'drop') return res.end(': nothing to say\n\n');
    if (step !== 'answer') {
      pending = message.id;
      refuse = step.resume === 'refuse';
      return res.end(`id: e-1\nretry: ${step.primeRetryMs}\ndata: \n\n`);
    }
    return res.end(`event: message\ndata: ${JSON.stringify(result)}\n\n`);
  });
  const s: Server = {
    url: server.url,
    posts,
    resumed,
    stop: () => {
      for (const r of open) r.destroy();
      return server.close();
    },
  };
  servers.push(s);
  return s;
}

async function call(server: Server, tool: string, deadlineS = 120) {
  const started = performance.now();
  const r = await runCli(['mcp', 'call', tool, '--http-timeout', String(deadlineS)], {
    env: { RSI_MCP_TOKEN: 'a-token', RSI_BASE_URL: server.url, RSI_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'rsi-mcp-streams-')) },
  });
  return { ...r, ms: performance.now() - started, errors: r.stderr.split('\n').filter((l) => l.startsWith('rsi: ')) };
}

const calls = (s: Server, method: string) => s.posts.filter((p) => p.method === method);
const WAIT_LONGER = /http-timeout|wait longer|raise/i;

describe('a stream that ends before any event id', () => {
  it('a tool that changes nothing is sent again once, at once, and the second answer is the call’s', async () => {
    const s = await mcpServer({ call: ['drop'] });
    const r = await call(s, 'read');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('answered');
    expect(calls(s, 'tools/call')).toHaveLength(2);
  });

  it('ending the same way again: one line naming the cause, exit 8, long before the deadline', async () => {
    const s = await mcpServer({ call: ['drop', 'drop'] });
    const r = await call(s, 'read');
    expect(r.code, r.stderr).toBe(8);
    expect(r.errors).toEqual([
      `rsi: the MCP server at ${s.url}/mcp ended the event stream of tools/call read before any event id (so it cannot be resumed) and before answering; sent again at once, it ended the same way`,
    ]);
    expect(r.stderr).not.toMatch(WAIT_LONGER);
    expect(calls(s, 'tools/call')).toHaveLength(2);
    expect(r.ms).toBeLessThan(60_000);
  });

  it('sent again, and that one never answers: it fails at the request’s deadline, saying why, not "wait longer"', async () => {
    const s = await mcpServer({ call: ['drop', 'hang'] });
    const r = await call(s, 'read', 2);
    expect(r.code, r.stderr).toBe(8);
    expect(r.errors).toEqual([
      `rsi: the MCP server at ${s.url}/mcp ended the event stream of tools/call read before any event id (so it cannot be resumed) and before answering; sent again at once, it had not answered when the request's deadline (2 s) came`,
    ]);
    expect(r.stderr).not.toMatch(WAIT_LONGER);
  });

  it('a tool that may change data is not sent twice: it fails at once, saying it may or may not have been done', async () => {
    const s = await mcpServer({ call: ['drop'] });
    const r = await call(s, 'write');
    expect(r.code, r.stderr).toBe(8);
    expect(r.errors[0]).toContain('it was not sent again, since the tool may change data');
    expect(r.stderr).toContain('hint: it may or may not have been done: check before calling it again');
    expect(calls(s, 'tools/call')).toHaveLength(1);
    expect(r.ms).toBeLessThan(60_000);
  });

  it('initialize is sent again once; ending twice fails at once, and initialize is never cancelled', async () => {
    const once = await mcpServer({ initialize: ['drop'] });
    expect((await call(once, 'read')).code).toBe(0);
    expect(calls(once, 'initialize')).toHaveLength(2);

    const s = await mcpServer({ initialize: ['drop', 'drop'] });
    const r = await call(s, 'read');
    expect(r.code, r.stderr).toBe(8);
    expect(r.errors[0]).toMatch(/ended the event stream of initialize before any event id/);
    const ids = new Set(calls(s, 'initialize').map((m) => m.id));
    expect(calls(s, 'notifications/cancelled').filter((m) => ids.has(m.params?.requestId))).toEqual([]);
    expect(r.ms).toBeLessThan(60_000);

    // An initialize whose answer opened a session is not sent again (a second would open another).
    const session = await mcpServer({ initialize: ['drop'], session: true });
    const opened = await call(session, 'read');
    expect(opened.code, opened.stderr).toBe(8);
    expect(opened.errors[0]).toContain(
      'ended the event stream of initialize before any event id (so it cannot be resumed) and before answering; it was not sent again, since its answer opened a session',
    );
    expect(calls(session, 'initialize')).toHaveLength(1);

    // Timed out (the SDK cancels what times out): still no notifications/cancelled for initialize.
    const hangs = await mcpServer({ initialize: ['hang', 'hang'] });
    expect((await call(hangs, 'read', 2)).code).toBe(8);
    expect(calls(hangs, 'initialize').length).toBeGreaterThan(0);
    expect(calls(hangs, 'notifications/cancelled')).toEqual([]);
  });
});

describe('a stream that neither ends nor answers', () => {
  it('times out at the deadline, and says so: not a stream that ended, and no "raise --http-timeout" first', async () => {
    const s = await mcpServer({ call: ['hang'] });
    const r = await call(s, 'write', 2);
    expect(r.code, r.stderr).toBe(8);
    expect(r.errors).toEqual(["rsi: tools/call write timed out: the MCP server did not answer within the request's deadline"]);
    expect(r.stderr).toContain('hint: the server is slow or stuck: try again later');
    expect(calls(s, 'tools/call')).toHaveLength(1);
  });
});

describe('a stream with an event id', () => {
  it("is resumed with Last-Event-ID after the server's retry, capped at 5 s (the server asks for 10 minutes)", async () => {
    const s = await mcpServer({ call: [{ primeRetryMs: 600_000 }] });
    // A deadline of 20 s: an uncapped wait of 10 minutes would fail it.
    const r = await call(s, 'read', 20);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('answered');
    expect(s.resumed).toEqual(['e-1']);
  });

  it('one that cannot be resumed fails the call at once, and cancels no request answered before it (initialize least of all)', async () => {
    const s = await mcpServer({ call: [{ primeRetryMs: 10, resume: 'refuse' }] });
    const r = await call(s, 'read');
    expect(r.code, r.stderr).toBe(8);
    expect(r.errors).toEqual([
      `rsi: the MCP server at ${s.url}/mcp closed its event stream before answering, and resuming it was refused (404)`,
    ]);
    const answered = new Set([...calls(s, 'initialize'), ...calls(s, 'tools/list')].map((m) => m.id));
    expect(calls(s, 'notifications/cancelled').filter((m) => answered.has(m.params?.requestId))).toEqual([]);
    expect(r.ms).toBeLessThan(60_000);
  });
});

describe("the server's answers", () => {
  it("an answer that breaks the tool's own output schema is the server's fault: exit 1, not a usage error", async () => {
    const s = await mcpServer({ reply: { result: { structuredContent: { n: 'not a number' }, content: [] } } });
    const r = await call(s, 'typed');
    expect(r.code, r.stderr).toBe(1);
    expect(r.errors[0]).toMatch(/^rsi: the MCP server's answer to tools\/call typed breaks the output schema it declared for the tool: /);
    expect(r.stderr).toContain('report it to whoever runs the server');
  });

  it('an error text of a megabyte is cut, with a count of what was cut', async () => {
    const s = await mcpServer({ reply: { error: { code: -32603, message: `no such thing: ${'x'.repeat(1_048_576)}` } } });
    const r = await call(s, 'read');
    expect(r.code, r.stderr).toBe(8);
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]!.length).toBeLessThan(2300);
    expect(r.errors[0]).toMatch(/… \[\d+ more characters cut\]/);
  });
});

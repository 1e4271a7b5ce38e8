// No `rsi mcp call` hangs (issue 42.2): real rsi processes against a hand-written MCP server on
// loopback that answers tools/call with an event stream. A server that asks rsi something it did
// not declare (elicitation, sampling, roots) on that stream gets JSON-RPC error -32601 at once and
// the call ends with the server's answer; a server that closes the stream before answering is
// resumed with Last-Event-ID after its `retry:` hint, and when it cannot be resumed the call fails
// at once with one line, instead of waiting out its timeout. --http-timeout is 200 s here, so a
// call that waited for its timeout fails the time bounds below on any machine.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { startStub } from '../support/stub-server.js';

type Behaviour = 'asks' | 'closes-then-resumes' | 'closes-then-refuses' | 'closes-always';

interface StreamServer {
  url: string;
  /** Answers rsi sent to the server's own requests, by request id. */
  answers: Map<string, { error?: { code: number; message: string }; result?: unknown }>;
  /** Last-Event-ID of each resuming GET. */
  resumed: string[];
  stop(): Promise<void>;
}

const servers: StreamServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

const ASKS = [
  {
    id: 'ask-elicit',
    method: 'elicitation/create',
    params: { message: 'your name?', requestedSchema: { type: 'object', properties: {} } },
  },
  { id: 'ask-sample', method: 'sampling/createMessage', params: { messages: [], maxTokens: 10 } },
  { id: 'ask-roots', method: 'roots/list', params: {} },
];

async function streamServer(behaviour: Behaviour): Promise<StreamServer> {
  const answers: StreamServer['answers'] = new Map();
  const resumed: string[] = [];
  const open = new Set<ServerResponse>();
  let pendingCall: number | string | undefined;
  let callStream: ServerResponse | undefined;
  let answered: () => void = () => undefined;
  const allAnswered = new Promise<void>((resolve) => (answered = resolve));
  const sse = (res: ServerResponse) => {
    open.add(res);
    res.on('close', () => open.delete(res));
    res.writeHead(200, { 'content-type': 'text/event-stream', 'mcp-session-id': 'session-1', 'cache-control': 'no-cache' });
  };
  const result = (id: number | string | undefined) =>
    `event: message\nid: e-result\ndata: ${JSON.stringify({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'answered' }] } })}\n\n`;
  const server = await startStub(async (req: IncomingMessage, res: ServerResponse, body: string) => {
    if (req.method === 'GET') {
      const last = req.headers['last-event-id'];
      if (typeof last !== 'string') return res.writeHead(405).end();
      resumed.push(last);
      if (behaviour === 'closes-then-refuses') return res.writeHead(404).end();
      sse(res);
      res.write(`id: e-${resumed.length + 1}\nretry: 200\ndata: \n\n`);
      if (behaviour === 'closes-then-resumes') return res.end(result(pendingCall));
      return res.end();
    }
    if (req.method === 'DELETE') return res.writeHead(200).end();
    const message = JSON.parse(body) as { id?: number | string; method?: string };
    const head = { 'content-type': 'application/json', 'mcp-session-id': 'session-1' };
    if (message.method === undefined && message.id !== undefined) {
      answers.set(String(message.id), message as never);
      if (answers.size === ASKS.length) answered();
      return res.writeHead(202).end();
    }
    if (message.id === undefined) return res.writeHead(202).end();
    if (message.method === 'initialize') {
      const reply = { protocolVersion: '2025-11-25', serverInfo: { name: 'streams', version: '1' }, capabilities: { tools: {} } };
      return res.writeHead(200, head).end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: reply }));
    }
    if (message.method === 'tools/list') {
      const tools = [{ name: 'anything', inputSchema: { type: 'object', properties: {} } }];
      return res.writeHead(200, head).end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { tools } }));
    }
    if (message.method !== 'tools/call')
      return res.writeHead(200, head).end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: {} }));
    pendingCall = message.id;
    sse(res);
    callStream = res;
    if (behaviour === 'asks') {
      for (const ask of ASKS) res.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', ...ask })}\n\n`);
      await allAnswered;
      return res.end(result(message.id));
    }
    // A priming event with an id and a retry hint, then the stream closes before the answer.
    res.write('id: e-1\nretry: 200\ndata: \n\n');
    res.end();
  });
  const s: StreamServer = {
    url: server.url,
    answers,
    resumed,
    stop: () => {
      for (const r of open) r.destroy();
      callStream?.destroy();
      return server.close();
    },
  };
  servers.push(s);
  return s;
}

async function call(server: StreamServer) {
  const started = Date.now();
  const r = await runCli(['mcp', 'call', 'anything', '--http-timeout', '200'], {
    env: { RSI_MCP_TOKEN: 'a-token', RSI_BASE_URL: server.url, RSI_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'rsi-mcp-streams-')) },
  });
  return { ...r, ms: Date.now() - started };
}

describe('rsi mcp call against a server that streams its answer', () => {
  it('answers elicitation, sampling and roots it never declared with -32601 at once; the call ends with the answer', async () => {
    const server = await streamServer('asks');
    const r = await call(server);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('answered');
    for (const ask of ASKS) expect(server.answers.get(ask.id)?.error?.code, ask.method).toBe(-32601);
    expect(r.ms).toBeLessThan(100_000);
  });

  it('a stream closed before the answer is resumed with Last-Event-ID, and the answer read from the resumed stream', async () => {
    const server = await streamServer('closes-then-resumes');
    const r = await call(server);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('answered');
    expect(server.resumed).toEqual(['e-1']);
  });

  it('a resumption the server refuses fails the call at once with one line, exit 8', async () => {
    const server = await streamServer('closes-then-refuses');
    const r = await call(server);
    expect(r.code, r.stderr).toBe(8);
    expect(r.stderr.split('\n').filter((l) => l.startsWith('rsi: '))).toEqual([
      `rsi: the MCP server at ${server.url}/mcp closed its event stream before answering, and resuming it was refused (404)`,
    ]);
    expect(r.ms).toBeLessThan(100_000);
  });

  it('a server that keeps closing the resumed stream without an answer: bounded resumptions, then one line, exit 8', async () => {
    const server = await streamServer('closes-always');
    const r = await call(server);
    expect(r.code, r.stderr).toBe(8);
    expect(r.stderr).toMatch(
      /^rsi: the MCP server at \S+ closed its event stream before answering, and it was resumed 2 times without an answer$/m,
    );
    expect(server.resumed.length).toBe(2);
    expect(r.ms).toBeLessThan(100_000);
  });
});

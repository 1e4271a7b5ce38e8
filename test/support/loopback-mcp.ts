/**
 * A small MCP server over Streamable HTTP (stateless, JSON replies) on loopback, written by hand
 * so a test controls every reply and sees every request: when one arrives, and whether the client
 * aborted it before the reply. Tools are plain functions of their arguments; a tool may wait for
 * the request's `closed` promise (a request the client gave up on).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ToolCall {
  name: string;
  args: Record<string, unknown>;
  /** Settles when the HTTP request was closed by the client before the reply was sent. */
  aborted: Promise<void>;
}

export interface LoopbackTool {
  name: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
  /** The tools/call result (structuredContent, content, isError). */
  call(call: ToolCall): Promise<Record<string, unknown>> | Record<string, unknown>;
}

export interface LoopbackMcp {
  /** `http://127.0.0.1:<port>` (the MCP endpoint is `<url>/mcp`). */
  url: string;
  /** JSON-RPC methods received, in order. */
  methods: string[];
  /** Every tools/call received, with its abort promise. */
  calls: ToolCall[];
  /** Settles with the next tools/call to arrive. */
  nextCall(): Promise<ToolCall>;
  close(): Promise<void>;
}

/** `extra`: other routes (the API, for a test that needs both), tried first; true when it answered. */
export async function startLoopbackMcp(
  tools: LoopbackTool[],
  extra?: (req: IncomingMessage, res: ServerResponse, body: string) => boolean | Promise<boolean>,
): Promise<LoopbackMcp> {
  const methods: string[] = [];
  const calls: ToolCall[] = [];
  let waiting: Array<(c: ToolCall) => void> = [];
  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    if (extra && (await extra(req, res, body))) return;
    if (!req.url?.startsWith('/mcp')) return json(res, 404, { error: 'not found' });
    if (req.method !== 'POST') return res.writeHead(405, { allow: 'POST' }).end();
    const message = JSON.parse(body) as { id?: number | string; method: string; params?: Record<string, unknown> };
    methods.push(message.method);
    if (message.id === undefined) return res.writeHead(202).end();
    const reply = (result: unknown) => json(res, 200, { jsonrpc: '2.0', id: message.id, result });
    switch (message.method) {
      case 'initialize':
        return reply({
          protocolVersion: (message.params?.protocolVersion as string) ?? '2025-06-18',
          capabilities: { tools: {} },
          serverInfo: { name: 'loopback', version: '0' },
        });
      case 'tools/list':
        return reply({
          tools: tools.map((t) => ({
            name: t.name,
            description: t.description ?? t.name,
            inputSchema: t.inputSchema ?? { type: 'object', properties: {} },
          })),
        });
      case 'tools/call': {
        const params = message.params as { name: string; arguments?: Record<string, unknown> };
        const tool = tools.find((t) => t.name === params.name);
        if (!tool) return json(res, 200, { jsonrpc: '2.0', id: message.id, error: { code: -32602, message: 'unknown tool' } });
        const aborted = new Promise<void>((resolve) => res.once('close', () => !res.writableFinished && resolve()));
        const call: ToolCall = { name: params.name, args: params.arguments ?? {}, aborted };
        calls.push(call);
        const ready = waiting;
        waiting = [];
        for (const w of ready) w(call);
        const result = await tool.call(call);
        if (!res.destroyed) reply(result);
        return;
      }
      default:
        return json(res, 200, { jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'method not found' } });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    methods,
    calls,
    nextCall: () => new Promise((resolve) => waiting.push(resolve)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

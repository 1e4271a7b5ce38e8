// `rsi mcp serve` in process (the SDK client over InMemoryTransport) calling a loopback MCP server
// as the service's: every call has its own signal, so a thousand calls add no listener to the
// session's signal (no MaxListenersExceededWarning), and a cancelled call aborts its upstream HTTP
// request.
import { getEventListeners } from 'node:events';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Network } from '../../src/http/network.js';
import { connectMcp, type McpConnection } from '../../src/mcp/client.js';
import { createServer } from '../../src/mcp/server.js';
import { type LoopbackMcp, startLoopbackMcp } from '../support/loopback-mcp.js';

const PROJECT = '71e99bab-a323-5152-8b3b-21786ae5b506';
const HANG = '00000000-0000-4000-8000-00000000dead';

let service: LoopbackMcp;
let network: Network;
const session = new AbortController();
let live: Promise<McpConnection> | undefined;
let client: Client;

beforeAll(async () => {
  service = await startLoopbackMcp([
    {
      name: 'project_scoreboard',
      // HANG answers only when the request is gone: the call must be cancelled to end.
      call: async ({ args, aborted }) => {
        if (args.project_id === HANG) await aborted;
        return {
          structuredContent: { total: 1, scoreboard: [{ rank: 1, name: 'KRAS', score: 0.9 }] },
          content: [{ type: 'text', text: 'ok' }],
        };
      },
    },
  ]);
  network = new Network({ env: {}, timeoutMs: 120_000 });
  const server = await createServer({
    version: '0.0.0-test',
    allowWrite: false,
    client: () => Promise.reject(new Error('no API in this test')),
    signIns: async () => ({ baseUrl: service.url, mcp: { scopes: undefined } }),
    signal: session.signal,
    remote: {
      connection: () =>
        (live ??= connectMcp({
          url: `${service.url}/mcp`,
          auth: { getAccessToken: async () => 'token', refreshAfterUnauthorized: async () => undefined },
          network,
          userAgent: 'rsi-test',
          version: '0',
          signal: session.signal,
          notSignedInHint: 'sign in',
        })),
      reset: () => {
        live = undefined;
      },
    },
  });
  const [a, b] = InMemoryTransport.createLinkedPair();
  client = new Client({ name: 'calls', version: '0' });
  await Promise.all([server.connect(a), client.connect(b)]);
});
afterAll(async () => {
  await client?.close();
  await (await live)?.close();
  session.abort();
  await network?.close();
  await service?.close();
});

const structured = (r: unknown) => (r as CallToolResult).structuredContent as Record<string, any>;

describe('calls to the service MCP server', () => {
  it('1,000 calls: no listener left on the session signal, no MaxListenersExceededWarning', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => void warnings.push(`${w.name}: ${w.message}`);
    process.on('warning', onWarning);
    try {
      const first = structured(await client.callTool({ name: 'project_scoreboard', arguments: { project: PROJECT } }));
      expect(first.scoreboard).toHaveLength(1);
      // The session (its connection) is open now: what is attached to the signal from here on is per call.
      const before = getEventListeners(session.signal, 'abort').length;
      for (let i = 0; i < 1000; i++) {
        const r = (await client.callTool({ name: 'project_scoreboard', arguments: { project: PROJECT } })) as CallToolResult;
        expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
      }
      expect(getEventListeners(session.signal, 'abort').length).toBe(before);
      // A warning is emitted on the next tick: let one pass before looking.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((w) => w.startsWith('MaxListenersExceededWarning'))).toEqual([]);
      expect(service.calls.filter((c) => c.name === 'project_scoreboard').length).toBe(1001);
      // One tools/list for the session, not one per call.
      expect(service.methods.filter((m) => m === 'tools/list')).toHaveLength(1);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('cancelling the tool call aborts its upstream HTTP request', async () => {
    const cancel = new AbortController();
    const arrived = service.nextCall();
    const call = client.callTool({ name: 'project_scoreboard', arguments: { project: HANG } }, undefined, { signal: cancel.signal });
    const upstream = await arrived;
    expect(upstream.args.project_id).toBe(HANG);
    cancel.abort();
    await expect(call).rejects.toThrow();
    // The loopback server sees the request closed before it answered (it answers only then).
    await upstream.aborted;
    // The session lives on.
    expect(structured(await client.callTool({ name: 'project_scoreboard', arguments: { project: PROJECT } })).total).toBe(1);
  });
});

// `rsi mcp tools` / `rsi mcp call` against a misbehaving MCP server (a real HTTP server speaking
// JSON-RPC): a nextCursor that repeats or never ends stops with a clear error, and SIGTERM or
// SIGINT during a call that never answers ends the process cleanly, without a stack.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RSI_BIN, cleanEnv } from '../support/cli.js';
import { runCli } from '../support/inproc.js';
import { startStub, type StubServer } from '../support/stub-server.js';

let server: StubServer;
let base: string;
let mode: 'repeat' | 'endless' | 'one' = 'repeat';
let listCalls = 0;
let calls = 0;
let apiCalls = 0;
const dir = mkdtempSync(join(tmpdir(), 'rsi-mcp-robust-'));

beforeAll(async () => {
  server = await startStub(
    (req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        if (req.url?.startsWith('/api/v1/')) {
          apiCalls += 1;
          return; // the API never answers either
        }
        if (req.method !== 'POST') {
          res.writeHead(405).end();
          return;
        }
        const msg = JSON.parse(body) as { id?: number; method: string; params?: { cursor?: string } };
        const answer = (result: unknown) => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result }));
        };
        switch (msg.method) {
          case 'initialize':
            return answer({ protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'bad', version: '1' } });
          case 'tools/list': {
            listCalls += 1;
            const n = Number(msg.params?.cursor?.slice(1) ?? 0);
            return answer({
              tools: [{ name: `tool${n}`, inputSchema: { type: 'object', properties: {} } }],
              ...(mode === 'one' ? {} : { nextCursor: mode === 'repeat' ? 'c1' : `c${n + 1}` }),
            });
          }
          case 'tools/call':
            calls += 1;
            return; // never answers
          default:
            res.writeHead(202).end();
        }
      });
    },
    { streaming: true },
  );
  base = server.url;
});
afterAll(() => server?.close());

const env = () => ({ RSI_BASE_URL: base, RSI_MCP_TOKEN: 'test-token', RSI_CONFIG_DIR: dir });

describe('paging tools/list', () => {
  it('stops on a repeated cursor with a clear error', async () => {
    mode = 'repeat';
    listCalls = 0;
    const r = await runCli(['mcp', 'tools'], { env: env() });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^rsi: the MCP server's tools\/list repeated the cursor "c1" after 2 pages$/m);
    expect(listCalls).toBe(2);
  });

  it('stops after the page cap when the cursor never ends', async () => {
    mode = 'endless';
    listCalls = 0;
    const r = await runCli(['mcp', 'tools'], { env: env() });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^rsi: the MCP server's tools\/list did not end after 100 pages \(100 tools\)$/m);
    expect(listCalls).toBe(100);
  });
});

describe('a signal during a call', () => {
  for (const [sig, line, code] of [
    ['SIGTERM', 'rsi: stopped by SIGTERM', 143],
    ['SIGINT', 'rsi: interrupted', 130],
  ] as const) {
    it(`${sig} ends a call that never answers cleanly, without a stack`, async () => {
      // The call lists tools first: one page here, so the call is reached.
      mode = 'one';
      const child = spawn(process.execPath, [RSI_BIN, 'mcp', 'call', 'tool0'], { env: cleanEnv(env()), stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
      // Send the signal once the process reached the call.
      await new Promise<void>((resolve) => {
        const check = () => (calls > 0 ? resolve() : setTimeout(check, 20));
        check();
      });
      calls = 0;
      child.kill(sig);
      const exit = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
      expect(stderr).not.toMatch(/\n\s+at /);
      expect(stderr.trim()).toBe(line);
      expect(exit).toBe(code);
    });
  }
});

describe('rsi mcp serve stopped during a call', () => {
  for (const sig of ['SIGTERM', 'SIGINT'] as const) {
    it(`${sig} while a tool waits for the service: exits 0, nothing on stderr, no stack`, async () => {
      const child = spawn(process.execPath, [RSI_BIN, 'mcp', 'serve'], {
        env: cleanEnv({ RSI_BASE_URL: base, RSI_TOKEN: 'test-token', RSI_CONFIG_DIR: dir }),
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
      const before = apiCalls;
      for (const m of [
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
        },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'list_projects', arguments: {} } },
      ])
        child.stdin.write(`${JSON.stringify(m)}\n`);
      await new Promise<void>((resolve) => {
        const check = () => (apiCalls > before ? resolve() : setTimeout(check, 20));
        check();
      });
      child.kill(sig);
      const exit = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
      expect(stderr).toBe('');
      expect(exit).toBe(0);
    });
  }
});

// `rsi mcp serve` driven by the MCP SDK's own client over stdio, as an assistant would: bin/rsi.js
// spawned with RSI_TOKEN/RSI_BASE_URL against a real sandbox.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RSI_BIN, cleanEnv } from '../support/cli.js';
import { obtainTokens } from '../support/oauth.js';
import { sandboxStats } from '../support/sandbox.js';
import { startSandbox, type InProcessSandbox } from '../support/inproc.js';

let sb: InProcessSandbox;
let token: string;
const dir = mkdtempSync(join(tmpdir(), 'rsi-mcp-serve-'));
const clients: Client[] = [];

beforeAll(async () => {
  sb = await startSandbox(['--auto-approve']);
  token = (await obtainTokens(sb.url)).access_token;
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await sb?.stop();
});

async function serve(args: string[] = [], env: Record<string, string | undefined> = {}): Promise<{ client: Client; errors: Error[] }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [RSI_BIN, 'mcp', 'serve', ...args],
    env: cleanEnv({ RSI_BASE_URL: sb.url, RSI_TOKEN: token, RSI_CONFIG_DIR: dir, ...env }) as Record<string, string>,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'rsi-e2e', version: '0' });
  const errors: Error[] = [];
  client.onerror = (e) => errors.push(e);
  await client.connect(transport);
  clients.push(client);
  return { client, errors };
}

const structured = (r: unknown) => (r as CallToolResult).structuredContent as Record<string, unknown>;
const text = (r: unknown) => ((r as CallToolResult).content as Array<{ text: string }>).map((c) => c.text).join('\n');

describe('rsi mcp serve (read-only by default)', () => {
  let client: Client;
  let errors: Error[];
  beforeAll(async () => {
    ({ client, errors } = await serve());
  });

  it('offers the read commands as typed tools, and no write tool', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      [
        'get_keyword',
        'list_opportunities',
        'list_projects',
        'list_relations',
        'list_signals',
        'project_status',
        'search_keywords',
        'wait_for_scoring',
      ].sort(),
    );
    for (const t of tools) expect(t.annotations?.readOnlyHint, t.name).toBe(true);
    const relations = tools.find((t) => t.name === 'list_relations')!;
    expect(relations.inputSchema.required).toEqual(['keyword', 'relation']);
    expect((relations.inputSchema.properties as Record<string, { enum?: string[] }>).relation!.enum).toContain('sponsors');
    expect(client.getServerVersion()?.name).toBe('rsi');
  });

  it('answers with the API JSON as structured content, resolving names like the commands', async () => {
    const search = structured(await client.callTool({ name: 'search_keywords', arguments: { query: 'egfr', limit: 3 } }));
    expect((search.data as Array<{ name: string }>)[0]!.name).toBe('EGFR');
    const card = structured(await client.callTool({ name: 'get_keyword', arguments: { keyword: 'HER1' } }));
    expect(card.name).toBe('EGFR');
    const rel = structured(await client.callTool({ name: 'list_relations', arguments: { keyword: 'KRAS', relation: 'assets', limit: 2 } }));
    expect((rel.meta as { total: number }).total).toBe(640);
    const projects = structured(await client.callTool({ name: 'list_projects', arguments: {} }));
    expect((projects.projects as Array<{ name: string }>).map((p) => p.name)).toContain('Oncology watchlist');
    const status = structured(await client.callTool({ name: 'project_status', arguments: { project: 'Oncology watchlist' } }));
    expect(status.scoring).toBe('done');
    const signals = structured(await client.callTool({ name: 'list_signals', arguments: { project: 'KRAS inhibitors', limit: 2 } }));
    expect(signals.signals).toHaveLength(2);
    const opp = structured(await client.callTool({ name: 'list_opportunities', arguments: { project: 'Oncology watchlist' } }));
    expect((opp.keywords as unknown[]).length).toBeGreaterThan(0);
    expect(errors).toEqual([]);
  });

  it("reports rsi's errors as tool errors with the message and hint", async () => {
    const r = (await client.callTool({ name: 'project_status', arguments: { project: 'No such project' } })) as CallToolResult;
    expect(r.isError).toBe(true);
    // rsi's message and hint quote the service's names: fenced, escaped.
    expect(text(r)).toMatch(
      /^rsi: project_status failed\. .*\n<service-data tool="project_status" part="error">\nno project named "No such project"\nhint: your projects: "/,
    );
    const forbidden = (await client.callTool({
      name: 'project_status',
      arguments: { project: '00000000-0000-4000-8000-000000000000' },
    })) as CallToolResult;
    expect(forbidden.isError).toBe(true);
    expect(text(forbidden)).toContain('not a member');
  });

  it('a write tool does not exist without --allow-write', async () => {
    const r = (await client.callTool({ name: 'create_project', arguments: { name: 'x' } })) as CallToolResult;
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/not found/i);
  });
});

describe('rsi mcp serve --allow-write', () => {
  it('a client without elicitation that repeats at once: refused each time, 0 runs, no project', async () => {
    const { client } = await serve(['--allow-write']);
    const before = await sandboxStats(sb.url);
    const projects = (await client.callTool({ name: 'list_projects', arguments: {} })) as CallToolResult;
    const top = { project: 'KRAS inhibitors', top: { type: 'target', limit: 2 } };
    for (const args of [top, { ...top, confirmed: true }]) {
      const r = (await client.callTool({ name: 'run_analyses', arguments: args })) as CallToolResult;
      expect(r.isError).toBe(true);
      expect(JSON.stringify(r.content)).toContain('a person must confirm it');
      // The command as a person pastes it: its quotes as written, not as character references; and
      // the service this server was started for (RSI_BASE_URL in the assistant's configuration,
      // which the person's terminal does not have).
      expect((r.content as { text: string }[]).map((c) => c.text).join('\n')).toContain(
        `rsi analyses run --base-url ${sb.url} --top 2 --type target "KRAS inhibitors"`,
      );
    }
    for (const args of [{ name: 'Unasked' }, { name: 'Unasked', confirmed: true }]) {
      expect(((await client.callTool({ name: 'create_project', arguments: args })) as CallToolResult).isError).toBe(true);
    }
    expect((await sandboxStats(sb.url)).runs).toBe(before.runs);
    expect(JSON.stringify((await client.callTool({ name: 'list_projects', arguments: {} })).content)).toBe(
      JSON.stringify(projects.content),
    );
  });

  it('--confirm-in-chat: creates projects after a repeat, and hands needs_confirmation back without running anything', async () => {
    const { client } = await serve(['--allow-write', '--confirm-in-chat']);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['create_project', 'run_analyses']));
    const asked = structured(await client.callTool({ name: 'create_project', arguments: { name: 'From an assistant' } }));
    expect(asked).toMatchObject({ name: 'From an assistant', rsi_confirmation: 'asked' });
    const created = structured(
      await client.callTool({ name: 'create_project', arguments: { name: 'From an assistant', confirmed: true } }),
    );
    expect(created).toMatchObject({ name: 'From an assistant', role: 'owner', rsi_confirmation: 'confirmed' });

    const runsBefore = (await sandboxStats(sb.url)).runs;
    const TOP = { project: 'KRAS inhibitors', top: { type: 'target', limit: 2 } };
    // First the request itself: nothing is sent.
    const request = structured(await client.callTool({ name: 'run_analyses', arguments: TOP }));
    expect(request).toMatchObject({ top: TOP.top, rsi_confirmation: 'asked' });
    // Repeated after the user agreed: sent, and the service asks which signals it means.
    const ask = structured(await client.callTool({ name: 'run_analyses', arguments: { ...TOP, confirmed: true } }));
    expect(ask.needs_confirmation).toBe(true);
    expect((await sandboxStats(sb.url)).runs).toBe(runsBefore);
    // This client has no elicitation and the person allowed confirming in the chat: the same call
    // repeated with confirmed: true (after the assistant asked its user) runs them.
    const ran = structured(
      await client.callTool({
        name: 'run_analyses',
        arguments: { project: 'KRAS inhibitors', top: { type: 'target', limit: 2 }, confirmed: true },
      }),
    );
    expect(ran.runs).toHaveLength(2);
    expect((await sandboxStats(sb.url)).runs).toBe(runsBefore + 2);
  });
});

describe('without a sign-in', () => {
  it('answers every tool with an error naming `rsi login`, and never opens a browser', async () => {
    const marker = join(dir, 'browser-opened');
    const { client } = await serve([], {
      RSI_TOKEN: undefined,
      RSI_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'rsi-mcp-nologin-')),
      BROWSER: `${process.execPath} -e "require('fs').writeFileSync('${marker}', '')"`,
    });
    const r = (await client.callTool({ name: 'list_projects', arguments: {} })) as CallToolResult;
    expect(r.isError).toBe(true);
    expect(text(r)).toContain('rsi login');
    expect(existsSync(marker)).toBe(false);
  });
});

describe('stdout discipline', () => {
  it('writes nothing but JSON-RPC on stdout and exits 0 when stdin ends', async () => {
    const child = spawn(process.execPath, [RSI_BIN, '--debug', 'mcp', 'serve'], {
      env: cleanEnv({ RSI_BASE_URL: sb.url, RSI_TOKEN: token, RSI_CONFIG_DIR: dir }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const messages = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'list_projects', arguments: {} } },
    ];
    for (const m of messages) child.stdin.write(`${JSON.stringify(m)}\n`);
    // Wait for the answer to the call before closing stdin.
    await new Promise<void>((resolve) => {
      const check = () => (stdout.includes('"id":2') ? resolve() : setTimeout(check, 20));
      check();
    });
    child.stdin.end();
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    // The --debug trace went to stderr, with the token redacted.
    expect(stderr).toContain('> GET');
    expect(stderr).not.toContain(token);
  });
});

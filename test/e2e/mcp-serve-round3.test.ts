// `rsi mcp serve`, round 3 (issue 32), with the SDK client over stdio against a real sandbox:
// elicitation by mode (form for confirmations, a URL-only client falls back to asked-then-repeat,
// URL mode offers the setup page on a 409), resource links to the setup and project pages, and a
// tool list that follows a sign-in or sign-out made while serving (listChanged and the notification).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, type ClientOptions } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  type CallToolResult,
  type ElicitRequest,
  ElicitRequestSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RSI_BIN, cleanEnv, runCli } from '../support/cli.js';
import { obtainTokens } from '../support/oauth.js';
import { apiCaller, sandboxStats, startSandbox, type SandboxProcess } from '../support/sandbox.js';

const FAKE_BROWSER = `${process.execPath} ${fileURLToPath(new URL('../support/fake-browser.mjs', import.meta.url))}`;
let sb: SandboxProcess;
let token: string;
let api: ReturnType<typeof apiCaller>;
const clients: Client[] = [];

beforeAll(async () => {
  sb = await startSandbox(['--auto-approve', '--time-scale', '10']);
  token = (await obtainTokens(sb.url)).access_token;
  api = apiCaller(sb.url, token);
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await sb?.stop();
});

/** Starts `rsi mcp serve --allow-write`; `elicitation` declares the modes, `answer` answers each request. */
async function serve(
  options: {
    env?: Record<string, string | undefined>;
    elicitation?: { form?: Record<string, unknown>; url?: Record<string, unknown> };
    answer?: (params: ElicitRequest['params']) => 'accept' | 'decline' | 'cancel';
  } = {},
): Promise<{ client: Client; asked: Array<ElicitRequest['params']> }> {
  const dir = mkdtempSync(join(tmpdir(), 'rsi-mcp-round3-'));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [RSI_BIN, 'mcp', 'serve', '--allow-write'],
    env: cleanEnv({ RSI_BASE_URL: sb.url, RSI_TOKEN: token, RSI_CONFIG_DIR: dir, ...options.env }) as Record<string, string>,
    stderr: 'pipe',
  });
  const asked: Array<ElicitRequest['params']> = [];
  const clientOptions: ClientOptions = options.elicitation ? { capabilities: { elicitation: options.elicitation } } : {};
  const client = new Client({ name: 'rsi-round3', version: '0' }, clientOptions);
  if (options.elicitation) {
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      asked.push(req.params);
      const action = options.answer?.(req.params) ?? 'cancel';
      return action === 'accept' && req.params.mode !== 'url' ? { action, content: {} } : { action };
    });
  }
  await client.connect(transport);
  clients.push(client);
  return { client, asked };
}

const structured = (r: unknown) => (r as CallToolResult).structuredContent as Record<string, any>;
const text = (r: unknown) =>
  ((r as CallToolResult).content ?? [])
    .filter((c) => c.type === 'text')
    .map((c) => (c as { text: string }).text)
    .join('\n');
const links = (r: unknown) =>
  ((r as CallToolResult).content ?? []).filter((c) => c.type === 'resource_link') as Array<{ name: string; uri: string }>;
const runs = async () => (await sandboxStats(sb.url)).runs;
const projectId = async (name: string) =>
  ((await api('/projects')).body.projects as Array<{ id: string; name: string }>).find((p) => p.name === name)!.id;

describe('elicitation by mode', () => {
  it('a client with URL-mode elicitation only is never sent a form: asked, then an identical repeat runs', async () => {
    const { client, asked } = await serve({ elicitation: { url: {} }, answer: () => 'accept' });
    const call = { project: 'KRAS inhibitors', top: { type: 'target', limit: 1 } };
    const before = await runs();
    const first = structured(await client.callTool({ name: 'run_analyses', arguments: call }));
    expect(first).toMatchObject({ needs_confirmation: true, rsi_confirmation: 'asked' });
    expect(asked).toEqual([]);
    expect(await runs()).toBe(before);
    const repeat = structured(await client.callTool({ name: 'run_analyses', arguments: { ...call, confirmed: true } }));
    expect(repeat).toMatchObject({ rsi_confirmation: 'confirmed' });
    expect(await runs()).toBe(before + 1);
  });

  it('a form-mode client is asked with a form (an empty elicitation capability means form)', async () => {
    for (const elicitation of [{ form: {}, url: {} }, {}]) {
      const { client, asked } = await serve({ elicitation, answer: () => 'decline' });
      const r = structured(
        await client.callTool({ name: 'run_analyses', arguments: { project: 'KRAS inhibitors', top: { type: 'target', limit: 1 } } }),
      );
      expect(r.rsi_confirmation, JSON.stringify(elicitation)).toBe('declined');
      expect(asked).toHaveLength(1);
      expect(asked[0]).toMatchObject({ mode: 'form', requestedSchema: { type: 'object', properties: {} } });
    }
  });

  it('a 409 "finish scoring setup": a URL-mode client is offered the setup page; every client gets it as a link', async () => {
    const id = await projectId('Immunology pipeline');
    const setup = `${sb.url}/projects/${id}/overview?setup=1`;
    const call = { name: 'run_analyses', arguments: { project: 'Immunology pipeline', top: { type: 'target', limit: 1 } } };

    const withUrl = await serve({ elicitation: { url: {} }, answer: () => 'accept' });
    const offered = (await withUrl.client.callTool(call)) as CallToolResult;
    expect(offered.isError).toBe(true);
    expect(withUrl.asked).toHaveLength(1);
    expect(withUrl.asked[0]).toMatchObject({ mode: 'url', url: setup });
    expect((withUrl.asked[0] as { elicitationId: string }).elicitationId).toMatch(/^[0-9a-f-]{36}$/);
    expect(text(offered)).toContain('The user was offered the setup page and accepted to open it.');
    expect(links(offered)).toEqual([expect.objectContaining({ name: 'setup', uri: setup, mimeType: 'text/html' })]);

    const plain = await serve();
    const linked = (await plain.client.callTool(call)) as CallToolResult;
    expect(linked.isError).toBe(true);
    expect(text(linked)).toContain('Give the user the setup page (the resource link)');
    expect(links(linked)).toEqual([expect.objectContaining({ name: 'setup', uri: setup })]);
  });
});

describe('resource links', () => {
  it('create_project links the setup page and the project page; project tools link the project page', async () => {
    const { client } = await serve();
    const created = await client.callTool({ name: 'create_project', arguments: { name: `Linked ${Date.now()}` } });
    const { id, setup_url } = structured(created);
    const page = `${sb.url}/projects/${id}/overview`;
    expect(links(created)).toEqual([
      expect.objectContaining({ name: 'setup', uri: setup_url }),
      expect.objectContaining({ name: 'project', uri: page }),
    ]);
    const status = await client.callTool({ name: 'project_status', arguments: { project: id } });
    expect(links(status)).toEqual([expect.objectContaining({ name: 'project', uri: page })]);
    // The page answers (the sandbox serves the web application's pages).
    expect((await fetch(page)).status).toBe(200);
  });
});

describe('a tool list that follows the sign-ins', () => {
  it('a sign-in for the MCP resource while serving adds its tools and tells the client; logout takes them away', async () => {
    const config = mkdtempSync(join(tmpdir(), 'rsi-mcp-listchanged-'));
    const env = { RSI_CONFIG_DIR: config, RSI_CREDENTIAL_STORE: 'file', BROWSER: FAKE_BROWSER };
    const login = await runCli(['login', '--base-url', sb.url], { env });
    expect(login.code, login.stderr).toBe(0);
    const { client } = await serve({ env: { ...env, RSI_TOKEN: undefined, RSI_BASE_URL: undefined } });
    expect(client.getServerCapabilities()?.tools?.listChanged).toBe(true);
    let changed = () => {};
    let notified = new Promise<void>((resolve) => (changed = resolve));
    let notifications = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      notifications += 1;
      changed();
    });
    const names = async () => (await client.listTools()).tools.map((t) => t.name);
    expect(await names()).not.toContain('project_scoreboard');

    const mcpLogin = await runCli(['login', '--resource', 'mcp'], { env });
    expect(mcpLogin.code, mcpLogin.stderr).toBe(0);
    // Any call reads the sign-ins first (so does a timer, every few seconds).
    await client.callTool({ name: 'list_projects', arguments: {} });
    await notified;
    expect(await names()).toEqual(expect.arrayContaining(['project_scoreboard', 'create_project_from_brief']));
    const board = structured(await client.callTool({ name: 'project_scoreboard', arguments: { project: 'Oncology watchlist', limit: 1 } }));
    expect(board.scoreboard).toHaveLength(1);
    // Two tools came: one change, one notification.
    expect(notifications).toBe(1);

    notified = new Promise<void>((resolve) => (changed = resolve));
    const logout = await runCli(['logout'], { env });
    expect(logout.code, logout.stderr).toBe(0);
    await client.callTool({ name: 'list_projects', arguments: {} });
    await notified;
    expect(await names()).not.toContain('project_scoreboard');
    expect(notifications).toBe(2);
  }, 60_000);
});

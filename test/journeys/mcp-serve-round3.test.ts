// `rsi mcp serve`, round 3 (issue 32), with the SDK client over stdio against a real sandbox: a
// tool list that follows a sign-in or sign-out made while serving (listChanged and the
// notification), through the real credential store. Elicitation by mode, the 409 setup page and
// resource links are tested in process: test/unit/mcp-tools-write.test.ts.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
import { startSandbox, type InProcessSandbox } from '../support/inproc.js';
import { FAKE_BROWSER } from '../support/browser.js';

let sb: InProcessSandbox;
let token: string;
const clients: Client[] = [];

beforeAll(async () => {
  sb = await startSandbox(['--auto-approve', '--time-scale', '10']);
  token = (await obtainTokens(sb.url)).access_token;
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

describe('a tool list that follows the sign-ins', () => {
  it('a sign-in for the MCP resource while serving adds its tools and tells the client; logout takes them away', async () => {
    const config = mkdtempSync(join(tmpdir(), 'rsi-mcp-listchanged-'));
    const env = { RSI_CONFIG_DIR: config, RSI_CREDENTIAL_STORE: 'file', BROWSER: FAKE_BROWSER };
    const login = await runCli(['login', '--base-url', sb.url], { env });
    expect(login.code, login.stderr).toBe(0);
    // A client that can ask its user (form elicitation): the write tools are listed to it.
    const { client } = await serve({ env: { ...env, RSI_TOKEN: undefined, RSI_BASE_URL: undefined }, elicitation: { form: {} } });
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
    // `rsi logout` ends both sign-ins: the write tools the API sign-in held go too. A read of the
    // sign-ins (a call, or the timer) that falls between its two removals sees two changes, so one
    // or two more notifications, and the list is final after the second.
    await expect.poll(names).not.toContain('project_scoreboard');
    await expect.poll(names).not.toContain('create_project');
    expect(notifications).toBeGreaterThanOrEqual(2);
    expect(notifications).toBeLessThanOrEqual(3);
  });
});

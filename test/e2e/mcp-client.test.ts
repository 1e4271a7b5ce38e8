// rsi as an MCP client of the service: `rsi login --resource mcp` (the real PKCE flow, file store),
// `rsi mcp tools` and `rsi mcp call` against a real sandbox, refresh through rsi's own provider,
// argument checks before anything is sent, tool errors and the resource binding seen from the CLI.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { obtainTokens } from '../support/oauth.js';
import { sandboxStats } from '../support/sandbox.js';
import { runCli, startSandbox, type InProcessSandbox } from '../support/inproc.js';
import { FAKE_BROWSER } from '../support/browser.js';

let sb: InProcessSandbox;
let mcpToken: string;
let apiToken: string;
let readOnlyMcp: string;

beforeAll(async () => {
  sb = await startSandbox(['--auto-approve']);
  const tokens = await Promise.all([
    obtainTokens(sb.url, { resource: `${sb.url}/mcp` }),
    obtainTokens(sb.url),
    obtainTokens(sb.url, { resource: `${sb.url}/mcp`, scopes: ['service:read'] }),
  ]);
  mcpToken = tokens[0].access_token;
  apiToken = tokens[1].access_token;
  readOnlyMcp = tokens[2].access_token;
});
afterAll(async () => {
  await sb?.stop();
});

const withToken = (token: string, extra: Record<string, string> = {}) => ({
  env: { RSI_BASE_URL: sb.url, RSI_MCP_TOKEN: token, RSI_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'rsi-mcp-')), ...extra },
});

describe('sign-in for the MCP resource', () => {
  it('stores MCP tokens beside the API ones, uses and refreshes them; logout removes both', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rsi-mcp-login-'));
    const env = { RSI_CONFIG_DIR: dir, RSI_CREDENTIAL_STORE: 'file', BROWSER: FAKE_BROWSER };
    const api = await runCli(['login', '--base-url', sb.url], { env });
    expect(api.code, api.stderr).toBe(0);
    // `auth status` reports the MCP sign-in beside the API's: absent, then present.
    const unsigned = JSON.parse((await runCli(['auth', 'status', '--json'], { env })).stdout) as { mcp: Record<string, unknown> };
    expect(unsigned.mcp).toEqual({
      resource: `${sb.url}/mcp`,
      signedIn: false,
      source: null,
      scopes: [],
      expiresAt: null,
      checked: false,
      problem: null,
    });
    expect((await runCli(['auth', 'status'], { env })).stdout).toMatch(/^MCP +not signed in \(`rsi login --resource mcp` signs in\)$/m);
    const mcp = await runCli(['login', '--base-url', sb.url, '--resource', 'mcp'], { env });
    expect(mcp.code, mcp.stderr).toBe(0);
    expect(mcp.stderr).toContain('for its MCP server');
    const after = JSON.parse((await runCli(['auth', 'status', '--json'], { env })).stdout) as {
      scopes: string[];
      mcp: { signedIn: boolean; source: string; scopes: string[]; expiresAt: string };
    };
    expect(after.mcp).toMatchObject({ signedIn: true, source: 'file' });
    expect(after.mcp.scopes.length).toBeGreaterThan(0);
    expect(Date.parse(after.mcp.expiresAt)).toBeGreaterThan(Date.now());
    const text = (await runCli(['auth', 'status'], { env })).stdout;
    expect(text).toMatch(/^MCP +signed in: file/m);
    expect(text).toMatch(/^MCP scopes +\S+/m);
    expect(text).toMatch(/^MCP expires +\d{4}-.*refreshed automatically/m);
    const stored = JSON.parse(readFileSync(join(dir, 'credentials.json'), 'utf8')) as Record<string, { accessToken: string }>;
    expect(Object.keys(stored).sort()).toEqual([`default ${sb.url}`, `default+mcp ${sb.url}`]);
    expect(stored[`default ${sb.url}`]!.accessToken).not.toBe(stored[`default+mcp ${sb.url}`]!.accessToken);

    // Both sign-ins work side by side: the API token for the API, the MCP token for /mcp.
    const tools = await runCli(['mcp', 'tools', '--json'], { env });
    expect(tools.code, tools.stderr).toBe(0);
    expect((JSON.parse(tools.stdout) as Array<{ name: string }>).map((t) => t.name)).toContain('project_scoreboard');
    expect((await runCli(['projects', 'list'], { env })).code).toBe(0);
    // RSI_TOKEN with RSI_BASE_URL skips the stored API login, not the stored MCP one.
    const ci = await runCli(['mcp', 'tools'], { env: { ...env, RSI_TOKEN: apiToken, RSI_BASE_URL: sb.url } });
    expect(ci.code, ci.stderr).toBe(0);

    // The service drops the MCP access token: the 401 goes to rsi's provider, which refreshes it
    // (resource=<base>/mcp, under rsi's lock) and the request is sent again.
    const revoked = await fetch(`${sb.url}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: stored[`default+mcp ${sb.url}`]!.accessToken }),
    });
    expect(revoked.status).toBe(200);
    const before = (await sandboxStats(sb.url)).tokens.refreshed;
    const again = await runCli(['mcp', 'tools'], { env });
    expect(again.code, again.stderr).toBe(0);
    expect((await sandboxStats(sb.url)).tokens.refreshed).toBe(before + 1);
    const rotated = JSON.parse(readFileSync(join(dir, 'credentials.json'), 'utf8')) as Record<string, { accessToken: string }>;
    expect(rotated[`default+mcp ${sb.url}`]!.accessToken).not.toBe(stored[`default+mcp ${sb.url}`]!.accessToken);
    expect(rotated[`default ${sb.url}`]!.accessToken).toBe(stored[`default ${sb.url}`]!.accessToken);
    for (const secret of Object.values(stored).map((s) => s.accessToken)) {
      expect(again.stdout + again.stderr + tools.stderr).not.toContain(secret);
    }

    const out = await runCli(['logout'], { env });
    expect(out.stderr).toContain('Signed out of the MCP server');
    const gone = await runCli(['mcp', 'tools'], { env });
    expect(gone.code).toBe(3);
    expect(gone.stderr).toContain('rsi login --resource mcp');
  });

  it('without an MCP sign-in: exit 3 naming `rsi login --resource mcp`, even with an API token', async () => {
    const r = await runCli(['mcp', 'tools'], {
      env: { RSI_BASE_URL: sb.url, RSI_TOKEN: apiToken, RSI_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'x-')) },
    });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^rsi: not signed in to the MCP server/m);
    expect(r.stderr).toContain('hint: run `rsi login --resource mcp`');
  });
});

describe('resource binding seen from the CLI', () => {
  it('an API token at the MCP server is refused: exit 3', async () => {
    const r = await runCli(['mcp', 'tools'], withToken(apiToken));
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('refused the access token in RSI_MCP_TOKEN');
  });

  it('an MCP token at the API is refused: exit 3', async () => {
    const r = await runCli(['projects', 'list'], { env: { RSI_BASE_URL: sb.url, RSI_TOKEN: mcpToken } });
    expect(r.code).toBe(3);
  });
});

describe('rsi mcp tools', () => {
  it('lists the tools in a table, tsv and JSON', async () => {
    const tsv = await runCli(['mcp', 'tools'], withToken(mcpToken));
    expect(tsv.code, tsv.stderr).toBe(0);
    expect(tsv.stdout).toContain('project_scoreboard\tproject_id*:string limit:integer\t');
    const json = await runCli(['mcp', 'tools', '--json'], withToken(mcpToken));
    const tools = JSON.parse(json.stdout) as Array<{ name: string; inputSchema: { required: string[] } }>;
    expect(tools.find((t) => t.name === 'create_project_from_brief')?.inputSchema.required).toEqual(['brief']);
  });
});

describe('rsi mcp call', () => {
  it('converts --arg by the input schema and prints structuredContent as JSON', async () => {
    const projects = await runCli(['projects', 'list', '--json'], { env: { RSI_BASE_URL: sb.url, RSI_TOKEN: apiToken } });
    const onc = (JSON.parse(projects.stdout) as { projects: Array<{ id: string; name: string }> }).projects.find(
      (p) => p.name === 'Oncology watchlist',
    )!;
    const r = await runCli(['mcp', 'call', 'project_scoreboard', '--arg', `project_id=${onc.id}`, '--arg', 'limit=2'], withToken(mcpToken));
    expect(r.code, r.stderr).toBe(0);
    const board = JSON.parse(r.stdout) as { scoreboard: Array<{ rank: number }> };
    expect(board.scoreboard.map((x) => x.rank)).toEqual([1, 2]);
  });

  it('reads a JSON object from --input -, with --arg overriding it', async () => {
    const r = await runCli(['mcp', 'call', 'create_project_from_brief', '--input', '-', '--arg', 'confirm=false'], {
      ...withToken(mcpToken),
      input: JSON.stringify({ brief: 'ALK fusions in NSCLC', confirm: true }),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      created: false,
      matched: [{ entity_name: 'ALK' }, { entity_name: 'Non-small cell lung cancer' }],
    });
  });

  it.each([
    [['--arg', 'limit=abc', '--arg', 'project_id=x'], /--arg limit: expected an integer \(got "abc"\)/],
    [['--arg', 'limit=5'], /needs --arg project_id=/],
    [['--arg', 'colour=blue', '--arg', 'project_id=x'], /has no argument "colour"/],
    [['--arg', 'project_id=x', '--arg', 'limit=500'], /invalid arguments for the tool project_scoreboard: limit must be <= 100/],
    [['--arg', 'noequals'], /--arg must be KEY=VALUE/],
  ])('refuses bad arguments before calling: %j', async (args, message) => {
    const before = (await sandboxStats(sb.url)).byRoute['POST /mcp'] ?? 0;
    const r = await runCli(['mcp', 'call', 'project_scoreboard', ...args], withToken(mcpToken));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n').length).toBeLessThanOrEqual(2);
    // initialize, initialized and tools/list at most: no tools/call went out.
    expect(((await sandboxStats(sb.url)).byRoute['POST /mcp'] ?? 0) - before).toBeLessThanOrEqual(3);
  });

  it('an unknown tool is exit 2 listing the tools', async () => {
    const r = await runCli(['mcp', 'call', 'nope'], withToken(mcpToken));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('hint: its tools: create_project_from_brief, project_scoreboard');
  });

  it('maps isError: a missing scope is exit 4 naming it; another tool error is exit 1 with its text', async () => {
    const scope = await runCli(
      ['mcp', 'call', 'create_project_from_brief', '--arg', 'brief=EGFR', '--arg', 'confirm=true'],
      withToken(readOnlyMcp),
    );
    expect(scope.code).toBe(4);
    expect(scope.stderr).toContain('needs the projects:write scope');
    const other = await runCli(['mcp', 'call', 'project_scoreboard', '--arg', 'project_id=not-a-uuid'], withToken(mcpToken));
    expect(other.code).toBe(1);
    expect(other.stderr).toContain('rsi: the tool project_scoreboard failed: project_id must be a UUID');
    expect(other.stdout).toBe('');
  });
});

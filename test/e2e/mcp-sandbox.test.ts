import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { obtainTokens } from '../support/oauth.js';
import { startSandbox, type InProcessSandbox } from '../support/inproc.js';

// The sandbox's MCP server at /mcp, driven by the SDK's own client: the resource binding both
// ways, and the two MCP-only tools over the seeded data.
let sb: InProcessSandbox;
let apiToken: string;
let mcpToken: string;
let readOnlyMcp: string;

beforeAll(async () => {
  sb = await startSandbox(['--auto-approve']);
  apiToken = (await obtainTokens(sb.url)).access_token;
  mcpToken = (await obtainTokens(sb.url, { resource: `${sb.url}/mcp` })).access_token;
  readOnlyMcp = (await obtainTokens(sb.url, { resource: `${sb.url}/mcp`, scopes: ['service:read'] })).access_token;
});

afterAll(async () => {
  await sb?.stop();
});

async function connect(token: string): Promise<Client> {
  const client = new Client({ name: 'rsi-tests', version: '0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${sb.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

function post(path: string, token: string, body?: unknown): Promise<Response> {
  return fetch(`${sb.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } },
};

describe('resource binding', () => {
  it('refuses an API token at /mcp with 401 and points at the MCP resource metadata', async () => {
    const res = await post('/mcp', apiToken, initialize);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${sb.url}/.well-known/oauth-protected-resource/mcp"`);
    expect(await res.json()).toEqual({ error: 'unauthorized' });
    expect((await post('/mcp', 'not-a-token', initialize)).status).toBe(401);
  });

  it('refuses an MCP token at the API with 401', async () => {
    expect((await post('/api/v1/projects', mcpToken)).status).toBe(401);
    expect((await post('/api/v1/projects', apiToken)).status).toBe(200);
  });

  it('accepts the MCP token at /mcp; the protected-resource document names it', async () => {
    expect((await post('/mcp', mcpToken, initialize)).status).toBe(200);
    const prm = (await (await fetch(`${sb.url}/.well-known/oauth-protected-resource/mcp`)).json()) as { resource: string };
    expect(prm.resource).toBe(`${sb.url}/mcp`);
  });

  it('is stateless: GET and DELETE are 405', async () => {
    const res = await post('/mcp', mcpToken);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
  });
});

describe('tools over the seeded data', () => {
  it('lists the brief and scoreboard tools with their input schemas', async () => {
    const client = await connect(mcpToken);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['create_project_from_brief', 'project_scoreboard']);
    const brief = tools.find((t) => t.name === 'create_project_from_brief')!;
    expect(brief.inputSchema.required).toEqual(['brief']);
    expect(Object.keys(brief.inputSchema.properties ?? {}).sort()).toEqual(['brief', 'confirm', 'name']);
    await client.close();
  });

  it('matches scope from a brief without creating anything, then creates when confirmed', async () => {
    const client = await connect(mcpToken);
    const brief = 'KRAS resistance in NSCLC\nWe met to compare antibody-drug conjugates and PD-1 with lung cancer outcomes.';
    const before = (await (await post('/api/v1/projects', apiToken)).json()) as { projects: unknown[] };
    const dry = await client.callTool({ name: 'create_project_from_brief', arguments: { brief } });
    expect(dry.isError).toBeFalsy();
    const matched = (dry.structuredContent as { matched: Array<{ entity_name: string; matched_text: string }> }).matched;
    // "met" is not the target MET; NSCLC is matched by its synonym.
    expect(matched.map((m) => m.entity_name)).toEqual(['KRAS', 'Non-small cell lung cancer', 'PD-1']);
    expect(matched[1]!.matched_text).toBe('NSCLC');
    expect(dry.structuredContent).toMatchObject({ created: false, name: 'KRAS resistance in NSCLC' });
    const after = (await (await post('/api/v1/projects', apiToken)).json()) as { projects: unknown[] };
    expect(after.projects).toHaveLength(before.projects.length);

    const made = await client.callTool({ name: 'create_project_from_brief', arguments: { brief, name: 'From a brief', confirm: true } });
    expect(made.isError).toBeFalsy();
    const project = (made.structuredContent as { project: { id: string; setup_url: string; role: string } }).project;
    expect(project.role).toBe('owner');
    expect(project.setup_url).toBe(`${sb.url}/projects/${project.id}/overview?setup=1`);
    const list = (await (await post('/api/v1/projects', apiToken)).json()) as { projects: Array<{ id: string; brief: string }> };
    expect(list.projects.find((p) => p.id === project.id)?.brief).toBe(brief);
    await client.close();
  });

  it('creating needs projects:write; matching needs only service:read', async () => {
    const client = await connect(readOnlyMcp);
    const dry = await client.callTool({ name: 'create_project_from_brief', arguments: { brief: 'EGFR in NSCLC' } });
    expect(dry.isError).toBeFalsy();
    const made = await client.callTool({ name: 'create_project_from_brief', arguments: { brief: 'EGFR in NSCLC', confirm: true } });
    expect(made.isError).toBe(true);
    expect(JSON.stringify(made.content)).toContain('projects:write');
    await client.close();
  });

  it('ranks the scoreboard by composite score and refuses projects the caller is not in', async () => {
    const client = await connect(mcpToken);
    const projects = (await (await post('/api/v1/projects', apiToken)).json()) as { projects: Array<{ id: string; name: string }> };
    const onc = projects.projects.find((p) => p.name === 'Oncology watchlist')!;
    const res = await client.callTool({ name: 'project_scoreboard', arguments: { project_id: onc.id } });
    const board = res.structuredContent as { total: number; scoreboard: Array<{ rank: number; score: number }> };
    expect(board.total).toBeGreaterThan(2);
    expect(board.scoreboard.map((r) => r.rank)).toEqual(board.scoreboard.map((_, i) => i + 1));
    const scores = board.scoreboard.map((r) => r.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    const limited = await client.callTool({ name: 'project_scoreboard', arguments: { project_id: onc.id, limit: 2 } });
    expect((limited.structuredContent as { scoreboard: unknown[] }).scoreboard).toHaveLength(2);

    const outsider = await client.callTool({
      name: 'project_scoreboard',
      arguments: { project_id: '00000000-0000-4000-8000-000000000000' },
    });
    expect(outsider.isError).toBe(true);
    const bad = await client.callTool({ name: 'project_scoreboard', arguments: { project_id: onc.id, limit: 500 } });
    expect(bad.isError).toBe(true);
    await client.close();
  });
});

/**
 * The sandbox's MCP server at `/mcp`: the MCP TypeScript SDK's server over Streamable HTTP,
 * stateless (a fresh server and transport per POST, JSON replies, no session id), behind the
 * sandbox's OAuth with its own resource binding: only a token issued for `{base}/mcp` is accepted
 * here, as only one for `{base}/api/v1` is accepted by the API. Two tools carry the features the
 * spec says exist only on the MCP server: a project from a brief with scope matching, and the
 * ranked scoreboard. Every choice the spec leaves open is in docs/sandbox.md ("MCP").
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import * as z from 'zod';
import { HttpError, type Req, type Res } from './http.js';
import { HOSTILE_MCP_TEXT } from './faults.js';
import type { SandboxContext } from './context.js';
import { USER, type Caller, type OAuthServer } from './oauth.js';
import type { ApiService } from './api.js';
import type { Project } from './projects.js';
import type { Catalogue, Keyword } from './data.js';

/** The tool names the CLI looks for in `tools/list` (the spec names none). */
export const BRIEF_TOOL = 'create_project_from_brief';
export const SCOREBOARD_TOOL = 'project_scoreboard';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Keyword types a brief can bring into a project's scope (sponsors are not scope). */
const SCOPE_TYPES = new Set(['target', 'disease', 'modality', 'mechanism', 'asset']);

export interface McpDeps {
  ctx: SandboxContext;
  oauth: OAuthServer;
  api: ApiService;
}

/** Handles one request to `/mcp`. The one hook in server.ts calls this. */
export async function handleMcp(req: Req, deps: McpDeps): Promise<Res> {
  const { ctx, oauth } = deps;
  let caller: Caller;
  try {
    caller = oauth.authenticate(req.headers.authorization, ctx.mcpResource);
  } catch (error) {
    if (error instanceof HttpError && error.status === 401) {
      return {
        status: 401,
        headers: { 'www-authenticate': `Bearer resource_metadata="${ctx.base}/.well-known/oauth-protected-resource/mcp"` },
        json: { error: 'unauthorized' },
      };
    }
    throw error;
  }
  if (req.path !== '/mcp') return { status: 404, json: { error: 'Not found' } };
  // Stateless: no session to resume, so no standalone SSE stream (GET) and nothing to end (DELETE).
  if (req.method !== 'POST') {
    return {
      status: 405,
      headers: { allow: 'POST' },
      json: { jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this server is stateless; use POST' }, id: null },
    };
  }

  const server = buildServer(deps, caller);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  try {
    await server.connect(transport);
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) {
      if (v === undefined) continue;
      headers.set(k, Array.isArray(v) ? v.join(', ') : v);
    }
    const response = await transport.handleRequest(new Request(req.url, { method: 'POST', headers, body: new Uint8Array(req.body) }));
    const text = await response.text();
    const out: Record<string, string> = {};
    response.headers.forEach((value, key) => {
      if (key !== 'content-length') out[key] = value;
    });
    return { status: response.status, headers: out, text };
  } finally {
    await server.close();
  }
}

function buildServer(deps: McpDeps, caller: Caller): McpServer {
  const { api } = deps;
  const server = new McpServer({ name: 'rsi-sandbox-mcp', version: '1.0.0' });

  server.registerTool(
    BRIEF_TOOL,
    {
      title: 'Create a project from a brief',
      description:
        'Matches the brief against the keyword catalogue and returns the scope items found (targets, diseases, modalities, ' +
        'mechanisms, assets named in the text). Nothing is created unless confirm is true; then the project is created with ' +
        'the brief and the matched items as its watchlist.',
      inputSchema: {
        brief: z.string().min(1).max(20_000).describe('the project brief, free text'),
        name: z.string().min(1).max(200).optional().describe("the project name (default: the brief's first line)"),
        confirm: z.boolean().optional().describe('create the project (default false: only show the matched scope)'),
      },
      annotations: { destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    async ({ brief, name, confirm }) => {
      const needed = confirm ? 'projects:write' : 'service:read';
      if (!caller.scopes.includes(needed)) return toolError(`insufficient_scope: this call needs the ${needed} scope`);
      if (!brief.trim()) return toolError('brief must not be blank');
      const matched = matchScope(api.catalogue, brief);
      const projectName = (name ?? brief.trim().split('\n')[0]!).trim().slice(0, 200);
      if (!projectName) return toolError('name must not be blank');
      const result: Record<string, unknown> = { name: projectName, matched, created: false };
      if (confirm) {
        if (matched.length === 0)
          return toolError('No scope item was found in the brief; nothing was created. Name a target, disease or modality.');
        let res: Res;
        try {
          res = api.createProject(
            {
              method: 'POST',
              url: new URL('/api/v1/projects', deps.ctx.base),
              path: '/api/v1/projects',
              headers: {},
              remote: 'mcp',
              body: Buffer.from(
                JSON.stringify({
                  name: projectName,
                  brief,
                  watchlist_items: matched.map(({ matched_text, ...item }) => ({ ...item, data: { matched_text } })),
                  operand: '$or',
                }),
              ),
            },
            caller,
          );
        } catch (error) {
          if (error instanceof HttpError) return toolError(String((error.body as { error?: unknown }).error ?? `HTTP ${error.status}`));
          throw error;
        }
        result.created = true;
        result.project = res.json;
      }
      return { structuredContent: result, content: [{ type: 'text', text: JSON.stringify(result) }] };
    },
  );

  server.registerTool(
    SCOREBOARD_TOOL,
    {
      title: 'Ranked scoreboard of a project',
      description:
        "The project's scored opportunities ranked by composite score (highest first, ties by name), with the five component scores.",
      inputSchema: {
        project_id: z.string().describe('the project UUID'),
        limit: z.number().int().min(1).max(100).optional().describe('how many ranks to return, 1-100 (default 20)'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ project_id, limit }) => {
      if (!caller.scopes.includes('service:read')) return toolError('insufficient_scope: this call needs the service:read scope');
      if (!UUID.test(project_id)) return toolError('project_id must be a UUID');
      const project = api.projects.get(project_id.toLowerCase());
      if (!project?.members.has(USER.id)) return toolError('You are not a member of this project');
      const result = scoreboard(api, project, limit ?? 20);
      return { structuredContent: result, content: [{ type: 'text', text: JSON.stringify(result) }] };
    },
  );
  if (deps.ctx.faults.has('hostile')) {
    // hostile: a tool whose result is text only, full of escapes, for `rsi mcp call`.
    server.registerTool(
      'hostile_text',
      { title: 'Hostile text', description: 'Returns text full of terminal escapes (sandbox --fault hostile).', inputSchema: {} },
      async () => ({ content: [{ type: 'text' as const, text: HOSTILE_MCP_TEXT }] }),
    );
  }
  return server;
}

function toolError(text: string) {
  return { isError: true, content: [{ type: 'text' as const, text }] };
}

export interface MatchedScope {
  entity_id: string;
  entity_type: string;
  entity_name: string;
  /** The words of the brief that matched the keyword's name or a synonym. */
  matched_text: string;
}

/**
 * Scope matching: every catalogue keyword whose name or synonym appears in the brief as a whole
 * phrase. Short upper-case names (≤ 5 characters: "MET", "RET", "ADC") must match their case, so
 * the English word "met" is not the target MET; longer names match in any case. A match inside a
 * longer match ("lung cancer" inside "non-small cell lung cancer") is dropped. Ordered by where
 * the keyword first appears in the brief.
 */
export function matchScope(catalogue: Catalogue, brief: string): MatchedScope[] {
  const hits: Array<{ kw: Keyword; start: number; end: number; text: string }> = [];
  for (const kw of catalogue.keywords) {
    if (!SCOPE_TYPES.has(kw.type)) continue;
    let best: { start: number; end: number; text: string } | undefined;
    for (const phrase of [kw.name, ...kw.synonyms]) {
      const strict = phrase.length <= 5 && phrase !== phrase.toLowerCase();
      const escaped = phrase.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      const re = new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}])`, strict ? 'u' : 'iu');
      const m = re.exec(brief);
      if (m && (!best || m.index < best.start)) best = { start: m.index, end: m.index + m[0].length, text: m[0] };
    }
    if (best) hits.push({ kw, ...best });
  }
  const kept = hits.filter((h) => !hits.some((o) => o !== h && o.start <= h.start && o.end >= h.end && o.end - o.start > h.end - h.start));
  kept.sort((a, b) => a.start - b.start || a.kw.name.localeCompare(b.kw.name));
  return kept.map((h) => ({ entity_id: h.kw.id, entity_type: h.kw.type, entity_name: h.kw.name, matched_text: h.text }));
}

/** The ranked scoreboard: the project's opportunities (finished analyses) by composite score. */
export function scoreboard(api: ApiService, project: Project, limit: number): Record<string, unknown> {
  const payload = api.opportunities(project) as { keywords: Array<Record<string, unknown>> };
  const rows = [...payload.keywords].sort(
    (a, b) => ((b.score as number | null) ?? -1) - ((a.score as number | null) ?? -1) || String(a.name).localeCompare(String(b.name)),
  );
  return {
    project: { id: project.id, name: project.name },
    total: rows.length,
    scoreboard: rows.slice(0, limit).map((r, i) => ({
      rank: i + 1,
      keyword_id: r.keyword_id,
      name: r.name,
      type: r.type,
      score: r.score,
      momentum: r.momentum,
      maturity: r.maturity,
      competition: r.competition,
      risk: r.risk,
      translation: r.translation,
    })),
  };
}

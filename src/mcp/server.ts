/**
 * `rsi mcp serve`: rsi's own commands as typed MCP tools for an AI assistant, over stdio, calling
 * the in-process API client (the same HTTP layer, sign-in and refresh as the commands). Read-only
 * unless the user starts it with --allow-write; a `needs_confirmation` reply is handed back to the
 * assistant as is, never confirmed here. It never signs in: without credentials every tool
 * answers with a tool error naming `rsi login`. Nothing but JSON-RPC is written to stdout.
 */
import type { Readable, Writable } from 'node:stream';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import type { ApiClient } from '../client/client.js';
import { CliError, UsageError } from '../errors.js';

export interface ServeDeps {
  version: string;
  allowWrite: boolean;
  /** The API client, built on first use (and again after a failure: a later `rsi login` is picked up). */
  client(): Promise<ApiClient>;
  resolveProject(client: ApiClient, ref: string, signal: AbortSignal): Promise<{ id: string; name: string }>;
  resolveKeyword(client: ApiClient, ref: string, signal: AbortSignal): Promise<{ id: string; name: string }>;
  /** Diagnostics for stderr (never stdout). */
  log?: (line: string) => void;
}

const RELATIONS = ['indications', 'assets', 'pipeline_targets', 'sponsors'] as const;
const ACTIVITIES = ['trials', 'papers', 'patents'] as const;
const SECTIONS = ['indications', 'assets', 'pipeline_targets', 'sponsors'] as const;
const MODES = ['most_promising', 'novel_signal_scout', 'validated_opportunity'] as const;
const TOP_TYPES = ['target', 'disease', 'modality', 'mechanism'] as const;
const project = z.string().min(1).describe('project UUID or exact project name');
const keyword = z.string().min(1).describe('keyword UUID, or a name or synonym matched exactly (case-insensitive)');

/** The names of the tools, read-only first; the write ones exist only with --allow-write. */
export const READ_TOOLS = [
  'search_keywords',
  'get_keyword',
  'list_relations',
  'list_projects',
  'project_status',
  'list_signals',
  'list_opportunities',
] as const;
export const WRITE_TOOLS = ['create_project', 'run_analyses'] as const;

export async function createServer(deps: ServeDeps): Promise<McpServer> {
  const { McpServer } = await import('@modelcontextprotocol/sdk/server/mcp.js');
  const server = new McpServer(
    { name: 'rsi', version: deps.version },
    {
      instructions:
        'Research Intelligence Service tools: search keywords, read keyword cards and relations, list projects, and read a ' +
        "project's status, signals and scored opportunities. Projects and keywords may be named or given by UUID." +
        (deps.allowWrite
          ? ' create_project and run_analyses change data: ask the user before calling them, and when run_analyses answers ' +
            'needs_confirmation, show the assumption to the user and call again with confirmed: true only if they agree.'
          : ''),
    },
  );
  const read = { readOnlyHint: true, openWorldHint: false } as const;
  const tool = <A>(fn: (args: A, client: ApiClient, signal: AbortSignal) => Promise<unknown>) =>
    (async (args: A, extra: { signal: AbortSignal }): Promise<CallToolResult> => {
      try {
        const client = await deps.client();
        return ok(await fn(args, client, extra.signal));
      } catch (error) {
        return failed(error, deps.log);
      }
    }) as never;

  server.registerTool(
    'search_keywords',
    {
      title: 'Search keywords',
      description: 'Search scientific or commercial entities (targets, diseases, modalities, assets, sponsors) by name or synonym.',
      inputSchema: {
        query: z.string().describe('search text; an empty one returns nothing'),
        page: z.number().int().min(1).optional().describe('page, from 1'),
        limit: z.number().int().min(1).max(20).optional().describe('hits per page, 1-20 (default 10)'),
      },
      annotations: read,
    },
    tool<{ query: string; page?: number; limit?: number }>((a, c, s) =>
      c.searchKeywords({ q: a.query, ...(a.page ? { page: a.page } : {}), ...(a.limit ? { limit: a.limit } : {}) }, s),
    ),
  );
  server.registerTool(
    'get_keyword',
    {
      title: 'Keyword card',
      description: "A keyword's card: description, synonyms, activity counts (papers, patents, trials, assets) and six scores.",
      inputSchema: { keyword, include: z.array(z.enum(SECTIONS)).optional().describe('extra sections to include') },
      annotations: read,
    },
    tool<{ keyword: string; include?: string[] }>(async (a, c, s) => {
      const kw = await deps.resolveKeyword(c, a.keyword, s);
      return c.getKeyword(kw.id, a.include?.length ? { include: a.include } : {}, s);
    }),
  );
  server.registerTool(
    'list_relations',
    {
      title: 'Keyword relations',
      description: "One page of a keyword's relations (indications, assets, pipeline targets, sponsors); meta.total is the full count.",
      inputSchema: {
        keyword,
        relation: z.enum(RELATIONS),
        activity: z.enum(ACTIVITIES).optional().describe('required when relation is sponsors'),
        limit: z.number().int().min(1).max(100).optional().describe('1-100 (default 20)'),
        offset: z.number().int().min(0).optional(),
      },
      annotations: read,
    },
    tool<{ keyword: string; relation: string; activity?: string; limit?: number; offset?: number }>(async (a, c, s) => {
      if (a.relation === 'sponsors' && !a.activity) throw new UsageError('activity is required when relation is sponsors');
      const kw = await deps.resolveKeyword(c, a.keyword, s);
      return c.listRelations(kw.id, { relation: a.relation, activity: a.activity, limit: a.limit, offset: a.offset }, s);
    }),
  );
  server.registerTool(
    'list_projects',
    {
      title: 'Projects',
      description: 'The projects the user belongs to, with their role (owner, editor, viewer).',
      inputSchema: {},
      annotations: read,
    },
    tool<Record<string, never>>((_a, c, s) => c.listProjects(s)),
  );
  server.registerTool(
    'project_status',
    {
      title: 'Project status',
      description: "A project's discovery and scoring status: summary, next step (wait, run_analyses, list_signals) and analyses.",
      inputSchema: { project },
      annotations: read,
    },
    tool<{ project: string }>(async (a, c, s) => c.getProjectStatus((await deps.resolveProject(c, a.project, s)).id, s)),
  );
  server.registerTool(
    'list_signals',
    {
      title: 'Project signals',
      description: "A project's discovery candidates, ranked by the analysis mode.",
      inputSchema: {
        project,
        type: z.enum(TOP_TYPES).optional(),
        analysis_mode: z.enum(MODES).optional(),
        limit: z.number().int().min(1).max(500).optional().describe('1-500 (default 100)'),
      },
      annotations: read,
    },
    tool<{ project: string; type?: string; analysis_mode?: string; limit?: number }>(async (a, c, s) => {
      const p = await deps.resolveProject(c, a.project, s);
      return c.listSignals(p.id, { type: a.type, analysis_mode: a.analysis_mode, limit: a.limit }, s);
    }),
  );
  server.registerTool(
    'list_opportunities',
    {
      title: 'Project opportunities',
      description: "A project's scored opportunities and analysis counts.",
      inputSchema: { project },
      annotations: read,
    },
    tool<{ project: string }>(async (a, c, s) => c.getOpportunities((await deps.resolveProject(c, a.project, s)).id, s)),
  );

  if (deps.allowWrite) {
    server.registerTool(
      'create_project',
      {
        title: 'Create a project',
        description: 'Creates a project (the user becomes owner) and returns its id and the setup_url where scoring setup is finished.',
        inputSchema: {
          name: z.string().min(1).max(200),
          brief: z.string().optional(),
          watchlist_items: z
            .array(z.looseObject({ entity_id: z.string().min(1), entity_type: z.string().min(1), entity_name: z.string().optional() }))
            .optional(),
          operand: z.enum(['$and', '$or']).optional(),
          goals: z.array(z.enum(['target', 'indication', 'modality'])).optional(),
        },
        annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      },
      tool<{
        name: string;
        brief?: string;
        watchlist_items?: Array<{ entity_id: string; entity_type: string }>;
        operand?: '$and' | '$or';
        goals?: string[];
      }>((a, c, s) => c.createProject(a, s)),
    );
    server.registerTool(
      'run_analyses',
      {
        title: 'Run scoring analyses',
        description:
          'Starts scoring analyses for chosen signals or the top N of a type. When the service asks for confirmation the reply has ' +
          'needs_confirmation: true and nothing was run: show the assumption to the user, and call again with confirmed: true only if they agree.',
        inputSchema: {
          project,
          selections: z.array(z.object({ keyword_id: z.string(), signal_keyword_id: z.string() })).optional(),
          top: z
            .object({
              type: z.enum(TOP_TYPES),
              limit: z.number().int().min(1).max(100),
              analysis_mode: z.enum(MODES).optional(),
              readiness: z.string().optional(),
              therapeutic_area: z.string().optional(),
            })
            .optional(),
          include_analysed: z.boolean().optional(),
          confirmed: z.boolean().optional().describe('true only after the user agreed to what needs_confirmation described'),
        },
        annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      },
      tool<{
        project: string;
        selections?: Array<{ keyword_id: string; signal_keyword_id: string }>;
        top?: {
          type: (typeof TOP_TYPES)[number];
          limit: number;
          analysis_mode?: (typeof MODES)[number];
          readiness?: string;
          therapeutic_area?: string;
        };
        include_analysed?: boolean;
        confirmed?: boolean;
      }>(async (a, c, s) => {
        if (!a.selections === !a.top) throw new UsageError('give either selections or top');
        const p = await deps.resolveProject(c, a.project, s);
        const body = {
          ...(a.selections ? { selections: a.selections } : {}),
          ...(a.top ? { top: { ...a.top, ...(a.confirmed ? { confirmed: true } : {}) } } : {}),
          ...(a.include_analysed ? { include_analysed: true } : {}),
          ...(a.confirmed ? { confirmed: true } : {}),
        };
        return c.runAnalyses(p.id, body, s);
      }),
    );
  }
  return server;
}

function ok(value: unknown): CallToolResult {
  const structured =
    value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : { result: value };
  return { structuredContent: structured, content: [{ type: 'text', text: JSON.stringify(value) }] };
}

/** A failure as the assistant should see it: rsi's one-line message and hint, never a stack. */
function failed(error: unknown, log?: (line: string) => void): CallToolResult {
  if (error instanceof CliError) {
    const hint = error.hint ? `\nhint: ${error.hint}` : '';
    return { isError: true, content: [{ type: 'text', text: `rsi: ${error.message}${hint}` }] };
  }
  log?.(`rsi mcp serve: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  return {
    isError: true,
    content: [{ type: 'text', text: `rsi: unexpected error: ${error instanceof Error ? error.message : String(error)}` }],
  };
}

/** Serves until stdin ends, the client closes, or the signal aborts. */
export async function serveStdio(server: McpServer, io: { stdin: Readable; stdout: Writable }, signal: AbortSignal): Promise<void> {
  const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
  const transport = new StdioServerTransport(io.stdin, io.stdout);
  const done = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    io.stdin.once('end', () => resolve());
    io.stdin.once('close', () => resolve());
    if (signal.aborted) resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await server.connect(transport);
  await done;
  await server.close().catch(() => undefined);
}

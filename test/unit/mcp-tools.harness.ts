/**
 * `rsi mcp serve` in process for the mcp-tools-*.test.ts files: the real server (createServer) and
 * the SDK's own client over InMemoryTransport, against a fake API client that records every call
 * and, where asked, a fake session of the service's MCP server. No process, no socket.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  type CallToolResult,
  type ClientCapabilities,
  ElicitRequestSchema,
  type ElicitResult,
  type ElicitRequest,
  ToolListChangedNotificationSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { ApiClient } from '../../src/client/client.js';
import type { McpConnection } from '../../src/mcp/client.js';
import { createServer } from '../../src/mcp/server.js';
import type { ServeDeps, SignIns } from '../../src/mcp/deps.js';

export const ORIGIN = 'https://rsi.test';
export const ALPHA = '11111111-2222-4333-8444-555555555555';
export const EGFR = 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee';

/** A fake API: each method answers from `overrides` or a default reply the client's schemas accept; every call is recorded. */
export type FakeApi = Partial<Record<keyof ApiClient, unknown>> & { calls: Array<{ method: string; args: unknown[] }> };

export function fakeApi(overrides: Partial<Record<keyof ApiClient, (...args: any[]) => unknown>> = {}): FakeApi {
  const calls: FakeApi['calls'] = [];
  const defaults: Record<string, (...args: any[]) => unknown> = {
    searchKeywords: () => ({ data: [{ id: EGFR, name: 'EGFR', type: 'target', synonyms: ['HER1'] }], meta: { page: 1, pageSize: 10 } }),
    getKeyword: (id: string) => ({
      id,
      name: 'EGFR',
      type: 'target',
      description: null,
      synonyms: ['HER1'],
      activity: { papers: 1 },
      scores: {},
    }),
    listRelations: (_id: string, q: { relation: string; limit?: number; offset?: number }) => ({
      data: [{ id: 'r1', name: 'lung cancer', count: 3 }],
      meta: { relation: q.relation, limit: q.limit ?? 20, offset: q.offset ?? 0, total: 1 },
    }),
    listProjects: () => ({ projects: [{ id: ALPHA, name: 'Alpha', role: 'owner' }] }),
    getProjectStatus: () => ({ signals_ready: true, scoring: 'done', summary: 'done', next: 'list_signals', analyses: [] }),
    listSignals: () => ({
      analysis_mode: 'balanced',
      analysis_mode_label: 'Balanced',
      filter: 'all',
      total: 1,
      unanalysed_total: 1,
      signals: [{ keyword_id: EGFR, signal_keyword_id: 's1', name: 'EGFR', type: 'target', analysed: false }],
    }),
    getOpportunities: () => ({ keywords: [], error: null }),
    createProject: (body: { name: string }) => ({
      id: ALPHA,
      name: body.name,
      role: 'owner',
      setup_url: `${ORIGIN}/projects/${ALPHA}/overview?setup=1`,
    }),
    runAnalyses: () => ({ runs: [{ id: 'run1', keyword_id: EGFR, kind: 'score' }] }),
  };
  const api: FakeApi = { calls, baseUrl: ORIGIN };
  for (const [method, fn] of Object.entries({ ...defaults, ...overrides })) {
    (api as Record<string, unknown>)[method] = async (...args: unknown[]) => {
      calls.push({ method, args });
      return fn!(...args);
    };
  }
  return api;
}

/** A session of the service's MCP server with these tools; calls are recorded and answered by `answer`. */
export function fakeRemote(tools: Tool[], answer: (name: string, args: Record<string, unknown>) => CallToolResult) {
  const calls: Array<{ name: string; args: Record<string, unknown> }> = [];
  let resets = 0;
  const connection: McpConnection = {
    server: { name: 'fake', version: '0' },
    listTools: async () => tools,
    callTool: async (name, args) => {
      calls.push({ name, args });
      return answer(name, args);
    },
    close: async () => undefined,
  };
  return {
    calls,
    resets: () => resets,
    deps: {
      connection: async () => connection,
      reset: () => void (resets += 1),
    } satisfies NonNullable<ServeDeps['remote']>,
  };
}

export interface ServeOptions {
  api?: FakeApi;
  allowWrite?: boolean;
  /** `--confirm-in-chat`: a client without form elicitation may confirm writes by an identical repeat. */
  confirmInChat?: boolean;
  /** The sign-ins as the server reads them; change `.now` to sign in or out while serving. */
  signIns?: { now: SignIns };
  remote?: ServeDeps['remote'];
  /** The client's capabilities (elicitation modes). */
  capabilities?: ClientCapabilities;
  /** How the client answers an elicitation (omitted: a test that is asked fails). */
  elicit?: (request: ElicitRequest['params']) => ElicitResult | Promise<ElicitResult>;
  budgetBytes?: number;
  signal?: AbortSignal;
  /** How suggested commands carry the server's --profile and --base-url (the command builds it). */
  carry?: ServeDeps['carry'];
  /** The run's secrets scrubber (ServeDeps.scrub). */
  scrub?: (text: string) => string;
}

export interface Served {
  client: Client;
  api: FakeApi;
  logs: string[];
  elicited: Array<ElicitRequest['params']>;
  /** How many notifications/tools/list_changed the client was sent. */
  listChanged: () => number;
  /** Resolves at the next notifications/tools/list_changed. */
  nextListChange: () => Promise<void>;
  call(
    name: string,
    args?: Record<string, unknown>,
    options?: { signal?: AbortSignal; onprogress?: (p: unknown) => void },
  ): Promise<CallToolResult>;
  close(): Promise<void>;
}

export async function serve(options: ServeOptions = {}): Promise<Served> {
  const api = options.api ?? fakeApi();
  const logs: string[] = [];
  const signIns = options.signIns ?? { now: { baseUrl: ORIGIN, api: {} } };
  const server = await createServer({
    version: '0.0.0-test',
    allowWrite: options.allowWrite ?? false,
    confirmInChat: options.confirmInChat ?? false,
    client: async () => api as unknown as ApiClient,
    signIns: async () => signIns.now,
    remote: options.remote,
    signal: options.signal,
    // The rule of io/browser (checkServiceUrl) in small: a page on the service's own origin.
    checkUrl: (raw, origin) => (new URL(raw).origin === new URL(origin).origin ? raw : undefined),
    budgetBytes: options.budgetBytes,
    carry: options.carry,
    log: (line) => void logs.push(line),
    scrub: options.scrub,
  });
  const elicited: Array<ElicitRequest['params']> = [];
  const client = new Client({ name: 'mcp-tools-test', version: '0' }, { capabilities: options.capabilities ?? {} });
  if (options.capabilities?.elicitation) {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      elicited.push(request.params);
      if (!options.elicit) throw new Error(`unexpected elicitation: ${request.params.message}`);
      return options.elicit(request.params);
    });
  }
  let changes = 0;
  let waiters: Array<() => void> = [];
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    changes += 1;
    for (const w of waiters) w();
    waiters = [];
  });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(a), client.connect(b)]);
  // The client checks structuredContent against each tool's outputSchema once it has listed the tools.
  await client.listTools();
  return {
    client,
    api,
    logs,
    elicited,
    listChanged: () => changes,
    nextListChange: () => new Promise<void>((resolve) => waiters.push(resolve)),
    call: async (name, args = {}, o = {}) =>
      (await client.callTool({ name, arguments: args }, undefined, {
        ...(o.signal ? { signal: o.signal } : {}),
        ...(o.onprogress ? { onprogress: o.onprogress as never } : {}),
      })) as CallToolResult,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

export const text = (r: CallToolResult): string =>
  r.content
    .filter((c) => c.type === 'text')
    .map((c) => (c as { text: string }).text)
    .join('\n');
export const data = (r: CallToolResult) => r.structuredContent as Record<string, any>;
export const links = (r: CallToolResult) => r.content.filter((c) => c.type === 'resource_link').map((c) => (c as { uri: string }).uri);

/**
 * The tools of `rsi mcp serve` that call the service's own MCP server (`<base>/mcp`): the ranked
 * scoreboard and a project from a brief (gated like every write: ask.ts). Each call carries its own
 * signal, so cancelling the assistant's request cancels the upstream one.
 */
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import type { ApiClient } from '../client/client.js';
import { UnexpectedReplyError } from '../errors.js';
import { type Extra, type Gate, Reply, said } from './ask.js';
import type { McpConnection } from './client.js';
import { canonical } from './confirm.js';
import { sendBrief } from '../ops/from-brief.js';
import { type McpTools, requireTool } from '../ops/mcp-tools.js';
import { resolveProjectLazily } from '../ops/resolve.js';
import { readScoreboard } from '../ops/scoreboard.js';
import { BRIEF_TOOLS, BriefReply, ScoreboardReply } from '../ops/features.js';
import type { ResourceLink } from './results.js';
import type { ServeDeps } from './deps.js';
import { Confirmation, output, project } from './shapes.js';

export function registerRemoteTools(
  server: McpServer,
  deps: ServeDeps,
  remote: NonNullable<ServeDeps['remote']>,
  h: {
    tool: <A>(
      name: string,
      narrowWith: readonly string[],
      fn: (args: A, extra: Extra) => Promise<unknown>,
    ) => (args: A, extra: Extra) => Promise<CallToolResult>;
    gate: Gate;
    read: Record<string, boolean>;
    write: Record<string, boolean>;
    api: () => Promise<ApiClient>;
    page: (raw: string | undefined, origin: string | undefined, link: Omit<ResourceLink, 'uri'>) => ResourceLink[];
    /** The service base URL of the sign-in, as last read. */
    origin: () => string | undefined;
  },
): Record<string, RegisteredTool> {
  const registered: Record<string, RegisteredTool> = {};
  /**
   * The service's MCP server as the use cases (src/ops) call it: the session kept by the caller,
   * its tools listed once, and a failed session dropped so the next call opens a new one (a
   * cancelled call is no broken session).
   */
  const session: McpTools = {
    async listTools(signal) {
      try {
        const conn = await remote.connection();
        // One tools/list per session: its tools do not change under a stateless server's session.
        let listed = toolLists.get(conn);
        if (!listed) {
          listed = conn.listTools(signal);
          toolLists.set(conn, listed);
          listed.catch(() => toolLists.delete(conn));
        }
        return await listed;
      } catch (error) {
        if (!signal?.aborted) remote.reset();
        throw error;
      }
    },
    async callTool(name, args, signal) {
      let result: CallToolResult;
      try {
        result = await (await remote.connection()).callTool(name, args, signal);
      } catch (error) {
        if (!signal?.aborted) remote.reset();
        throw error;
      }
      if (!result.isError && result.structuredContent === undefined) {
        throw new UnexpectedReplyError(`the MCP tool ${name} answered without structured content`);
      }
      return result;
    },
  };

  registered.project_scoreboard = server.registerTool(
    'project_scoreboard',
    {
      title: 'Project scoreboard',
      description:
        "A project's scored opportunities ranked by composite score, with the component scores (from the service's own MCP server).",
      inputSchema: {
        project,
        limit: z.number().int().min(1).optional().describe('how many ranks to return (the service sets the default and the most)'),
      },
      outputSchema: output(ScoreboardReply),
      annotations: h.read,
    },
    h.tool<{ project: string; limit?: number }>('project_scoreboard', ['limit'], async (a, x) => {
      // A UUID needs no API sign-in; a name is looked up through the API as everywhere else.
      const p = await resolveProjectLazily(h.api, a.project, x.signal);
      return (await readScoreboard(session, { projectId: p.id, limit: a.limit || undefined }, x.signal)).board;
    }),
  );

  if (!deps.allowWrite) return registered;
  registered.create_project_from_brief = server.registerTool(
    'create_project_from_brief',
    {
      title: 'Create a project from a brief',
      description:
        "Matches a project brief against the service's catalogue (targets, diseases, modalities, assets named in it) and creates " +
        'the project with that scope once the user agrees: rsi asks the user itself if your client supports elicitation; otherwise ' +
        'nothing is created, the reply lists the matched scope, and a repeat of exactly the same call with confirmed: true, after ' +
        'the user agreed, creates it.',
      inputSchema: {
        brief: z.string().min(1).describe('the project brief, free text'),
        name: z.string().min(1).optional().describe("the project name (the service's default: the brief's first line)"),
        confirmed: z
          .boolean()
          .optional()
          .describe('true only when repeating, unchanged, a call whose question the user agreed to; a first call is always asked'),
      },
      outputSchema: output(BriefReply.extend({ rsi_confirmation: Confirmation.optional() })),
      annotations: h.write,
    },
    h.tool<{ brief: string; name?: string; confirmed?: boolean }>('create_project_from_brief', [], async (a, x) => {
      const args = { brief: a.brief, ...(a.name ? { name: a.name } : {}) };
      const reply = await h.gate('create_project_from_brief', args, a.confirmed, x, {
        first: async () => {
          const tool = await requireTool(session, BRIEF_TOOLS, 'project-from-brief', x.signal);
          const dry = (await sendBrief(session, tool.name, args, false, x.signal)).reply;
          const items = dry.matched.map((m) => `${said(m.entity_name ?? m.entity_id, 80)} (${said(m.entity_type, 20)})`);
          return {
            // Nothing matched: nothing to create, nothing to ask.
            asks: !dry.created && dry.matched.length > 0,
            value: dry,
            fingerprint: canonical(dry.matched.map((m) => [m.entity_id, m.entity_type])),
            ...(dry.matched.length === 0
              ? { note: 'No scope item was found in the brief, so nothing can be created: name a target, disease or modality in it.' }
              : {}),
            question:
              `Create the project "${said(dry.name ?? a.name ?? '', 120)}" with ${items.length} scope item${items.length === 1 ? '' : 's'}: ` +
              `${items.slice(0, 15).join(', ')}${items.length > 15 ? ` and ${items.length - 15} more` : ''}?`,
          };
        },
        confirmed: async () => {
          const tool = await requireTool(session, BRIEF_TOOLS, 'project-from-brief', x.signal);
          return (await sendBrief(session, tool.name, args, true, x.signal)).reply;
        },
      });
      const created = reply.value as BriefReply;
      if (!created.created || !created.project) return reply;
      const origin = h.origin();
      return new Reply(reply.value, reply.note, reply.question, [
        ...h.page(created.project.setup_url, origin, { name: 'setup', title: 'Finish scoring setup (web application)' }),
        ...h.page(origin && `${origin}/projects/${encodeURIComponent(created.project.id)}/overview`, origin, {
          name: 'project',
          title: 'The project in the web application',
        }),
      ]);
    }),
  );
  return registered;
}

/** The tools of each open session of the service's MCP server, listed once. */
const toolLists = new WeakMap<McpConnection, Promise<Tool[]>>();

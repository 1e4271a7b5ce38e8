/**
 * A project from a brief, an MCP-only feature: the brief goes to the service's tool first as a dry
 * run (`confirm: false`), which lists the scope it matched; only after a person agreed is the same
 * call sent with `confirm: true`, which creates the project. How the person is asked is the
 * front-end's (a terminal prompt, --yes, an MCP elicitation): the `confirm` port.
 */
import type { ApiClient } from '../client/client.js';
import { UnexpectedReplyError } from '../errors.js';
import { type ConfirmableWrite, confirmThenSend } from './confirm.js';
import { BRIEF_TOOLS, BriefReply, parseReply } from './features.js';
import { callTool, type McpTools, requireTool, type ToolInfo } from './mcp-tools.js';
import { placeholder, suggest } from '../io/text.js';
import { projectReadBack, projectsNamed, sendOnce, type WritePorts } from './writes.js';

export interface BriefInput {
  brief: string;
  /** The project name; the service's default is the brief's first line. */
  name?: string | undefined;
}

/** One answer of the brief tool: as sent (what `--json` prints) and parsed. */
export interface BriefStep {
  raw: unknown;
  reply: BriefReply;
}

export type CreatedFromBrief = NonNullable<BriefReply['project']>;

export type FromBriefOutcome =
  /** Nothing in the brief matched the catalogue: nothing to create, nobody was asked. */
  | { outcome: 'no_match'; dry: BriefStep }
  | { outcome: 'declined'; dry: BriefStep }
  /** `done`: the confirmed call's result (`confirmedByReadingBack(done)` says whether it was read back). */
  | { outcome: 'created'; dry: BriefStep; raw: unknown; project: CreatedFromBrief; done: BriefDone };

/** The service's brief tool, when it takes the arguments rsi sends (`brief`, `confirm`). */
export async function briefTool(mcp: Pick<McpTools, 'listTools'>, signal?: AbortSignal): Promise<ToolInfo> {
  const tool = await requireTool(mcp, BRIEF_TOOLS, 'project-from-brief', signal);
  const props = Object.keys(tool.inputSchema.properties ?? {});
  if (!props.includes('brief') || !props.includes('confirm')) {
    throw new UnexpectedReplyError(
      `the MCP tool ${tool.name} does not take the brief and confirm arguments rsi knows (it takes: ${props.join(', ') || 'nothing'})`,
      {
        hint: `call it yourself: ${suggest(['rsi', 'mcp', 'call', tool.name, '--arg', placeholder('…')])}`,
      },
    );
  }
  return tool;
}

function briefArgs(input: BriefInput): Record<string, unknown> {
  return { brief: input.brief, ...(input.name !== undefined ? { name: input.name } : {}) };
}

/**
 * One call of the brief tool, as the service answered it (`confirm: true` asks it to create).
 */
export async function sendBrief(
  mcp: Pick<McpTools, 'callTool'>,
  tool: string,
  input: BriefInput,
  confirm: boolean,
  signal?: AbortSignal,
): Promise<BriefStep> {
  const raw = await callTool(mcp, tool, { ...briefArgs(input), confirm }, signal);
  return { raw, reply: parseReply(tool, BriefReply, raw) };
}

/** A brief's answer once the service is done with it: created (with its project) or not. */
export interface BriefDone extends BriefStep {
  project?: CreatedFromBrief | undefined;
}

/**
 * Where the confirmed call's outcome is read back when its reply is lost (issue 52's rule: a write
 * is sent once, and told): the service's project list, through the API client, and the front-end's
 * ports (its signal, the CLI's shield). The client comes from a function: a person signed in to the
 * MCP server only still creates, and a read-back that cannot get a client is "unknown".
 */
export interface BriefReadBack extends WritePorts {
  projects(): Promise<Pick<ApiClient, 'listProjects' | 'setupUrl'>>;
}

/**
 * Creating from a brief as the confirmation pair of ./confirm.ts: the dry run (`confirm: false`)
 * is the question when it matched scope; a brief that matched nothing asks nothing (and creates
 * nothing). The confirmed call must report the created project: a reply without one recorded
 * nothing, and is an error. That call is sent once (the MCP client never repeats a tools/call);
 * with `readBack`, a lost reply is read back from the project list by the project's name (the
 * service's, from the dry run, else the one given): done (the project, as found), not done, or
 * unknown with the command that checks (exit 8).
 */
export function briefWrite(
  mcp: Pick<McpTools, 'callTool'>,
  tool: string,
  input: BriefInput,
  readBack?: BriefReadBack,
): ConfirmableWrite<BriefStep, BriefDone> {
  const create = async (signal: AbortSignal | undefined): Promise<BriefDone> => {
    const step = await sendBrief(mcp, tool, input, true, signal);
    if (!step.reply.created || !step.reply.project) {
      throw new UnexpectedReplyError(`the MCP tool ${tool} did not report a created project after confirm: true; nothing was created`);
    }
    return { ...step, project: step.reply.project };
  };
  return {
    async first(signal) {
      const dry = await sendBrief(mcp, tool, input, false, signal);
      if (dry.reply.created) {
        if (!dry.reply.project) throw new UnexpectedReplyError(`the MCP tool ${tool} reported created without the project`);
        return { asks: false, result: { ...dry, project: dry.reply.project } };
      }
      return dry.reply.matched.length === 0 ? { asks: false, result: dry } : { asks: true, question: dry };
    },
    async confirmed(question, signal) {
      const name = (question.reply.name ?? input.name)?.trim();
      if (!readBack || !name) return create(signal);
      // The projects of that name before the call, so a lost reply can be read back; a list that
      // cannot be read leaves the read-back to say "unknown" when it finds one of that name.
      let client: Pick<ApiClient, 'listProjects' | 'setupUrl'> | undefined;
      let known: Set<string> | undefined;
      try {
        client = await readBack.projects();
        known = await projectsNamed(client, name, signal);
      } catch (error) {
        // No list (signed in to the MCP server only, a token without service:read): it still creates.
        if (signal?.aborted) throw error;
      }
      const back = client ? projectReadBack(client, name, known) : undefined;
      return sendOnce(
        // The MCP client does not say when a byte left: any failure that is not the service's
        // answer may have reached it, so it is read back.
        (s, onSent) => {
          onSent();
          return create(s);
        },
        {
          request: `the MCP tool ${tool} (confirm: true)`,
          what: back?.what ?? `the creation of the project "${name}"`,
          check: back?.check ?? ['rsi', 'projects', 'list'],
          told: (done) => `the project "${done.project?.name ?? name}" was created (id ${done.project?.id ?? '?'})`,
          find: async (s) => {
            if (!back) throw new UnexpectedReplyError('rsi could not read the project list');
            const project = await back.find(s);
            if (!project) return undefined;
            // The tool's reply as it would have come: the dry run's, created, with the project found.
            const raw = { ...(isRecord(question.raw) ? question.raw : {}), created: true, project };
            return { raw, reply: { ...question.reply, created: true, project }, project };
          },
        },
        { ...readBack, signal },
      );
    },
  };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The whole use case: find the tool, dry run, ask (`confirm` sees the matched scope; it may throw,
 * e.g. when nobody can be asked), then create.
 */
export async function createFromBrief(
  mcp: McpTools,
  input: BriefInput,
  ports: { confirm(dry: BriefStep): Promise<boolean>; signal?: AbortSignal; readBack?: BriefReadBack },
): Promise<FromBriefOutcome> {
  const tool = await briefTool(mcp, ports.signal);
  const outcome = await confirmThenSend(briefWrite(mcp, tool.name, input, ports.readBack), ports.confirm, ports.signal);
  if (outcome.outcome === 'declined') return { outcome: 'declined', dry: outcome.question };
  const { result } = outcome;
  if (!result.project) return { outcome: 'no_match', dry: result };
  return { outcome: 'created', dry: result, raw: result.raw, project: result.project, done: result };
}

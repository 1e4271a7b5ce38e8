/**
 * A project from a brief, an MCP-only feature: the brief goes to the service's tool first as a dry
 * run (`confirm: false`), which lists the scope it matched; only after a person agreed is the same
 * call sent with `confirm: true`, which creates the project. How the person is asked is the
 * front-end's (a terminal prompt, --yes, an MCP elicitation): the `confirm` port.
 */
import { UnexpectedReplyError } from '../errors.js';
import { BRIEF_TOOLS, BriefReply, parseReply } from './features.js';
import { callTool, type McpTools, requireTool, type ToolInfo } from './mcp-tools.js';
import { placeholder, suggest } from '../io/text.js';

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
  | { outcome: 'created'; dry: BriefStep; raw: unknown; project: CreatedFromBrief };

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
 * One call of the brief tool, as the service answered it (`confirm: true` asks it to create). The
 * MCP gate uses this step as is: it found the tool by name alone and passes on what the service
 * said, created or not.
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

/** The dry run: what the brief matches; nothing is created. */
export async function matchBrief(
  mcp: Pick<McpTools, 'callTool'>,
  tool: string,
  input: BriefInput,
  signal?: AbortSignal,
): Promise<BriefStep> {
  return sendBrief(mcp, tool, input, false, signal);
}

/** The confirmed call, which creates the project; a reply without one is the service's fault. */
export async function confirmBrief(
  mcp: Pick<McpTools, 'callTool'>,
  tool: string,
  input: BriefInput,
  signal?: AbortSignal,
): Promise<{ raw: unknown; reply: BriefReply; project: CreatedFromBrief }> {
  const { raw, reply } = await sendBrief(mcp, tool, input, true, signal);
  if (!reply.created || !reply.project) {
    throw new UnexpectedReplyError(`the MCP tool ${tool} did not report a created project after confirm: true`);
  }
  return { raw, reply, project: reply.project };
}

/**
 * The whole use case: find the tool, dry run, ask (`confirm` sees the matched scope; it may throw,
 * e.g. when nobody can be asked), then create.
 */
export async function createFromBrief(
  mcp: McpTools,
  input: BriefInput,
  ports: { confirm(dry: BriefStep): Promise<boolean>; signal?: AbortSignal },
): Promise<FromBriefOutcome> {
  const tool = await briefTool(mcp, ports.signal);
  const dry = await matchBrief(mcp, tool.name, input, ports.signal);
  if (dry.reply.matched.length === 0) return { outcome: 'no_match', dry };
  if (!(await ports.confirm(dry))) return { outcome: 'declined', dry };
  const made = await confirmBrief(mcp, tool.name, input, ports.signal);
  return { outcome: 'created', dry, raw: made.raw, project: made.project };
}

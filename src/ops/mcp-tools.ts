/**
 * Calling the service's own MCP server by feature, not by a tool name the spec never gives: find
 * the tool by the names rsi knows (features.ts), call it, and turn a tool's own failure into a
 * typed error with the contract's exit code. The session is a port (McpTools): the CLI's
 * connection, or the cached session `rsi mcp serve` keeps, or a fake in tests.
 */
import { CliError, ForbiddenError, UnexpectedReplyError } from '../errors.js';
import { suggest } from '../io/text.js';

/** What rsi reads of a listed tool. */
export interface ToolInfo {
  name: string;
  inputSchema: { properties?: Record<string, unknown> | undefined; [k: string]: unknown };
}

/** What rsi reads of a tool's result (a CallToolResult). */
export interface ToolResult {
  isError?: boolean | undefined;
  structuredContent?: unknown;
  content?: ReadonlyArray<{ type: string; text?: unknown }> | undefined;
}

/** An open session with the service's MCP server, as the use cases need it. */
export interface McpTools<T extends ToolInfo = ToolInfo> {
  listTools(signal?: AbortSignal): Promise<T[]>;
  callTool(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<ToolResult>;
}

/** Finds a tool by name in `tools/list`; the spec names none, so a server may lack it. */
export async function requireTool<T extends ToolInfo>(
  mcp: Pick<McpTools<T>, 'listTools'>,
  names: readonly string[],
  feature: string,
  signal?: AbortSignal,
): Promise<T> {
  const tools = await mcp.listTools(signal);
  const tool = tools.find((t) => names.includes(t.name));
  if (!tool) {
    throw new UnexpectedReplyError(`the service's MCP server offers no ${feature} tool (looked for ${names.join(', ')})`, {
      hint: `its tools: ${tools.map((t) => t.name).join(', ') || 'none'} (\`rsi mcp tools\`); \`rsi mcp call\` can call any of them`,
    });
  }
  return tool;
}

/** Calls a tool and returns its structured content; a tool's `isError` becomes a typed error. */
export async function callTool(
  mcp: Pick<McpTools, 'callTool'>,
  name: string,
  args: Record<string, unknown>,
  signal?: AbortSignal,
): Promise<unknown> {
  const result = await mcp.callTool(name, args, signal);
  if (result.isError) throw toolFailure(name, result);
  return result.structuredContent;
}

/** A tool that answered `isError: true`, as an error with the contract's exit code. */
export function toolFailure(name: string, result: ToolResult): CliError {
  const text = toolText(result) || 'no details';
  // The scope convention of the service's tools (docs/sandbox.md, "MCP"): a named missing scope.
  const scope = /^insufficient_scope\b.*?\b(service:read|projects:write|analyses:run)\b/.exec(text)?.[1];
  // --add-scope keeps the scopes the MCP sign-in has; the CLI's explainError spells out the union.
  if (scope)
    return new ForbiddenError(
      `the tool ${name} needs the ${scope} scope`,
      scope,
      { hint: `run ${suggest(['rsi', 'login', '--resource', 'mcp', '--add-scope', scope])}` },
      'mcp',
    );
  if (/not a member/i.test(text)) return new ForbiddenError(`the tool ${name} failed: ${text}`);
  return new ToolError(`the tool ${name} failed: ${text}`);
}

/** A tool's own failure (`isError`) with no better match: exit 1. */
export class ToolError extends CliError {
  override readonly code = 'tool_error';
}

/** The text parts of a tool result, joined. */
export function toolText(result: ToolResult): string {
  return (result.content ?? [])
    .filter((c) => c.type === 'text' && typeof c.text === 'string')
    .map((c) => c.text as string)
    .join('\n')
    .trim();
}

import type { Command } from 'commander';
import type { Context } from '../../../context.js';
import { printRows } from '../../../io/output.js';
import { tableNote } from '../../../io/replies.js';
import { toolColumns } from './views.js';
import { type CommandDeclaration, commandFor, field } from '../../declaration.js';

/** `rsi mcp tools` takes no flags of its own. */
export type ToolsOptions = Record<string, never>;

export const command: CommandDeclaration = {
  path: 'mcp tools',
  description: "list the tools of the service's MCP server (sign in first: rsi login --resource mcp)",
  examples: ['rsi mcp tools', "rsi mcp tools --json | jq '.[].name'"],
  // The document is the service's list of tools; a table's ARGUMENTS column sums up each tool's inputSchema.
  fields: { list: [field('name'), field('arguments', 'inputSchema'), field('description')] },
};

export function build(ctx: Context, runF: typeof run = run): Command {
  return commandFor(command).action(async () => runF({}, ctx));
}

export async function run(_opts: ToolsOptions, ctx: Context): Promise<void> {
  const { withMcp } = await import('../connect.js');
  const tools = await withMcp(ctx, (mcp) => mcp.listTools());
  const out = ctx.output();
  const args = (t: (typeof tools)[number]): string => {
    const required = new Set(t.inputSchema.required ?? []);
    return Object.entries(t.inputSchema.properties ?? {})
      .map(([k, v]) => `${k}${required.has(k) ? '*' : ''}:${typeLabel(v)}`)
      .join(' ');
  };
  await printRows(out, tools, toolColumns(args), (t) => t);
  if (tools.length > 0) await tableNote(out, '* required. Call one with `rsi mcp call <tool> --arg key=value`.', 'note');
}

function typeLabel(schema: unknown): string {
  const type = (schema as { type?: unknown }).type;
  return Array.isArray(type) ? type.join('|') : typeof type === 'string' ? type : 'any';
}

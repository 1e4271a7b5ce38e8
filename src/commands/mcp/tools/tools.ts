import type { Command } from 'commander';
import type { Context } from '../../../context.js';
import { printRows } from '../../../io/output.js';
import { tableNote } from '../../../io/replies.js';
import { type CommandDeclaration, columnsOf, commandFor, type Field, field } from '../../declaration.js';

/** `rsi mcp tools` takes no flags of its own. */
export type ToolsOptions = Record<string, never>;

/** A tool as the MCP server lists it: what the columns read. */
interface ToolRow {
  name: string;
  title?: string | undefined;
  description?: string | undefined;
  inputSchema: { properties?: Record<string, unknown> | undefined; required?: string[] | undefined };
}

/**
 * Each field with its column. The document is the service's list of tools; the ARGUMENTS column
 * sums up each tool's inputSchema (`name*:string limit:integer`), and csv/tsv give no column of
 * their own to a member a column shows.
 */
const FIELDS: readonly Field<ToolRow>[] = [
  field('name', { keep: true }),
  field('arguments', 'inputSchema', { value: argumentsOf }),
  field('description', { member: ['title', 'description'], value: (t) => t.title ?? t.description ?? '', flexible: true }),
];

export const command: CommandDeclaration = {
  path: 'mcp tools',
  description: "list the tools of the service's MCP server (sign in first: rsi login --resource mcp)",
  examples: ['rsi mcp tools', "rsi mcp tools --json | jq '.[].name'"],
  fields: { list: FIELDS },
  sample: { line: [] },
};

export function build(ctx: Context, runF: typeof run = run): Command {
  return commandFor(command).action(async () => runF({}, ctx));
}

export async function run(_opts: ToolsOptions, ctx: Context): Promise<void> {
  const { withMcp } = await import('../connect.js');
  const tools = await withMcp(ctx, (mcp) => mcp.listTools());
  const out = ctx.output();
  await printRows<ToolRow>(out, tools, columnsOf(FIELDS), (t) => t);
  if (tools.length > 0) await tableNote(out, '* required. Call one with `rsi mcp call <tool> --arg key=value`.', 'note');
}

/** A tool's arguments as one cell: `name*:string limit:integer` (* required). */
function argumentsOf(t: ToolRow): string {
  const required = new Set(t.inputSchema.required ?? []);
  return Object.entries(t.inputSchema.properties ?? {})
    .map(([k, v]) => `${k}${required.has(k) ? '*' : ''}:${typeLabel(v)}`)
    .join(' ');
}

function typeLabel(schema: unknown): string {
  const type = (schema as { type?: unknown }).type;
  return Array.isArray(type) ? type.join('|') : typeof type === 'string' ? type : 'any';
}

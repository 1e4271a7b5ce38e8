import type { Command } from 'commander';
import type { Context } from '../../../context.js';
import { UsageError } from '../../../errors.js';
import { given, list, type OptionSpecs, parseOptions, withOptions } from '../../shared/options.js';
import { printJson, printServiceText } from '../../../io/output.js';
import { printReply } from '../../../io/replies.js';
import { parseJsonInput, readInput } from '../../shared/flags.js';
import { type CommandDeclaration, commandFor } from '../../declaration.js';

export interface CallOptions {
  tool: string;
  args: string[];
  /** --input: a file or "-" holding a JSON object of arguments. */
  input: string | undefined;
}

/** The options, as data: flags, help and parsers (src/commands/shared/options.ts). */
const OPTIONS = {
  arg: {
    flags: '--arg <key=value>',
    description: "an argument, repeatable; converted by the tool's input schema (repeat a key for an array)",
    parse: list(),
    default: [],
  },
  input: {
    flags: '--input <path|->',
    description: 'a JSON object of arguments from a file or stdin; --arg values override it',
    parse: given(),
  },
} satisfies OptionSpecs;

export const command: CommandDeclaration = {
  path: 'mcp call',
  description: "call a tool of the service's MCP server; prints its structured result as JSON, or its text",
  examples: [
    'rsi mcp call project_scoreboard --arg project_id=<uuid> --arg limit=5',
    'echo \'{"brief": "KRAS in NSCLC"}\' | rsi mcp call create_project_from_brief --input -',
  ],
};

export function build(ctx: Context, runF: typeof run = run): Command {
  return withOptions(commandFor(command).argument('<tool>', 'tool name (see `rsi mcp tools`)'), OPTIONS)
    .addHelpText(
      'after',
      "\nArguments are checked against the tool's inputSchema before anything is sent (exit 2 names the bad one).\nA tool error (isError) exits non-zero with its text: 4 for a missing scope, 1 otherwise.",
    )
    .action(async (tool: string, flags: Record<string, unknown>) => {
      if (!tool.trim()) throw new UsageError('<tool> must not be empty');
      const { arg, input } = parseOptions(OPTIONS, flags);
      await runF({ tool: tool.trim(), args: arg, input }, ctx);
    });
}

export async function run(opts: CallOptions, ctx: Context): Promise<void> {
  const [{ withMcp }, { buildArguments, validateArguments }, { toolFailure, toolText }] = await Promise.all([
    import('../connect.js'),
    import('../../../mcp/args.js'),
    import('../../../ops/mcp-tools.js'),
  ]);
  // Read and parse --input before connecting: a bad file costs no round trip.
  let input: Record<string, unknown> | undefined;
  if (opts.input !== undefined) {
    const source = opts.input === '-' ? 'stdin' : opts.input;
    const data = parseJsonInput('--input', await readInput('--input', opts.input, ctx), source);
    if (data === null || typeof data !== 'object' || Array.isArray(data))
      throw new UsageError(`--input: ${source} must hold a JSON object of arguments`);
    input = data as Record<string, unknown>;
  }
  const result = await withMcp(ctx, async (mcp) => {
    const tools = await mcp.listTools();
    const tool = tools.find((t) => t.name === opts.tool);
    if (!tool) {
      const names = tools.map((t) => t.name);
      throw new UsageError(`the MCP server has no tool "${opts.tool}"`, {
        hint: names.length ? `its tools: ${names.join(', ')}` : 'it offers no tools',
      });
    }
    const args = buildArguments(tool as never, opts.args, input);
    await validateArguments(tool as never, args);
    return mcp.callTool(tool.name, args);
  });
  if (result.isError) {
    // The failed result is a document too, for a script that asked for JSON; people get the error.
    await printReply(ctx.output(), result, async () => undefined);
    throw toolFailure(opts.tool, result);
  }
  if (result.structuredContent !== undefined) await printJson(ctx.output(), result.structuredContent);
  else {
    await printReply(ctx.output(), result, async () => {
      const text = toolText(result);
      if (text) await printServiceText(ctx.io, text);
    });
  }
}

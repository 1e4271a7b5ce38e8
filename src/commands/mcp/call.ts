import { Command } from 'commander';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';

export interface CallOptions {
  tool: string;
  args: string[];
  /** --input: a file or "-" holding a JSON object of arguments. */
  input: string | undefined;
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export function build(ctx: Context, runF: typeof run = run): Command {
  return new Command('call')
    .description("call a tool of the service's MCP server; prints its structured result as JSON, or its text")
    .argument('<tool>', 'tool name (see `rsi mcp tools`)')
    .option('--arg <key=value>', "an argument, repeatable; converted by the tool's input schema (repeat a key for an array)", collect, [])
    .option('--input <path|->', 'a JSON object of arguments from a file or stdin; --arg values override it')
    .addHelpText(
      'after',
      '\nArguments are checked against the tool\'s inputSchema before anything is sent (exit 2 names the bad one).\nA tool error (isError) exits non-zero with its text: 4 for a missing scope, 1 otherwise.\n\nExamples:\n  rsi mcp call project_scoreboard --arg project_id=<uuid> --arg limit=5\n  echo \'{"brief": "KRAS in NSCLC"}\' | rsi mcp call create_project_from_brief --input -',
    )
    .action(async (tool: string, flags: { arg?: string[]; input?: string }) => {
      if (!tool.trim()) throw new UsageError('<tool> must not be empty');
      await runF({ tool: tool.trim(), args: flags.arg ?? [], input: flags.input }, ctx);
    });
}

/** The body is loaded only when the command runs, so `rsi --help` and the other commands do not parse it. */
export async function run(opts: CallOptions, ctx: Context): Promise<void> {
  return (await import('./call-run.js')).run(opts, ctx);
}

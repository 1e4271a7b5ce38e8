import { Command } from 'commander';
import type { Context } from '../../context.js';

export function build(ctx: Context, runF: typeof run = run): Command {
  return new Command('tools')
    .description("list the tools of the service's MCP server (sign in first: rsi login --resource mcp)")
    .addHelpText('after', "\nExamples:\n  rsi mcp tools\n  rsi mcp tools --json | jq '.[].name'")
    .action(async () => runF({}, ctx));
}

/** The body is loaded only when the command runs, so `rsi --help` and the other commands do not parse it. */
export async function run(opts: Record<string, never>, ctx: Context): Promise<void> {
  return (await import('./tools-run.js')).run(opts, ctx);
}

import { Command } from 'commander';
import type { Context } from '../../context.js';

export const CONFIG_CLIENTS = ['claude-desktop', 'claude-code', 'cursor', 'vscode'] as const;
export type ConfigClient = (typeof CONFIG_CLIENTS)[number];

export interface ServeOptions {
  allowWrite: boolean;
  printConfig: ConfigClient | undefined;
}

export function build(ctx: Context, runF: typeof run = run): Command {
  return new Command('serve')
    .description("run an MCP server on stdio that gives an AI assistant rsi's read commands as tools (for the assistant to start)")
    .option(
      '--allow-write',
      'also offer the write tools your sign-in has scopes for; a write the service asks about runs only after a person says yes',
    )
    .option('--print-config <client>', `print a configuration snippet for ${CONFIG_CLIENTS.join(', ')} and exit`)
    .addHelpText(
      'after',
      '\nThe server uses your `rsi login` (or RSI_TOKEN) and never opens a browser: sign in first in a terminal.\nstdout carries only JSON-RPC; messages go to stderr.\n\nExamples:\n  rsi mcp serve --print-config claude-desktop\n  rsi mcp serve --allow-write --print-config vscode > .vscode/mcp.json',
    )
    .action(async (flags: { allowWrite?: boolean; printConfig?: string }) => {
      const { enumFlag } = await import('../shared/flags.js');
      await runF(
        { allowWrite: flags.allowWrite === true, printConfig: await enumFlag('--print-config', flags.printConfig, CONFIG_CLIENTS) },
        ctx,
      );
    });
}

/** The body is loaded only when the command runs, so `rsi --help` and the other commands do not parse it. */
export async function run(opts: ServeOptions, ctx: Context): Promise<void> {
  return (await import('./serve-run.js')).run(opts, ctx);
}

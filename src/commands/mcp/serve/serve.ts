import type { Command } from 'commander';
import type { Context } from '../../../context.js';
import { UsageError } from '../../../errors.js';
import { printVerbatim } from '../../../io/output.js';
import { shellCommand } from '../../../io/text.js';
import { on, oneOf, type OptionSpecs, type OptionsOf, parseOptions, withOptions } from '../../shared/options.js';
import { carryCommand, carryGlobals, inForceBeyondShell } from '../../shared/hints.js';
import { type CommandDeclaration, commandFor } from '../../declaration.js';

export const CONFIG_CLIENTS = ['claude-desktop', 'claude-code', 'cursor', 'vscode'] as const;
export type ConfigClient = (typeof CONFIG_CLIENTS)[number];

/** The options, as data: flags, help and parsers (src/commands/shared/options.ts). */
const OPTIONS = {
  allowWrite: {
    flags: '--allow-write',
    description: 'also offer the write tools your sign-in has scopes for; a person confirms every write before anything is sent',
    parse: on(),
  },
  // With --allow-write: a client without elicitation may confirm writes through the assistant.
  confirmInChat: {
    flags: '--confirm-in-chat',
    description:
      'with --allow-write: in a client that cannot ask you itself (no elicitation), let the assistant ask you in the chat and confirm by repeating the call; without it such a client cannot write',
    parse: on(),
    rules: [{ needs: 'allowWrite' }],
  },
  printConfig: {
    flags: '--print-config <client>',
    description: `print a configuration snippet for ${CONFIG_CLIENTS.join(', ')} and exit`,
    parse: oneOf(CONFIG_CLIENTS),
  },
} satisfies OptionSpecs;

export type ServeOptions = OptionsOf<typeof OPTIONS>;

export const command: CommandDeclaration = {
  path: 'mcp serve',
  // A server runs until it is stopped: RSI_TIMEOUT, exported for scripts, must not end it.
  ownTimeout: true,
  description: "run an MCP server on stdio that gives an AI assistant rsi's read commands as tools (for the assistant to start)",
  examples: ['rsi mcp serve --print-config claude-desktop', 'rsi mcp serve --allow-write --print-config vscode > .vscode/mcp.json'],
};

export function build(ctx: Context, runF: typeof run = run): Command {
  return withOptions(commandFor(command), OPTIONS)
    .addHelpText(
      'after',
      '\nThe server uses your `rsi login` (or RSI_TOKEN) and never opens a browser: sign in first in a terminal.\nstdout carries only JSON-RPC; messages go to stderr.\n\nWrites: a person confirms each one, shown exactly what will be sent, before anything is. A client with\nelicitation asks you itself (a form, or a page rsi serves on 127.0.0.1); one without it is not offered the write\ntools (a call is refused with the rsi command to run yourself), unless you started the server with --confirm-in-chat.',
    )
    .action(async (flags: Record<string, unknown>) => {
      await runF(parseOptions(OPTIONS, flags), ctx);
    });
}

export async function run(opts: ServeOptions, ctx: Context): Promise<void> {
  if (opts.printConfig) {
    await printConfig(opts, ctx);
    return;
  }
  const globals = ctx.globals();
  if (globals.json || ctx.io.stdoutIsTTY) {
    if (globals.json) throw new UsageError('--json does not apply to `rsi mcp serve` (stdout carries JSON-RPC)');
    ctx.io.stderr.write(
      'rsi mcp serve speaks MCP (JSON-RPC) on stdin/stdout: an assistant starts it, not a person.\n' +
        'To set one up: `rsi mcp serve --print-config claude-desktop` (or claude-code, cursor, vscode). Waiting for a client on stdin… (Ctrl-C to stop)\n',
    );
  }
  const [{ createServer, serveStdio }, parts] = await Promise.all([
    import('../../../mcp/server.js'),
    ctx.mcpServer({ allowWrite: opts.allowWrite, confirmInChat: opts.confirmInChat, carry: carryFor(ctx) }),
  ]);
  const server = await createServer(parts.deps);
  try {
    await serveStdio(server, ctx.io, ctx.signal);
  } finally {
    await parts.close();
  }
}

/**
 * How a command the person is told to run keeps this server's profile and service: from the flags
 * and the environment the assistant started it with, which the person's terminal does not have.
 */
function carryFor(ctx: Context): { hint(text: string): string; command(words: readonly string[]): string[] } | undefined {
  const where = inForceBeyondShell(ctx);
  if (!where) return undefined;
  return { hint: (text) => carryGlobals(text, where), command: (words) => carryCommand(words, where) };
}

async function printConfig(opts: ServeOptions, ctx: Context): Promise<void> {
  const globals = ctx.globals();
  // The server runs as the assistant's child, without this shell: pin what was chosen here.
  const args = ['mcp', 'serve', ...(opts.allowWrite ? ['--allow-write'] : []), ...(opts.confirmInChat ? ['--confirm-in-chat'] : [])];
  if (globals.profile !== 'default') args.unshift('--profile', globals.profile);
  if (globals.baseUrl) args.unshift('--base-url', globals.baseUrl);
  const server = { command: 'rsi', args };
  const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;
  const where: Record<ConfigClient, string> = {
    'claude-desktop': 'Add this to claude_desktop_config.json (Settings → Developer → Edit Config), then restart Claude Desktop.',
    'claude-code': 'Run this in your shell (add --scope user to have it in every project).',
    cursor: 'Put this in .cursor/mcp.json in your project (or ~/.cursor/mcp.json for all projects).',
    vscode: 'Put this in .vscode/mcp.json in your workspace.',
  };
  let text: string;
  switch (opts.printConfig!) {
    case 'claude-code':
      text = `${shellCommand(['claude', 'mcp', 'add', 'rsi', '--', 'rsi', ...args])}\n`;
      break;
    case 'vscode':
      text = json({ servers: { rsi: { type: 'stdio', ...server } } });
      break;
    default:
      text = json({ mcpServers: { rsi: server } });
  }
  await printVerbatim(ctx.io, text);
  ctx.io.stderr.write(
    `${where[opts.printConfig!]}\nSign in first with \`rsi login\` in a terminal; if the assistant cannot find \`rsi\`, use its absolute path (\`which rsi\`).\n`,
  );
}

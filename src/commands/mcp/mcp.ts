/** `rsi mcp …`: the group's own declaration and its subcommands, in help order. */
import type { GroupModule } from '../declaration.js';
import * as tools from './tools/tools.js';
import * as call from './call/call.js';
import * as serve from './serve/serve.js';

export const group: GroupModule = {
  command: {
    path: 'mcp',
    description: "the service's MCP server from the terminal",
    examples: ['rsi mcp tools', 'rsi mcp serve --print-config claude-desktop'],
  },
  subcommands: [tools, call, serve],
};

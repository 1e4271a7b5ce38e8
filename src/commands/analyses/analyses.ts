/** `rsi analyses …`: the group's own declaration and its subcommands, in help order. */
import type { GroupModule } from '../declaration.js';
import * as run from './run/run.js';

export const group: GroupModule = {
  command: {
    path: 'analyses',
    description: 'start scoring analyses',
    examples: ['rsi analyses run "My first project" --top 5 --type target --wait'],
  },
  subcommands: [run],
};

/** `rsi projects …`: the group's own declaration and its subcommands, in help order. */
import type { GroupModule } from '../declaration.js';
import * as list from './list/list.js';
import * as create from './create/create.js';

export const group: GroupModule = {
  command: {
    path: 'projects',
    description: 'list and create projects',
    examples: ['rsi projects list', 'rsi projects create --name "My first project" --brief "EGFR in NSCLC"'],
  },
  subcommands: [list, create],
};

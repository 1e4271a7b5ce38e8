/** `rsi keywords …`: the group's own declaration and its subcommands, in help order. */
import type { GroupModule } from '../declaration.js';
import * as search from './search/search.js';
import * as get from './get/get.js';
import * as relations from './relations/relations.js';

export const group: GroupModule = {
  command: {
    path: 'keywords',
    description: 'search keywords, read cards and relations',
    examples: ['rsi keywords search egfr --limit 5', 'rsi keywords get EGFR', 'rsi keywords relations EGFR --relation indications'],
  },
  subcommands: [search, get, relations],
};

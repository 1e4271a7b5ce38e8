/** `rsi auth …`: the group's own declaration and its subcommands, in help order. */
import type { GroupModule } from '../declaration.js';
import * as status from './status/status.js';
import * as token from './token/token.js';
import * as switchProfile from './switch/switch.js';
import * as adopt from './adopt/adopt.js';

export const group: GroupModule = {
  command: {
    path: 'auth',
    description: 'show and use the stored sign-in',
    examples: ['rsi auth status', 'rsi auth switch work', 'curl -H "Authorization: Bearer $(rsi auth token)" "$BASE/api/v1/projects"'],
  },
  subcommands: [status, token, switchProfile, adopt],
};

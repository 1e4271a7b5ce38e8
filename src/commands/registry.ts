/**
 * Every command of rsi, in the order help lists them: each an import of its folder's declaration
 * (src/commands/<group>/<command>/), nothing else. `src/program.ts` builds the commander tree from
 * this list, and `--fields`, examples, man pages, completions and `rsi help reference` follow from
 * the declarations; test/unit/architecture.test.ts fails on a command file missing from it.
 */
import type { CommandDeclaration, RegistryEntry } from './declaration.js';
import { isGroup } from './declaration.js';
import * as login from './login/login.js';
import * as logout from './logout/logout.js';
import { group as auth } from './auth/auth.js';
import * as config from './config/config.js';
import * as doctor from './doctor/doctor.js';
import { group as keywords } from './keywords/keywords.js';
import { group as projects } from './projects/projects.js';
import * as status from './status/status.js';
import * as signals from './signals/signals.js';
import * as opportunities from './opportunities/opportunities.js';
import * as scoreboard from './scoreboard/scoreboard.js';
import { group as analyses } from './analyses/analyses.js';
import * as api from './api/api.js';
import * as sandbox from './sandbox/sandbox.js';
import * as completion from './completion/completion.js';
import * as help from './help/help.js';
import { group as mcp } from './mcp/mcp.js';

/** rsi itself: what `rsi --help` shows under Examples. */
export const ROOT: CommandDeclaration = {
  path: '',
  description: 'Command-line client for the Research Intelligence Service',
  examples: [
    'rsi login --base-url https://research.example.com',
    'rsi projects list',
    'rsi status "My first project" --watch',
    'rsi help analyses run',
  ],
};

export const REGISTRY: readonly RegistryEntry[] = [
  login,
  logout,
  auth,
  config,
  doctor,
  keywords,
  projects,
  status,
  signals,
  opportunities,
  scoreboard,
  analyses,
  api,
  sandbox,
  completion,
  { command: completion.valuesCommand, build: completion.buildValues },
  help,
  mcp,
];

/** Every declaration by its path (`keywords search`), groups and the subcommands modules build themselves included. */
export const DECLARATIONS: ReadonlyMap<string, CommandDeclaration> = new Map(
  [
    ROOT,
    ...REGISTRY.flatMap((e) => (isGroup(e) ? [e.command, ...e.subcommands.map((s) => s.command)] : [e.command, ...(e.inner ?? [])])),
  ].map((d) => [d.path, d] as const),
);

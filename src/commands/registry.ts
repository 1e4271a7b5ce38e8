/**
 * Every command of rsi, in the order help lists them: its word and the loader of its folder's
 * module (src/commands/<group>/<command>/), nothing else. A run loads only the command its line
 * names (`loadRegistry(word)`), so the bundle holds each command in a chunk of its own; help,
 * completion, man pages and `rsi help reference` load them all. What a command is lives in its
 * declaration alone: the word here is its path, which test/unit/registry.test.ts holds to the
 * declaration each loader returns (docs/architecture.md, "The command registry");
 * test/unit/architecture.test.ts fails on a command file the loaders do not reach.
 */
import type { CommandDeclaration, RegistryEntry } from './declaration.js';
import { isGroup } from './declaration.js';
import { ROOT } from './help/root-help.js';

/** A top-level command: its word (its declaration's path) and how to load its module. */
export interface IndexEntry {
  readonly name: string;
  readonly load: () => Promise<RegistryEntry>;
}

// Each loader is a literal `import()`, so esbuild makes each command a chunk of its own.
export const INDEX: readonly IndexEntry[] = [
  { name: 'login', load: () => import('./login/login.js') },
  { name: 'logout', load: () => import('./logout/logout.js') },
  { name: 'auth', load: async () => (await import('./auth/auth.js')).group },
  { name: 'config', load: () => import('./config/config.js') },
  { name: 'doctor', load: () => import('./doctor/doctor.js') },
  { name: 'keywords', load: async () => (await import('./keywords/keywords.js')).group },
  { name: 'projects', load: async () => (await import('./projects/projects.js')).group },
  { name: 'status', load: () => import('./status/status.js') },
  { name: 'signals', load: () => import('./signals/signals.js') },
  { name: 'opportunities', load: () => import('./opportunities/opportunities.js') },
  { name: 'scoreboard', load: () => import('./scoreboard/scoreboard.js') },
  { name: 'analyses', load: async () => (await import('./analyses/analyses.js')).group },
  { name: 'api', load: () => import('./api/api.js') },
  { name: 'sandbox', load: () => import('./sandbox/sandbox.js') },
  { name: 'completion', load: () => import('./completion/completion.js') },
  {
    name: '__complete',
    load: async () => {
      const completion = await import('./completion/completion.js');
      return { command: completion.valuesCommand, build: completion.buildValues };
    },
  },
  { name: 'help', load: () => import('./help/help.js') },
  { name: 'mcp', load: async () => (await import('./mcp/mcp.js')).group },
];

/** The registry entry of the command `word` names, or every entry in help order when there is none. */
export async function loadRegistry(word?: string): Promise<readonly RegistryEntry[]> {
  const wanted = word === undefined ? INDEX : INDEX.filter((e) => e.name === word);
  return Promise.all(wanted.map((e) => e.load()));
}

/** The declarations of `entries` by path (`keywords search`), rsi's own, the groups' and the subcommands' their modules build themselves included. */
export function declarationsOf(entries: readonly RegistryEntry[]): ReadonlyMap<string, CommandDeclaration> {
  return new Map(
    [
      ROOT,
      ...entries.flatMap((e) => (isGroup(e) ? [e.command, ...e.subcommands.map((s) => s.command)] : [e.command, ...(e.inner ?? [])])),
    ].map((d) => [d.path, d] as const),
  );
}

/** Every declaration by its path: what help, man pages, completion and the tests that walk every command read. */
export async function loadDeclarations(): Promise<ReadonlyMap<string, CommandDeclaration>> {
  return declarationsOf(await loadRegistry());
}

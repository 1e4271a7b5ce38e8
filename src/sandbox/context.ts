/**
 * What every module of the sandbox shares: the run's context and its counters. Its own module,
 * importing neither server.ts nor the route modules, so that the modules server.ts wires together
 * never import server.ts back.
 */
import type { SandboxClock } from './clock.js';
import type { Fault } from './faults.js';

export interface SandboxStats {
  requests: number;
  apiRequests: number;
  byRoute: Record<string, number>;
  registrations: number;
  tokens: { issuedByCode: number; refreshed: number; revoked: number };
  runs: number;
}

export function emptyStats(): SandboxStats {
  return { requests: 0, apiRequests: 0, byRoute: {}, registrations: 0, tokens: { issuedByCode: 0, refreshed: 0, revoked: 0 }, runs: 0 };
}

export interface SandboxContext {
  base: string;
  apiResource: string;
  mcpResource: string;
  clock: SandboxClock;
  faults: ReadonlySet<Fault>;
  stats: SandboxStats;
  tokenTtlSeconds: number;
  autoApprove: boolean;
  /** A new id for a created project or run: random, or with `--seed` derived from the seed and a counter. */
  newId: () => string;
}

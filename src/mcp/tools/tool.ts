/**
 * What one tool of `rsi mcp serve` is: a definition in its own file under src/mcp/tools/, which
 * server.ts registers from its table. The arguments' type is inferred from the input schema, so it
 * is written once; `run` returns the service's value (or a Reply with a note, a question, links)
 * and throws rsi's errors: server.ts turns both into a fenced, bounded result.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type * as z from 'zod';
import type { ApiClient } from '../../client/client.js';
import type { McpTools } from '../../ops/mcp-tools.js';
import type { Extra } from '../ask.js';
import type { Gate } from '../gate.js';
import type { ServeDeps, SignIns } from '../deps.js';
import type { ResourceLink } from '../results.js';

// Every tool reads the service, whose text other people wrote: openWorldHint is true throughout.
export const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true } as const;
export const WRITE = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true } as const;

/** What a tool's `run` may use besides its arguments: one per server, built in server.ts. */
export interface Kit {
  deps: ServeDeps;
  server: McpServer;
  /** The API client (built on first use; see ServeDeps.client). */
  api(): Promise<ApiClient>;
  /** The confirmation rule around one write (gate.ts). */
  gate: Gate;
  /** Throws, before anything is sent, when no person can confirm a write here (gate.ts); `command` is what they can run instead. */
  personCanConfirm(name: string, command: readonly string[]): void;
  /** A link to a service page, when the URL is a safe one on the service's origin. */
  page(raw: string | undefined, origin: string | undefined, link: Omit<ResourceLink, 'uri'>): ResourceLink[];
  /** The project's page (the setup_url's page without `setup=1`) on `origin`. */
  projectPage(origin: string | undefined, id: string): ResourceLink[];
  /** The service base URL of the sign-ins as last read. */
  origin(): string | undefined;
  /** The service's own MCP server, for the MCP-only use cases of src/ops (scoreboard, from-brief). */
  mcp(): McpTools;
}

export interface ToolDef<Shape extends z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  inputSchema: Shape;
  outputSchema: z.ZodObject;
  annotations: ToolAnnotations;
  /** The arguments that ask for less, named in a truncation note. */
  narrowWith: readonly string[];
  /** Offered only with --allow-write. */
  writes?: true;
  /** Offered only when rsi may reach the service's own MCP server (ServeDeps.remote). */
  remote?: true;
  /** Listed only while the sign-ins allow it (the list follows them; listChanged). Omitted: always listed. */
  listedWhen?: (now: SignIns) => boolean;
  run(args: z.infer<z.ZodObject<Shape>>, x: Extra, kit: Kit): Promise<unknown>;
}

/**
 * Any tool, as the table holds them: `run` is a method, so its argument type may be narrower than
 * the table's (each tool is checked against its own schema where it is defined).
 */
export type AnyTool = ToolDef<z.ZodRawShape>;

/** A tool definition, its arguments' type inferred from `inputSchema`. */
export const defineTool = <Shape extends z.ZodRawShape>(def: ToolDef<Shape>): ToolDef<Shape> => def;

/**
 * Whether there is a sign-in and it holds `scope` (unknown scopes, as with RSI_TOKEN: the service
 * decides). No sign-in holds nothing: a write tool is not listed while every call would fail.
 */
export const holds = (signIn: { scopes?: readonly string[] | undefined } | undefined, scope: string): boolean =>
  signIn !== undefined && (signIn.scopes === undefined || signIn.scopes.includes(scope));

/** What `rsi mcp serve` (src/commands/mcp/serve/serve.ts) hands the server (server.ts) and, through the Kit, its tools. */
import type { ApiClient } from '../client/client.js';
import type { McpConnection } from './client.js';

/**
 * The sign-ins as they are now (read again while serving: a `rsi login` or `rsi logout` in a
 * terminal changes the tool list, and the client is told).
 */
export interface SignIns {
  /** The service base URL of the profile (pages rsi links to must be on it). */
  baseUrl?: string | undefined;
  /** The API sign-in; undefined when there is none. Its scopes are undefined when unknown (RSI_TOKEN): the service decides. */
  api?: { scopes?: readonly string[] | undefined } | undefined;
  /** The MCP sign-in; undefined when there is none. Its scopes are undefined when unknown (RSI_MCP_TOKEN). */
  mcp?: { scopes?: readonly string[] | undefined } | undefined;
}

export interface ServeDeps {
  version: string;
  allowWrite: boolean;
  /**
   * Without form elicitation, a write may be confirmed in the chat (the question goes back to the
   * assistant, an identical repeat sends it): the person who starts the server allows it with
   * --confirm-in-chat. Otherwise such a client's writes are refused (gate.ts).
   */
  confirmInChat?: boolean;
  /** The API client, built on first use (and again after a failure: a later `rsi login` is picked up). */
  client(): Promise<ApiClient>;
  /** Reads the sign-ins now; the tool list follows them (see SignIns). */
  signIns(): Promise<SignIns>;
  /** The service's own MCP server, used when the user is signed in for it (SignIns.mcp). */
  remote?:
    | {
        /** An open session (kept by the caller, reopened after a failure). */
        connection(): Promise<McpConnection>;
        /** Drops a session that failed, so the next call opens a new one. */
        reset(): void;
      }
    | undefined;
  /** The session's signal (SIGINT, SIGTERM): every call's own signal is combined with it. */
  signal?: AbortSignal | undefined;
  /** A service page rsi may link to: its href when `raw` is a safe URL on `trustedOrigin` (io/browser's rule). */
  checkUrl?: ((raw: string, trustedOrigin: string) => string | undefined) | undefined;
  /** How often the sign-ins are read again while serving (SIGN_IN_POLL_MS in sign-ins.ts). */
  pollMs?: number;
  /** Bytes one copy of a result may take (RESULT_BUDGET_BYTES). */
  budgetBytes?: number;
  /**
   * A command a person is told to run (a hint's `rsi …`, the command a refused write prints) with
   * the --profile and --base-url this server was started with, from the commands' one rule
   * (src/commands/shared/hints.ts); omitted, commands are shown as written.
   */
  carry?:
    | {
        /** Every `rsi …` in backticks in a hint. */
        hint(text: string): string;
        /** A command given as words (unquoted). */
        command(words: readonly string[]): string[];
      }
    | undefined;
  /** Diagnostics for stderr (never stdout). */
  log?: (line: string) => void;
  /** Every token the run holds replaced in a failure's text (src/io/secrets.ts), whoever put it there. */
  scrub?: ((text: string) => string) | undefined;
}

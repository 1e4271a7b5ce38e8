import type { Io, Clock } from '../io/io.js';
import type { Http } from '../http/types.js';
import type { ApiClient } from '../client/client.js';

export type OutputFormat = 'table' | 'tsv' | 'csv' | 'json' | 'ndjson';

/** Options every command understands, resolved from flags and environment by `main.ts`. */
export interface GlobalOptions {
  profile: string;
  /** From --base-url or RSI_BASE_URL; undefined means "the profile's saved one". */
  baseUrl: string | undefined;
  /** --json was given (one JSON document on stdout). */
  json: boolean;
  /** The explicit --format, else derived: json if --json, table on a TTY, tsv otherwise. */
  format: OutputFormat;
  debug: boolean;
  /** Per-request timeout in milliseconds. */
  timeoutMs: number;
}

/** Where the access token in use comes from. */
export type TokenSource = 'env' | 'keychain' | 'file';

/** An authenticated connection to one service, built lazily by `src/auth/session.ts`. */
export interface Session {
  profile: string;
  baseUrl: string;
  tokenSource: TokenSource;
  http: Http;
}

/**
 * What the composition root hands every command. Heavy parts (http, auth, client) are built only
 * when a command asks for them, so `--help` and `--version` stay fast.
 */
export interface Context {
  io: Io;
  env: Readonly<Record<string, string | undefined>>;
  clock: Clock;
  /** Aborted on SIGINT/SIGTERM; long waits pass it on. */
  signal: AbortSignal;
  version: string;
  globals(): GlobalOptions;
  session(): Promise<Session>;
  client(): Promise<ApiClient>;
}

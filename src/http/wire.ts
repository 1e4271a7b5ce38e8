/**
 * The shapes of one request and its reply on the network path (src/http/network.ts), and the
 * body caps callers pass.
 */
import type { Readable } from 'node:stream';
import type { Env } from '../io/io.js';
import type { Secrets } from '../io/secrets.js';

/** OAuth, discovery and probe replies are small documents: a megabyte is generous. */
export const OAUTH_MAX_BYTES = 1024 * 1024;
/** API replies: the largest page the spec allows is far below this. */
export const API_MAX_BYTES = 64 * 1024 * 1024;

export interface NetworkOptions {
  /** The process environment, for the proxy variables (read nowhere else). */
  env: Env;
  /** The whole-request deadline of one attempt, in milliseconds (`--http-timeout`). */
  timeoutMs: number;
  /** Where the `--debug` trace goes; undefined means no trace and no redaction work. */
  trace?: { write(chunk: string): unknown } | undefined;
  /** The run's secrets (src/io/secrets.ts): what the trace learns, and what rsi's messages never repeat. */
  secrets?: Secrets | undefined;
}

export interface WireRequest {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body?: string | undefined;
  /** The caller's signal (Ctrl-C); the deadline is added here. */
  signal?: AbortSignal | undefined;
  /** Cap on the decompressed body. */
  maxBytes: number;
  /**
   * Replies this picks (an MCP event stream) are handed over as they arrive instead of read
   * whole: the server may wait for an answer to a request it sent on that very stream. The
   * deadline and the byte cap still run to the stream's last byte. Never for an encoded body.
   */
  streamIf?: ((status: number, headers: Record<string, string>) => boolean) | undefined;
  /** Hint when a request that is not idempotent was cut off after it may have been processed. */
  hintIfSent?: string | undefined;
  /**
   * Told once, when a byte of the request may have reached the server (the connection is open and
   * the request handed to it): from then on a failure leaves a write's outcome unknown.
   */
  onSent?: (() => void) | undefined;
}

/** The fetch subset oauth4webapi and the probes use; never follows redirects. */
export interface FetchInit {
  method?: string | undefined;
  headers?: Record<string, string> | Headers | undefined;
  body?: string | URLSearchParams | null | undefined;
  redirect?: string | undefined;
  signal?: AbortSignal | null | undefined;
  /** Cap on the decompressed body; default OAUTH_MAX_BYTES (MCP replies use API_MAX_BYTES). */
  maxBytes?: number | undefined;
  /** See WireRequest.streamIf. */
  streamIf?: WireRequest['streamIf'];
}

/** A reply's status line and headers, its body still to read. */
export interface WireHead {
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** set-cookie and other repeated headers as sent, for building a fetch Response. */
  rawHeaders: [string, string][];
  body: Readable;
}

/** A reply read whole: the head, and the body as received, decompressed. */
export type WireResponse = Omit<WireHead, 'body'> & {
  body: Buffer;
  /** The body as it arrives, when the request's `streamIf` picked this reply (`body` is then empty). */
  stream?: Readable;
};

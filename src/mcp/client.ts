/**
 * rsi's client for the service's MCP server (`<base>/mcp`): the official SDK's Client over
 * Streamable HTTP, with rsi's token (auth-provider.ts) and rsi's network path (fetch.ts). Every
 * failure becomes one of rsi's typed errors, so exit codes follow the contract: JSON-RPC errors,
 * HTTP statuses of the transport and `isError` tool results alike.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import {
  CliError,
  ForbiddenError,
  InterruptedError,
  NotFoundError,
  NotSignedInError,
  ServiceUnavailableError,
  UnexpectedReplyError,
  UsageError,
} from '../errors.js';
import { capText } from '../io/text.js';
import type { Network } from '../http/network.js';
import type { AuthProvider } from '../http/types.js';
import { tokenOnlyProvider } from './auth-provider.js';
import { callSignal, createMcpFetch } from './fetch.js';
import { capRetry, type LostWhy, watchEventStream } from './streams.js';

export interface McpConnectOptions {
  /** `<base>/mcp`. */
  url: string;
  auth: AuthProvider;
  /** The process's one network path (proxy, CA, deadline, trace). */
  network: Network;
  userAgent: string;
  version: string;
  signal: AbortSignal;
  notSignedInHint: string;
}

export interface McpConnection {
  /** The server's name and version from `initialize`. */
  server: { name: string; version: string } | undefined;
  /** `signal`: this call's own (a cancelled tool call); the session's is added to it. */
  listTools(signal?: AbortSignal): Promise<Tool[]>;
  /** `signal`: this call's own; aborting it cancels the call and its HTTP request. */
  callTool(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<CallToolResult>;
  /** Ends the session (DELETE when the server gave one) and releases the pool. Safe to call twice. */
  close(): Promise<void>;
}

export async function connectMcp(opts: McpConnectOptions): Promise<McpConnection> {
  const [{ Client }, { StreamableHTTPClientTransport }] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
  ]);
  const net = createMcpFetch({ userAgent: opts.userAgent, auth: opts.auth, notSignedInHint: opts.notSignedInHint }, opts.network);
  // The SDK adds an abort listener to a request's signal and never removes it, and sends every
  // POST with its transport-wide signal. So each call gets a signal of its own (following the
  // session's and the caller's while it is in flight: guard below), and the fetch below finds it
  // through callSignal to abort that call's HTTP request with it.
  // A stream that could not be resumed fails the calls in flight at once, with one line.
  const lost = new AbortController();
  let inFlight = 0;
  let resumptions = 0;
  const streamLost = (why: string): void => {
    if (inFlight === 0 || lost.signal.aborted) return;
    lost.abort(
      new ServiceUnavailableError(`the MCP server at ${opts.url} closed its event stream before answering, and ${why}`, undefined, {
        hint: 'the server may have restarted or dropped the session; try again',
      }),
    );
  };
  // The request rsi initialized with: never cancelled (the spec says so), whatever ends it.
  let initializeId: string | number | undefined;
  // Tools that may be called twice without harm (readOnlyHint or idempotentHint), from tools/list.
  const safeTools = new Set<string>();
  const fetch: typeof net.fetch = async (url, init = {}) => {
    const message = jsonRpc(init.body);
    if (message?.method === 'initialize' && message.id !== undefined) initializeId = message.id;
    if (message?.method === 'notifications/cancelled' && initializeId !== undefined && message.requestId === initializeId) {
      return new Response(null, { status: 202 });
    }
    // A GET with Last-Event-ID is the SDK resuming a stream the server closed early.
    const resuming = init.method === 'GET' && new Headers(init.headers).has('last-event-id');
    if (resuming && ++resumptions > RESUME_ATTEMPTS) {
      streamLost(`it was resumed ${RESUME_ATTEMPTS} times without an answer`);
      throw lost.signal.reason;
    }
    const res = await net.fetch(url, init);
    if (resuming && !res.ok) streamLost(`resuming it was refused (${res.status})`);
    if (!res.ok || !/^text\/event-stream\b/i.test(res.headers.get('content-type') ?? '')) return res;
    const call = callState.getStore();
    if (message?.id === undefined || message.method === undefined || !call) return capRetry(res);
    const signal = callSignal.getStore();
    // An initialize that opened a session is not sent again: the SDK keeps the first session's id,
    // and a second answer would open another.
    const session = message.method === 'initialize' && res.headers.has('mcp-session-id');
    const safe = (SAFE_METHODS.has(message.method) && !session) || (message.method === 'tools/call' && safeTools.has(String(message.tool)));
    return watchEventStream(res, {
      id: message.id,
      signal: AbortSignal.any([signal, init.signal].filter((x): x is AbortSignal => x instanceof AbortSignal)),
      again: safe ? () => (signal ? callSignal.run(signal, () => net.fetch(url, init)) : net.fetch(url, init)) : undefined,
      resent: () => void (call.resent = true),
      lost: (why) => call.fail(streamEnded(opts.url, call.what, why, session ? 'session' : 'tool')),
    });
  };
  const transport: StreamableHTTPClientTransport = new StreamableHTTPClientTransport(new URL(opts.url), {
    fetch,
    authProvider: tokenOnlyProvider(opts.auth, opts.notSignedInHint, opts.signal),
    // A server that closes a call's event stream before the answer (after an event with an id) is
    // asked again with Last-Event-ID, after its own `retry:` hint or a second, at most
    // RESUME_ATTEMPTS times; then the call fails at once (below), never waiting out its timeout.
    reconnectionOptions: {
      maxRetries: RESUME_ATTEMPTS,
      initialReconnectionDelay: 1000,
      maxReconnectionDelay: 2000,
      reconnectionDelayGrowFactor: 2,
    },
  });
  const client: Client = new Client({ name: 'rsi', version: opts.version });
  // Other background stream errors (a GET the server does not offer, one failed resumption) are
  // not a failure; running out of resumptions is.
  client.onerror = (error) => {
    if (/^Maximum reconnection attempts/.test(error.message)) streamLost(`resuming it failed ${RESUME_ATTEMPTS} times`);
  };
  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    opts.signal.removeEventListener('abort', onAbort);
    if (transport.sessionId) await transport.terminateSession().catch(() => undefined);
    await client.close().catch(() => undefined);
    await net.close();
  };
  // Ctrl-C closes the session at once; the pending request then rejects as interrupted.
  const onAbort = (): void => void close();
  opts.signal.addEventListener('abort', onAbort, { once: true });
  const guard = async <T>(
    what: string,
    fn: (request: { signal: AbortSignal; timeout: number }) => Promise<T>,
    own?: AbortSignal,
  ): Promise<T> => {
    // The call's own signal follows the others only while the call is in flight: the SDK never
    // removes its abort listener from a request's signal, so a signal that aborted later (Ctrl-C,
    // another call's lost stream) would send notifications/cancelled for requests long answered,
    // initialize among them, which the spec says is never cancelled.
    // (AbortSignal.any adds no listener to the session's signal; the one listener is on its own.)
    const call = new AbortController();
    const signal = call.signal;
    const combined = AbortSignal.any(own ? [opts.signal, own, lost.signal] : [opts.signal, lost.signal]);
    const follow = (): void => call.abort(combined.reason);
    combined.addEventListener('abort', follow, { once: true });
    if (combined.aborted) follow();
    const state: CallState = { what, resent: false, fail: (reason) => call.abort(reason) };
    inFlight++;
    try {
      return await callState.run(state, () => callSignal.run(signal, () => fn({ signal, timeout: opts.network.timeoutMs })));
    } catch (error) {
      // Sent again after its stream ended early, and the deadline came: the cause is the stream, not the wait.
      if (state.resent && !signal.aborted && isTimeout(error)) {
        throw streamEnded(opts.url, what, { kind: 'ended', again: true, deadlineMs: opts.network.timeoutMs });
      }
      throw mcpFailure(error, what, opts.url, signal);
    } finally {
      inFlight--;
      combined.removeEventListener('abort', follow);
    }
  };
  try {
    await guard('initialize', (request) => client.connect(transport, request));
  } catch (error) {
    await close();
    throw error;
  }
  return {
    server: client.getServerVersion(),
    listTools: (signal) =>
      guard(
        'tools/list',
        async (request) => {
          const tools: Tool[] = [];
          const seen = new Set<string>();
          let cursor: string | undefined;
          let pages = 0;
          do {
            // A server whose cursor never ends would otherwise be asked forever.
            if (pages >= MAX_TOOL_PAGES) {
              throw new UnexpectedReplyError(
                `the MCP server's tools/list did not end after ${MAX_TOOL_PAGES} pages (${tools.length} tools)`,
                {
                  hint: 'the server keeps sending nextCursor; report it to the service',
                },
              );
            }
            const page = await client.listTools(cursor ? { cursor } : undefined, request);
            pages += 1;
            tools.push(...page.tools);
            for (const t of page.tools) if (t.annotations?.readOnlyHint || t.annotations?.idempotentHint) safeTools.add(t.name);
            cursor = page.nextCursor;
            if (cursor !== undefined && seen.has(cursor)) {
              throw new UnexpectedReplyError(
                `the MCP server's tools/list repeated the cursor "${cursor.slice(0, 40)}" after ${pages} pages`,
                {
                  hint: 'the server sends a cursor it already sent, so the list would never end; report it to the service',
                },
              );
            }
            if (cursor !== undefined) seen.add(cursor);
          } while (cursor);
          return tools;
        },
        signal,
      ),
    callTool: (name, args, signal) =>
      guard(
        `tools/call ${name}`,
        async (request) => (await client.callTool({ name, arguments: args }, undefined, request)) as CallToolResult,
        signal,
      ),
    close,
  };
}

/** What a call in flight shares with the fetch that carries it (its stream may end early). */
interface CallState {
  what: string;
  /** Sent again after its stream ended before any event id. */
  resent: boolean;
  /** Ends the call at once with this error. */
  fail(reason: Error): void;
}

const callState = new AsyncLocalStorage<CallState>();

/** Requests that change nothing, sent again at once when their stream ends before any event id. */
const SAFE_METHODS = new Set(['initialize', 'ping', 'tools/list', 'resources/list', 'resources/read', 'prompts/list', 'prompts/get']);

/** A JSON-RPC message as sent (a POST body): its method, id, and for tools/call the tool's name and a cancellation's request id. */
function jsonRpc(body: unknown): { method?: string; id?: string | number; tool?: unknown; requestId?: unknown } | undefined {
  if (typeof body !== 'string') return undefined;
  try {
    const m = JSON.parse(body) as { method?: unknown; id?: unknown; params?: { name?: unknown; requestId?: unknown } };
    return {
      ...(typeof m.method === 'string' ? { method: m.method } : {}),
      ...(typeof m.id === 'string' || typeof m.id === 'number' ? { id: m.id } : {}),
      tool: m.params?.name,
      requestId: m.params?.requestId,
    };
  } catch {
    return undefined;
  }
}

const isTimeout = (error: unknown): boolean => {
  const e = error as { name?: string; code?: unknown };
  return e?.name === 'McpError' && e.code === RPC.RequestTimeout;
};

/**
 * A call whose event stream ended before any event id, so it could not be resumed: said at once,
 * with the cause, never "wait longer" (a longer deadline would not bring the answer).
 */
export function streamEnded(
  url: string,
  what: string,
  why: LostWhy | { kind: 'ended'; again: true; deadlineMs: number },
  notResent: 'tool' | 'session' = 'tool',
): CliError {
  const head = `the MCP server at ${url} ended the event stream of ${what} before any event id (so it cannot be resumed) and before answering`;
  if (!why.again && notResent === 'session') {
    return new ServiceUnavailableError(`${head}; it was not sent again, since its answer opened a session`, undefined, {
      hint: 'the server, or a proxy in front of it, ends event streams before answering: report it to whoever runs the server',
    });
  }
  if (!why.again) {
    return new ServiceUnavailableError(`${head}; it was not sent again, since the tool may change data`, undefined, {
      hint: 'it may or may not have been done: check before calling it again; the server, or a proxy in front of it, ends event streams early',
    });
  }
  const second =
    'deadlineMs' in why
      ? `; sent again at once, it had not answered when the request's deadline (${Math.round(why.deadlineMs / 1000)} s) came`
      : why.status !== undefined
        ? `; sent again at once, it was refused (${why.status})`
        : '; sent again at once, it ended the same way';
  return new ServiceUnavailableError(`${head}${second}`, undefined, {
    hint: 'the server, or a proxy in front of it, ends event streams before answering: report it to whoever runs the server',
  });
}

/** The most characters of a server's error text rsi repeats (the rest is counted, not shown). */
export const MESSAGE_MAX_CHARS = 2000;

/** How many times a call's event stream that the server closed early is resumed (Last-Event-ID). */
export const RESUME_ATTEMPTS = 2;

/** The most pages of tools/list read before giving up (100 tools a page would be 10,000 tools). */
export const MAX_TOOL_PAGES = 100;

/** JSON-RPC error codes (MCP's ErrorCode), as numbers so this module needs no SDK at load time. */
const RPC = {
  ConnectionClosed: -32000,
  RequestTimeout: -32001,
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
};

/** Maps what the SDK throws to rsi's typed errors (and so to the contract's exit codes). */
export function mcpFailure(error: unknown, what: string, url: string, signal?: AbortSignal): Error {
  if (signal?.aborted) return signal.reason instanceof CliError ? signal.reason : new InterruptedError();
  if (error instanceof CliError) return error;
  const e = error as { name?: string; code?: unknown; message?: string };
  // The server's words, which may echo a megabyte of arguments: capped.
  const message = capText(String(e.message ?? error).replace(/^MCP error -?\d+: /, ''), MESSAGE_MAX_CHARS);
  // McpError: a JSON-RPC error answered by the server, or raised by the SDK for the request.
  if (e.name === 'McpError' && typeof e.code === 'number') {
    // The SDK checks a tool's answer against the output schema the server declared for it: an
    // answer that breaks it is the server's fault (exit 1, a reply its own contract does not
    // allow), not a usage error, though the SDK raises it with the code for invalid params.
    if (
      /^Structured content does not match the tool's output schema|has an output schema but did not return structured content/.test(message)
    ) {
      return new UnexpectedReplyError(`the MCP server's answer to ${what} breaks the output schema it declared for the tool: ${message}`, {
        hint: 'the server answers in a shape it says it does not; report it to whoever runs the server',
      });
    }
    switch (e.code) {
      case RPC.InvalidParams:
        return new UsageError(`the MCP server rejected ${what}: ${message}`);
      case RPC.MethodNotFound:
        return new UnexpectedReplyError(`the MCP server does not support ${what.split(' ')[0]}: ${message}`);
      case RPC.RequestTimeout:
        // Nothing ended early (that is said at once, streamEnded): the server is slow or stuck.
        return new ServiceUnavailableError(`${what} timed out: the MCP server did not answer within the request's deadline`, undefined, {
          hint: 'the server is slow or stuck: try again later; raise --http-timeout only if its tools are known to take longer',
        });
      case RPC.ConnectionClosed:
      case RPC.InternalError:
        return new ServiceUnavailableError(`the MCP server failed ${what}: ${message}`);
      default:
        return new UnexpectedReplyError(`the MCP server answered ${what} with error ${e.code}: ${message}`);
    }
  }
  // StreamableHTTPError: the HTTP status of the transport's request.
  if (e.name === 'StreamableHTTPError' || (typeof e.code === 'number' && e.code >= 400 && e.code < 600)) {
    const status = e.code as number;
    if (status === 401) return new NotSignedInError(`the MCP server refused the sign-in (${what})`);
    if (status === 403) return new ForbiddenError(`the MCP server refused ${what} (403)`);
    if (status === 404 || status === 405) {
      return new NotFoundError(`no MCP server answers at ${url} (${status})`, {
        hint: 'check the base URL; the service runs its MCP server at <base>/mcp',
      });
    }
    if (status === 429 || status >= 500) return new ServiceUnavailableError(`the MCP server answered ${status} (${what})`, status);
    return new UnexpectedReplyError(`the MCP server answered ${status} to ${what}: ${message}`);
  }
  if (e.name === 'UnauthorizedError') return new NotSignedInError(`the MCP server refused the sign-in (${what})`);
  return new UnexpectedReplyError(`${what} failed: ${message}`, { cause: error });
}

// A tool's own failure and its text: the use cases' (src/ops/mcp-tools.ts), here for `rsi mcp call`.

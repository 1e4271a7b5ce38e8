/**
 * rsi's MCP client on the process's one network path: the same `Network` as the API and OAuth
 * (proxy, CA, whole-request deadline, bounded body, redacting `--debug` trace), handed to the MCP
 * SDK through its `fetch` option. JSON replies are read whole; an event stream is passed on as it
 * arrives (a server may ask something on it and wait for the answer), under the same deadline.
 *
 * A 401 is handled here, not by the SDK: the rejected token goes to rsi's AuthProvider, which
 * refreshes once under rsi's lock, and the request is sent again. A second 401 becomes
 * NotSignedInError. So the SDK never sees a 401 and never starts an OAuth flow of its own.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { ForbiddenError, NotSignedInError } from '../errors.js';
import { parseBearerChallenge } from '../http/challenge.js';
import type { Network } from '../http/network.js';
import { API_MAX_BYTES } from '../http/wire.js';
import type { AuthProvider } from '../http/types.js';
import { suggest } from '../io/text.js';

/** The shape the SDK's `fetch` option takes. */
export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

export interface McpFetchOptions {
  userAgent: string;
  auth: AuthProvider;
  /** What to tell the user when the token is refused for good. */
  notSignedInHint: string;
}

export interface McpFetch {
  fetch: FetchLike;
  close(): Promise<void>;
}

/**
 * The signal of the MCP call being made (client.ts sets it around each call). The SDK sends a
 * call's POST with its transport-wide signal only; the fetch adds this one, so cancelling the call
 * aborts its HTTP request. Carried through the call's async work, not kept anywhere.
 */
export const callSignal = new AsyncLocalStorage<AbortSignal>();

/**
 * A request (it has a method and an id) is the call's own and goes with the call's signal; a
 * notification (notifications/cancelled after the call was aborted, initialized) must not.
 */
function isRequest(body: unknown): boolean {
  if (typeof body !== 'string') return false;
  try {
    const message = JSON.parse(body) as { method?: unknown; id?: unknown };
    return typeof message.method === 'string' && message.id !== undefined;
  } catch {
    return false;
  }
}

/**
 * The protocol version an `initialize` request asks for (its `params.protocolVersion`). The SDK
 * sends the MCP-Protocol-Version header only once a version was agreed, so not on `initialize`
 * itself; the next revision (2026-07-28) has servers require it there too, and earlier ones
 * ignore it on that request, so rsi sends the version it asks for.
 */
export function initializeVersion(body: unknown): string | undefined {
  if (typeof body !== 'string') return undefined;
  try {
    const message = JSON.parse(body) as { method?: unknown; params?: { protocolVersion?: unknown } };
    const version = message.method === 'initialize' ? message.params?.protocolVersion : undefined;
    return typeof version === 'string' && /^[\w.-]{1,40}$/.test(version) ? version : undefined;
  } catch {
    return undefined;
  }
}

/** `fetch` with the signal of the MCP call being made (callSignal) added to a request's own. */
function withCallSignal(fetch: FetchLike): FetchLike {
  return (input, init = {}) => {
    const call = callSignal.getStore();
    if (!call || !isRequest(init.body)) return fetch(input, init);
    return fetch(input, { ...init, signal: init.signal ? AbortSignal.any([init.signal, call]) : call });
  };
}

export function createMcpFetch(options: McpFetchOptions, network: Network): McpFetch {
  const once = (url: string, init: RequestInit, headers: Headers): Promise<Response> =>
    network.fetch(url, {
      method: init.method,
      headers,
      body: typeof init.body === 'string' ? init.body : undefined,
      signal: init.signal,
      maxBytes: API_MAX_BYTES,
      // A server may send a request (elicitation, sampling) on a call's event stream and wait for
      // the answer before it ends the stream: read whole, the call would wait out its timeout.
      streamIf: (status, headers) => status === 200 && /^text\/event-stream\b/i.test(headers['content-type'] ?? ''),
    });
  return {
    fetch: withCallSignal(async (input, init = {}) => {
      const url = String(input);
      const headers = new Headers(init.headers);
      headers.set('user-agent', options.userAgent);
      const version = headers.has('mcp-protocol-version') ? undefined : initializeVersion(init.body);
      if (version) headers.set('mcp-protocol-version', version);
      let res = await once(url, init, headers);
      const sent = /^Bearer\s+(\S+)$/i.exec(headers.get('authorization') ?? '')?.[1];
      if (res.status === 403) await refuseForScope(res);
      if (res.status !== 401 || sent === undefined) return res;
      await res.body?.cancel();
      const next = await options.auth.refreshAfterUnauthorized(sent, init.signal ?? undefined);
      if (next !== undefined && next !== sent) {
        headers.set('authorization', `Bearer ${next}`);
        res = await once(url, init, headers);
        if (res.status !== 401) return res;
        await res.body?.cancel();
      }
      throw new NotSignedInError('the MCP server refused the sign-in (401)', { hint: options.notSignedInHint });
    }),
    // The network belongs to the process (ctx.close() releases it).
    close: async () => undefined,
  };
}

/**
 * A 403 whose challenge says `insufficient_scope` (MCP authorization spec, "Scope Challenge
 * Handling") becomes ForbiddenError for the MCP sign-in, naming the scopes the server asks for,
 * so the hint is a sign-in for the MCP resource with them (not the API's, which would loop).
 */
async function refuseForScope(res: Response): Promise<void> {
  const challenge = parseBearerChallenge(res.headers.get('www-authenticate'));
  if (challenge?.error !== 'insufficient_scope') return;
  await res.body?.cancel();
  const scopes = (challenge.scope ?? '').split(/\s+/).filter(Boolean);
  throw new ForbiddenError(
    scopes.length
      ? `the MCP server needs the scope ${scopes.join(' ')} for this (403 insufficient_scope)`
      : 'the MCP server refused this for lack of a scope (403 insufficient_scope)',
    scopes.length ? scopes.join(' ') : undefined,
    { hint: `run ${suggest(['rsi', 'login', '--resource', 'mcp', ...(scopes.length ? ['--add-scope', scopes.join(',')] : [])])}` },
    'mcp',
  );
}

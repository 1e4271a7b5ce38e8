/**
 * The one network path of rsi's MCP client: undici's fetch on an undici pool with rsi's timeouts,
 * User-Agent and redacting `--debug` trace, handed to the MCP SDK through its `fetch` option. The
 * pool comes from `src/http` (`createAgent`); when that layer exports a process-wide dispatcher
 * (proxy, CA), this is the one function to switch.
 *
 * A 401 is handled here, not by the SDK: the rejected token goes to rsi's AuthProvider, which
 * refreshes once under rsi's lock, and the request is sent again. A second 401 becomes
 * NotSignedInError. So the SDK never sees a 401 and never starts an OAuth flow of its own.
 */
import type { Writable } from 'node:stream';
import { fetch as undiciFetch, type Agent } from 'undici';
import { InterruptedError, NotSignedInError, ServiceUnavailableError } from '../errors.js';
import { createAgent } from '../http/http.js';
import { redactBody, redactHeaders, redactUrl } from '../http/redact.js';
import type { AuthProvider } from '../http/types.js';

/** The shape the SDK's `fetch` option takes. */
export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

export interface McpFetchOptions {
  timeoutMs: number;
  userAgent: string;
  auth: AuthProvider;
  trace?: Writable | undefined;
  /** What to tell the user when the token is refused for good. */
  notSignedInHint: string;
}

export interface McpFetch {
  fetch: FetchLike;
  close(): Promise<void>;
}

export function createMcpFetch(options: McpFetchOptions, agent: Agent = createAgent(options.timeoutMs)): McpFetch {
  const trace = (line: string): void => void options.trace?.write(`${line}\n`);
  const once = async (url: string, init: RequestInit, headers: Headers): Promise<Response> => {
    trace(`> ${init.method ?? 'GET'} ${redactUrl(url)}`);
    const shown: Record<string, string> = {};
    headers.forEach((v, k) => {
      shown[k] = v;
    });
    for (const [k, v] of Object.entries(redactHeaders(shown))) trace(`> ${k}: ${v}`);
    if (typeof init.body === 'string') trace(`> ${redactBody(init.body, 'application/json')}`);
    let res: Response;
    try {
      res = (await undiciFetch(url, { ...(init as object), headers, dispatcher: agent } as never)) as unknown as Response;
    } catch (error) {
      if (init.signal?.aborted) throw init.signal.reason instanceof Error ? init.signal.reason : new InterruptedError();
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      const why = cause?.code === 'ECONNREFUSED' ? 'connection refused' : (cause?.message ?? (error as Error).message);
      throw new ServiceUnavailableError(`cannot reach the MCP server (${url}): ${why}`, undefined, {
        hint: 'check the base URL and your network, or run `rsi doctor`',
        cause: error,
      });
    }
    trace(`< ${res.status} ${init.method ?? 'GET'} ${new URL(url).pathname}`);
    const type = res.headers.get('content-type') ?? '';
    if (options.trace && type.includes('json')) trace(`< ${redactBody(await res.clone().text(), type).slice(0, 2000)}`);
    return res;
  };
  return {
    fetch: async (input, init = {}) => {
      const url = String(input);
      const headers = new Headers(init.headers);
      headers.set('user-agent', options.userAgent);
      let res = await once(url, init, headers);
      const sent = /^Bearer\s+(\S+)$/i.exec(headers.get('authorization') ?? '')?.[1];
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
    },
    close: () => agent.destroy().catch(() => undefined),
  };
}

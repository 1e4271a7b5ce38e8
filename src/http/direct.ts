/**
 * Requests that go straight to the host, on Node's own HTTP client (in Node's snapshot, so nothing
 * to load or compile: docs/performance.md, round 3). `Network` (src/http/network.ts) owns the
 * keep-alive agents and hands one in per request.
 */
import { maySendAgain } from './resend.js';
import { STALE_SOCKET, errorCode, isCertificateVerdict } from './tls-errors.js';
import { TunnelError } from './tunnel.js';
import type { WireHead, WireRequest } from './wire.js';

export type NodeHttp = typeof import('node:http');
/**
 * Node's own client for `url`, loaded on the first request of its scheme: `node:https` brings TLS
 * and crypto (~150 ms of a loaded machine), which a loopback http:// run never needs. Imported
 * once per scheme: the bundle makes each import() a new namespace object (esbuild's `__toESM`, a
 * getter per export), which a walk of 54 pages paid 54 times.
 */
const clients: { 'https:'?: Promise<NodeHttp>; 'http:'?: Promise<NodeHttp> } = {};
const nodeClient = (url: URL): Promise<NodeHttp> =>
  url.protocol === 'https:'
    ? (clients['https:'] ??= import('node:https') as unknown as Promise<NodeHttp>)
    : (clients['http:'] ??= import('node:http'));

/** Headers from Node's flat rawHeaders: lower-case names, repeats joined with ", " (as undici did). */
function fromRaw(raw: string[]): { headers: Record<string, string>; rawHeaders: [string, string][] } {
  const headers: Record<string, string> = {};
  const rawHeaders: [string, string][] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = (raw[i] as string).toLowerCase();
    const value = raw[i + 1] as string;
    headers[name] = Object.hasOwn(headers, name) ? `${headers[name]}, ${value}` : value;
    rawHeaders.push([name, value]);
  }
  return { headers, rawHeaders };
}

/**
 * Failures of attempts none of whose bytes can have reached the server: the connection was refused
 * or never opened, its TLS handshake or the proxy's tunnel failed, or a deadline came while
 * connecting. Anything else, for a method that is not idempotent, leaves its outcome unknown
 * (src/http/resend.ts).
 */
export const notSent = new WeakSet<object>();

/**
 * Whether a failure shows that none of the request's bytes reached the server: Node's client saw
 * the connection fail before it was open (direct.ts), or the failure is one that happens before
 * any connection to the service (refused, a name that does not resolve, the proxy's tunnel).
 */
export function neverSent(error: unknown): boolean {
  if (typeof error === 'object' && error !== null && notSent.has(error)) return true;
  const code = errorCode(error);
  // A certificate the handshake refused: Node writes the request only after the handshake, and a
  // loopback handshake can be past its TCP connect (counted as sent above) when it fails.
  return (
    code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || isCertificateVerdict(code) || error instanceof TunnelError
  );
}

/** The keep-alive agent for a scheme, made by `Network` on first use. */
export type AgentFor = (https: boolean, client: NodeHttp) => import('node:http').Agent;

/**
 * Where an attempt connects when that is not the request's own URL: a proxy. `url` is what Node's
 * client connects to, `path` the request target (the absolute URL, for the absolute form),
 * `headers` replace the request's, `options` are extra request options for the agent.
 */
export interface Route {
  url: URL;
  path?: string;
  headers?: Record<string, string>;
  options?: Record<string, unknown>;
  /** The agent on a stale socket's second go; default a new connection of its own (`false`). */
  freshAgent?: import('node:http').Agent;
}

/** An agent for one connection, with `shared`'s options (its TLS roots among them) and no keep-alive. */
function oneShot(shared: import('node:http').Agent, client: NodeHttp): import('node:http').Agent {
  const { options } = shared as unknown as { options: import('node:http').AgentOptions };
  return new client.Agent({ ...options, keepAlive: false });
}

/**
 * One request on Node's client, with the agent `agentFor` gives for its scheme. `fresh` sends it
 * on a new connection of its own instead (see the second go below).
 */
export async function requestDirect(
  req: WireRequest,
  signal: AbortSignal,
  agentFor: AgentFor,
  fresh = false,
  route?: Route,
): Promise<WireHead> {
  const url = route?.url ?? req.url;
  const https = url.protocol === 'https:';
  const client = await nodeClient(url);
  // A fresh go is one new connection for this request alone (see the second go below), on an agent
  // that keeps nothing but has the shared one's TLS options: the roots it verifies against
  // (Node's, and the system's once read), or a fresh POST fails where a GET succeeds.
  const agent = fresh ? (route?.freshAgent ?? oneShot(agentFor(https, client), client)) : agentFor(https, client);
  return new Promise<WireHead>((resolve, reject) => {
    const headers: Record<string, string | number> = { ...(route?.headers ?? req.headers) };
    if (req.body !== undefined) headers['content-length'] = Buffer.byteLength(req.body);
    const options = { method: req.method, headers, agent, signal, ...(route?.path ? { path: route.path } : {}), ...route?.options };
    // Whether any byte of the request may have reached the server: Node writes it once the
    // connection is open (after TLS for https), or at once on a kept-alive connection.
    let reached = false;
    const sent = (): void => {
      if (reached) return;
      reached = true;
      req.onSent?.();
    };
    const outgoing = client
      .request(url, options, (res) => {
        const { headers: joined, rawHeaders } = fromRaw(res.rawHeaders);
        resolve({ status: res.statusCode ?? 0, headers: joined, rawHeaders, body: res });
      })
      .on('socket', (socket) => {
        // Counted as sent unless the connection is plainly still opening: when in doubt, the
        // outcome is unknown, never "not sent" (a doubt the other way would send a write twice).
        if (outgoing.reusedSocket || !socket.connecting) sent();
        else socket.once('encrypted' in socket ? 'secureConnect' : 'connect', sent);
      })
      .on('error', (error) => {
        // A kept-alive connection the server closed while it sat idle (its keep-alive timeout)
        // fails the next request at once. Whether it may go again on a new connection is the one
        // send rule's (src/http/resend.ts): a GET yes; a POST, whose bytes may have reached a
        // server that read it and then closed, never (issue 52: a confirmed analysis ran twice).
        if (
          !fresh &&
          outgoing.reusedSocket &&
          !signal.aborted &&
          STALE_SOCKET.has(errorCode(error) ?? '') &&
          maySendAgain(req.method, { sent: reached })
        ) {
          requestDirect(req, signal, agentFor, true, route).then(resolve, reject);
          return;
        }
        if (!reached) notSent.add(error);
        reject(error);
      });
    outgoing.end(req.body);
  });
}

/**
 * Requests through an http:// or https:// proxy on Node's own client, with the CONNECT tunnel
 * opened here rather than by undici's ProxyAgent. undici keeps a request queued and connects
 * again whenever a tunnel attempt fails with a socket error (client.js#connect), and its connector
 * never sees the request's signal: a proxy that read CONNECT and closed the socket made rsi open
 * thousands of connections a second, with neither `--http-timeout` nor SIGTERM able to stop it
 * (issue 41). Here each attempt is one connection to the proxy, one CONNECT, one TLS handshake,
 * all under the request's one signal (its deadline and Ctrl-C alike); a failure fails the attempt
 * and the retry layer decides what comes next.
 *
 * - https:// targets: CONNECT host:port, then TLS to the target over the tunnel, on a keep-alive
 *   agent per proxy (a tunnel carries many requests, as undici's did).
 * - http:// targets: the absolute form (`GET http://host/path`) to the proxy, as curl does: many
 *   corporate proxies refuse CONNECT to ports other than 443.
 * - socks5:// stays on undici (src/http/proxied.ts).
 */
import type { Agent as HttpAgent } from 'node:http';
import * as net from 'node:net';
import type * as tls from 'node:tls';
import type { WireRequest } from './wire.js';

/** The largest CONNECT reply head read: a proxy's answer is a status line and a few headers. */
const MAX_CONNECT_HEAD = 16 * 1024;

/** Why a tunnel could not be opened; `Network.classify` turns it into a message naming the proxy. */
export class TunnelError extends Error {
  constructor(
    message: string,
    /** `closed`: no answer before the proxy closed; `garbage`: not HTTP; `refused`: a status other than 2xx. */
    readonly code: 'RSI_PROXY_CLOSED' | 'RSI_PROXY_GARBAGE' | 'RSI_PROXY_REFUSED',
    readonly status?: number,
  ) {
    super(message);
    this.name = 'TunnelError';
  }
}

/** `Proxy-Authorization` from the credentials in a proxy URL (percent-decoded, as curl reads them). */
export function proxyAuthorization(proxy: URL): string | undefined {
  if (!proxy.username && !proxy.password) return undefined;
  const user = decodeURIComponent(proxy.username);
  const password = decodeURIComponent(proxy.password);
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

const bare = (hostname: string) => hostname.replace(/^\[(.*)\]$/, '$1');
const defaultPort = (url: URL) => Number(url.port) || (url.protocol === 'https:' ? 443 : 80);

/** A socket to the proxy itself: TCP, or TLS for an https:// proxy. */
async function connectToProxy(proxy: URL, secure: () => tls.ConnectionOptions): Promise<net.Socket> {
  const host = bare(proxy.hostname);
  if (proxy.protocol !== 'https:') return net.connect({ host, port: defaultPort(proxy) });
  const { connect } = await import('node:tls');
  return connect({ host, port: defaultPort(proxy), servername: net.isIP(host) ? undefined : host, ...secure() });
}

/**
 * One CONNECT: resolves with the socket once the proxy answers 2xx, with nothing read past the
 * reply's head. Every way it can go wrong (the proxy closes, stalls, answers garbage or refuses)
 * rejects once and destroys the socket; an abort of `signal` does the same at once.
 */
export function openTunnel(
  proxy: URL,
  target: { host: string; port: number },
  signal: AbortSignal,
  secure: () => tls.ConnectionOptions,
): Promise<net.Socket> {
  return new Promise<net.Socket>((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    let socket: net.Socket | undefined;
    let settled = false;
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      socket?.destroy();
      reject(error);
    };
    const onAbort = () => fail(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    connectToProxy(proxy, secure).then((s) => {
      socket = s;
      if (settled) {
        s.destroy();
        return;
      }
      const authority = net.isIPv6(target.host) ? `[${target.host}]:${target.port}` : `${target.host}:${target.port}`;
      const auth = proxyAuthorization(proxy);
      s.write(
        `CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\nProxy-Connection: keep-alive\r\n${auth ? `Proxy-Authorization: ${auth}\r\n` : ''}\r\n`,
      );
      let head = Buffer.alloc(0);
      const onData = (chunk: Buffer) => {
        head = Buffer.concat([head, chunk]);
        const end = head.indexOf('\r\n\r\n');
        if (end === -1) {
          if (head.length > MAX_CONNECT_HEAD) fail(garbage(head));
          return;
        }
        const status = /^HTTP\/1\.[01] (\d{3})(?: [^\r\n]*)?\r\n/.exec(head.subarray(0, end + 2).toString('latin1'));
        if (!status) return fail(garbage(head));
        const code = Number(status[1]);
        if (code < 200 || code > 299) {
          return fail(new TunnelError(`Proxy response (${code}) to CONNECT`, 'RSI_PROXY_REFUSED', code));
        }
        // A proxy speaks only after CONNECT is answered; bytes beyond the head are the target's.
        const rest = head.subarray(end + 4);
        s.off('data', onData);
        s.off('end', onEnd);
        s.off('close', onEnd);
        s.off('error', fail);
        s.pause();
        if (rest.length > 0) s.unshift(rest);
        settled = true;
        signal.removeEventListener('abort', onAbort);
        resolve(s);
      };
      const onEnd = () =>
        fail(
          new TunnelError(
            head.length === 0 ? 'closed the connection without answering CONNECT' : garbage(head).message,
            head.length === 0 ? 'RSI_PROXY_CLOSED' : 'RSI_PROXY_GARBAGE',
          ),
        );
      s.on('data', onData);
      s.once('end', onEnd);
      s.once('close', onEnd);
      s.once('error', fail);
    }, fail);
  });
}

function garbage(head: Buffer): TunnelError {
  const first = head.subarray(0, 40).toString('latin1');
  const shown = JSON.stringify(first).slice(1, -1);
  return new TunnelError(
    `answered CONNECT with something that is not HTTP ("${shown}"${head.length > 40 ? '…' : ''})`,
    'RSI_PROXY_GARBAGE',
  );
}

/** The request option that carries an attempt's signal to the agent that opens its tunnel. */
export const TUNNEL_SIGNAL = 'rsiTunnelSignal';

/**
 * A keep-alive https agent whose new connections are tunnels through `proxy`. Node's Agent
 * accepts a connection handed back later through `createConnection`'s callback; the attempt's
 * signal comes in the request options (`TUNNEL_SIGNAL`), so its deadline and Ctrl-C end the
 * CONNECT and the handshake too.
 */
export async function makeTunnelAgent(
  proxy: URL,
  options: { keepAlive: boolean; maxSockets: number; keepAliveMsecs: number },
  secure: () => tls.ConnectionOptions,
): Promise<HttpAgent> {
  const https = await import('node:https');
  const tlsModule = await import('node:tls');
  class TunnelAgent extends https.Agent {
    override createConnection(
      given: import('node:http').RequestOptions,
      done?: (error: Error | null, socket: import('node:stream').Duplex) => void,
    ): undefined {
      const opts = given as tls.ConnectionOptions & { host?: string; port?: number; [TUNNEL_SIGNAL]?: AbortSignal };
      const signal = opts[TUNNEL_SIGNAL] ?? new AbortController().signal;
      const host = bare(opts.host ?? 'localhost');
      openTunnel(proxy, { host, port: opts.port ?? 443 }, signal, secure).then(
        (raw) => {
          const secured = tlsModule.connect({
            ...secure(),
            socket: raw,
            servername: net.isIP(host) ? undefined : (opts.servername ?? host),
            rejectUnauthorized: opts.rejectUnauthorized !== false,
          });
          const onAbort = () => secured.destroy(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
          signal.addEventListener('abort', onAbort, { once: true });
          const settle = (error: Error | null) => {
            signal.removeEventListener('abort', onAbort);
            secured.off('secureConnect', ok);
            secured.off('error', settle);
            if (error) {
              raw.destroy();
              done?.(error, raw);
            } else done?.(null, secured);
          };
          const ok = () => settle(null);
          secured.once('secureConnect', ok);
          secured.once('error', settle);
        },
        // Node's agent reads no socket from a failed creation.
        (error: Error) => done?.(error, undefined as never),
      );
      return undefined;
    }
  }
  return new TunnelAgent(options);
}

/** The request options of an http:// request in absolute form through `proxy`. */
export function absoluteForm(req: WireRequest, proxy: URL): { url: URL; headers: Record<string, string> } {
  const headers: Record<string, string> = { ...req.headers, host: req.url.host };
  const auth = proxyAuthorization(proxy);
  if (auth) headers['proxy-authorization'] = auth;
  const url = new URL(proxy.href);
  url.pathname = '/';
  url.username = '';
  url.password = '';
  return { url, headers };
}

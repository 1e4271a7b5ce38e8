/**
 * Requests through a proxy (http://, https:// or socks5://) on Node's own client, with the tunnel
 * opened here rather than by undici's ProxyAgent, which rsi once used. undici keeps a request queued and connects
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
 * - socks5:// proxies: a SOCKS5 CONNECT (RFC 1928, no authentication or RFC 1929's user name and
 *   password from the proxy URL) opens the same kind of tunnel, for https:// (TLS over it) and
 *   http:// targets alike. socks5h:// hands the target's name to the proxy to resolve; socks5://
 *   (and socks://) resolve it on this machine first, as curl does.
 */
import type { Agent as HttpAgent } from 'node:http';
import { connect as netConnect, isIP, isIPv4, isIPv6, type Socket } from 'node:net';
import type * as tls from 'node:tls';
import type { WireRequest } from './wire.js';

/** The largest CONNECT reply head read: a proxy's answer is a status line and a few headers. */
const MAX_CONNECT_HEAD = 16 * 1024;

/** Why a tunnel could not be opened; `Network.classify` turns it into a message naming the proxy. */
export class TunnelError extends Error {
  constructor(
    message: string,
    /** `closed`: no answer before the proxy closed; `garbage`: not HTTP; `refused`: a status other than 2xx. */
    /** SOCKS5: `auth`: no way to sign in was accepted; `denied`: a reply code other than success; `resolve`: socks5:// could not resolve the target here. */
    readonly code:
      | 'RSI_PROXY_CLOSED'
      | 'RSI_PROXY_GARBAGE'
      | 'RSI_PROXY_REFUSED'
      | 'RSI_PROXY_AUTH'
      | 'RSI_PROXY_DENIED'
      | 'RSI_PROXY_RESOLVE',
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
async function connectToProxy(proxy: URL, secure: () => tls.ConnectionOptions): Promise<Socket> {
  const host = bare(proxy.hostname);
  if (proxy.protocol !== 'https:') return netConnect({ host, port: defaultPort(proxy) });
  const { connect } = await import('node:tls');
  return connect({ host, port: defaultPort(proxy), servername: isIP(host) ? undefined : host, ...secure() });
}

/**
 * One tunnel to `target` through `proxy`: an HTTP CONNECT, or a SOCKS5 CONNECT for a socks5://
 * proxy. Resolves with the socket once the proxy has opened it, with nothing read past the
 * proxy's own bytes. Every way it can go wrong (the proxy closes, stalls, answers garbage or
 * refuses) rejects once and destroys the socket; an abort of `signal` does the same at once.
 */
export function openTunnel(
  proxy: URL,
  target: { host: string; port: number },
  signal: AbortSignal,
  secure: () => tls.ConnectionOptions,
): Promise<Socket> {
  return new Promise<Socket>((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    let socket: Socket | undefined;
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
    const socks = isSocks(proxy);
    // socks5:// resolves the target's name here before connecting, as curl does.
    const address = socks ? socksAddress(proxy, target) : Promise.resolve(undefined);
    Promise.all([address, address.then(() => connectToProxy(proxy, secure))]).then(([addr, s]) => {
      socket = s;
      if (settled) {
        s.destroy();
        return;
      }
      const open = (rest: Buffer) => {
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
      let head = Buffer.alloc(0);
      let onData: (chunk: Buffer) => void;
      if (addr) {
        const handshake = socksHandshake(proxy, addr, target);
        s.write(handshake.first);
        onData = (chunk) => {
          head = Buffer.concat([head, chunk]);
          try {
            for (let step = handshake.read(head); step; step = handshake.read(head)) {
              head = head.subarray(step.used);
              if (step.open) return open(head);
              if (step.send) s.write(step.send);
            }
          } catch (error) {
            fail(error);
          }
        };
      } else {
        const authority = isIPv6(target.host) ? `[${target.host}]:${target.port}` : `${target.host}:${target.port}`;
        const auth = proxyAuthorization(proxy);
        s.write(
          `CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\nProxy-Connection: keep-alive\r\n${auth ? `Proxy-Authorization: ${auth}\r\n` : ''}\r\n`,
        );
        onData = (chunk) => {
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
          open(head.subarray(end + 4));
        };
      }
      const onEnd = () =>
        fail(
          socks
            ? new TunnelError('closed the connection during the SOCKS5 handshake', 'RSI_PROXY_CLOSED')
            : new TunnelError(
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

/** Whether `proxy` is a SOCKS5 proxy (socks5h://, socks5://, or socks://, which means socks5://). */
export const isSocks = (proxy: URL): boolean => /^socks5?h?:$/.test(proxy.protocol);

/** SOCKS5's reply codes (RFC 1928 §6), as the message names them. */
const SOCKS_REPLIES: Record<number, string> = {
  1: 'general failure',
  2: 'not allowed by its rules',
  3: 'network unreachable',
  4: 'host unreachable',
  5: 'connection refused',
  6: 'TTL expired',
  7: 'command not supported',
  8: 'address type not supported',
};

/**
 * The address part of a SOCKS5 CONNECT (ATYP, address, port). socks5h:// sends the host name for
 * the proxy to resolve; socks5:// (and socks://) resolve it here first, as curl does, so a name
 * only the proxy's side knows needs socks5h://.
 */
async function socksAddress(proxy: URL, target: { host: string; port: number }): Promise<Buffer> {
  let host = target.host;
  if (!isIP(host) && proxy.protocol !== 'socks5h:') {
    const { lookup } = await import('node:dns/promises');
    try {
      host = (await lookup(host)).address;
    } catch (error) {
      const code = (error as { code?: string }).code ?? 'ENOTFOUND';
      throw new TunnelError(
        `needs ${target.host} resolved on this machine, which cannot (${code}); use socks5h:// to let the proxy resolve it`,
        'RSI_PROXY_RESOLVE',
      );
    }
  }
  const port = Buffer.from([target.port >> 8, target.port & 0xff]);
  if (isIPv4(host)) return Buffer.concat([Buffer.from([1, ...host.split('.').map(Number)]), port]);
  if (isIPv6(host)) {
    return Buffer.concat([Buffer.from([4]), ipv6Bytes(host), port]);
  }
  const name = Buffer.from(host);
  if (name.length > 255)
    throw new TunnelError(`cannot be asked for a host name longer than 255 bytes (${host.slice(0, 40)}…)`, 'RSI_PROXY_AUTH');
  return Buffer.concat([Buffer.from([3, name.length]), name, port]);
}

/** The 16 bytes of an IPv6 address (isIPv6 already said it is one), an IPv4 tail included. */
function ipv6Bytes(address: string): Buffer {
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(address);
  const hex = v4
    ? address.slice(0, v4.index) +
      [
        [v4[1], v4[2]],
        [v4[3], v4[4]],
      ]
        .map(([a, b]) => ((Number(a) << 8) | Number(b)).toString(16))
        .join(':')
    : address;
  const [head = '', tail = ''] = hex.split('::');
  const parts = (part: string) => (part ? part.split(':') : []);
  const h = parts(head);
  const t = parts(tail);
  const groups = hex.includes('::') ? [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t] : h;
  const out = Buffer.alloc(16);
  for (const [i, group] of groups.entries()) out.writeUInt16BE(Number.parseInt(group, 16), i * 2);
  return out;
}

/**
 * The client side of a SOCKS5 CONNECT (RFC 1928), with no authentication or a user name and
 * password (RFC 1929) from the proxy URL: `first` is what to send first, `read` takes the bytes
 * received so far and says what to send next, or that the tunnel is open (with how many bytes
 * were the proxy's), or nothing while it needs more. Throws a TunnelError for any refusal.
 */
function socksHandshake(proxy: URL, address: Buffer, target: { host: string; port: number }) {
  const user = Buffer.from(decodeURIComponent(proxy.username));
  const password = Buffer.from(decodeURIComponent(proxy.password));
  const withPassword = user.length > 0 || password.length > 0;
  const connect = Buffer.concat([Buffer.from([5, 1, 0]), address]);
  const where = `${target.host}:${target.port}`;
  let state: 'method' | 'auth' | 'reply' = 'method';
  return {
    first: Buffer.from(withPassword ? [5, 2, 0, 2] : [5, 1, 0]),
    read(buf: Buffer): { used: number; send?: Buffer; open?: boolean } | undefined {
      if (buf.length < 2) return undefined;
      if (state === 'method') {
        if (buf[0] !== 5) throw socksGarbage(buf);
        state = buf[1] === 2 && withPassword ? 'auth' : 'reply';
        if (buf[1] === 0) return { used: 2, send: connect };
        if (state === 'auth') {
          if (user.length > 255 || password.length > 255) {
            throw new TunnelError('cannot be sent a user name or password longer than 255 bytes (SOCKS5 allows no more)', 'RSI_PROXY_AUTH');
          }
          return { used: 2, send: Buffer.concat([Buffer.from([1, user.length]), user, Buffer.from([password.length]), password]) };
        }
        if (buf[1] === 2 || buf[1] === 0xff) {
          throw new TunnelError(
            withPassword
              ? 'accepted neither no authentication nor the user name and password in the proxy URL'
              : 'wants a user name and password, and the proxy URL has none',
            'RSI_PROXY_AUTH',
          );
        }
        throw new TunnelError(`asked for an authentication method rsi does not speak (SOCKS5 method ${buf[1]})`, 'RSI_PROXY_AUTH');
      }
      if (state === 'auth') {
        if (buf[1] !== 0) throw new TunnelError('rejected the user name and password in the proxy URL', 'RSI_PROXY_AUTH');
        state = 'reply';
        return { used: 2, send: connect };
      }
      if (buf[0] !== 5) throw socksGarbage(buf);
      const rep = buf[1] as number;
      if (rep !== 0) {
        throw new TunnelError(
          `would not connect to ${where} (SOCKS5 reply ${rep}: ${SOCKS_REPLIES[rep] ?? 'unknown'})`,
          'RSI_PROXY_DENIED',
        );
      }
      if (buf.length < 5) return undefined;
      const atyp = buf[3];
      const length = atyp === 1 ? 4 : atyp === 4 ? 16 : atyp === 3 ? 1 + (buf[4] as number) : -1;
      if (length < 0) throw socksGarbage(buf);
      if (buf.length < 4 + length + 2) return undefined;
      return { used: 4 + length + 2, open: true };
    },
  };
}

function socksGarbage(buf: Buffer): TunnelError {
  return new TunnelError(`answered with something that is not SOCKS5 (${buf.subarray(0, 16).toString('hex')})`, 'RSI_PROXY_GARBAGE');
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
            servername: isIP(host) ? undefined : (opts.servername ?? host),
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

/**
 * A keep-alive http agent whose new connections are SOCKS5 tunnels through `proxy`, for http://
 * targets (an http proxy takes those in absolute form instead).
 */
export async function makePlainTunnelAgent(
  proxy: URL,
  options: { keepAlive: boolean; maxSockets: number; keepAliveMsecs: number },
): Promise<HttpAgent> {
  const http = await import('node:http');
  class PlainTunnelAgent extends http.Agent {
    override createConnection(
      given: import('node:http').RequestOptions,
      done?: (error: Error | null, socket: import('node:stream').Duplex) => void,
    ): undefined {
      const opts = given as { host?: string; port?: number; [TUNNEL_SIGNAL]?: AbortSignal };
      const signal = opts[TUNNEL_SIGNAL] ?? new AbortController().signal;
      openTunnel(proxy, { host: bare(opts.host ?? 'localhost'), port: Number(opts.port) || 80 }, signal, () => ({})).then(
        (raw) => {
          // openTunnel hands it over paused; Node's HTTP client only listens for data.
          raw.resume();
          done?.(null, raw);
        },
        (error: Error) => done?.(error, undefined as never),
      );
      return undefined;
    }
  }
  return new PlainTunnelAgent(options);
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

/**
 * A small real forward proxy for tests: absolute-form requests (`GET http://host/path`) are
 * forwarded, CONNECT opens a tunnel, and everything that passes is recorded, so a test can prove
 * that a request went through it (or, with NO_PROXY, that it did not). With `credentials` it
 * answers 407 unless Proxy-Authorization carries them, as a corporate proxy would.
 */
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';

export interface ProxyHit {
  /** 'CONNECT' for a tunnel, else the forwarded method. */
  method: string;
  /** `host:port` for CONNECT, the absolute URL otherwise. */
  target: string;
  /** The Proxy-Authorization header as received, if any. */
  authorization: string | undefined;
}

export interface TestProxy {
  /** `http://127.0.0.1:<port>` (no credentials). */
  url: string;
  port: number;
  hits: ProxyHit[];
  stop(): Promise<void>;
}

export interface ProxyOptions {
  credentials?: { user: string; password: string };
  /**
   * Host names only this proxy resolves (name → address), like a corporate proxy reaching hosts the
   * client's own DNS cannot: a request that bypasses the proxy fails to resolve them.
   */
  hosts?: Record<string, string>;
  /** Answer every CONNECT with this status instead of opening the tunnel (a proxy refusing it). */
  refuseConnect?: number;
}

export async function startProxy(options: ProxyOptions = {}): Promise<TestProxy> {
  const resolve = (host: string) => options.hosts?.[host.toLowerCase()] ?? host;
  const hits: ProxyHit[] = [];
  const sockets = new Set<Socket>();
  const expected = options.credentials
    ? `Basic ${Buffer.from(`${options.credentials.user}:${options.credentials.password}`).toString('base64')}`
    : undefined;
  const allowed = (req: IncomingMessage) => expected === undefined || req.headers['proxy-authorization'] === expected;

  const server: Server = createServer((req, res) => {
    hits.push({ method: req.method ?? '', target: req.url ?? '', authorization: req.headers['proxy-authorization'] });
    if (!allowed(req)) {
      res.writeHead(407, { 'proxy-authenticate': 'Basic realm="test"' }).end();
      return;
    }
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      res.writeHead(400).end('absolute-form request expected');
      return;
    }
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    delete headers['proxy-connection'];
    const upstream = httpRequest(
      { host: resolve(target.hostname), port: target.port || 80, path: `${target.pathname}${target.search}`, method: req.method, headers },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502).end('bad gateway');
      else res.destroy();
    });
    req.pipe(upstream);
  });

  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    hits.push({ method: 'CONNECT', target: req.url ?? '', authorization: req.headers['proxy-authorization'] });
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => undefined);
    if (!allowed(req)) {
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="test"\r\n\r\n');
      return;
    }
    if (options.refuseConnect) {
      client.end(`HTTP/1.1 ${options.refuseConnect} Refused\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    const [host, port] = (req.url ?? '').split(':');
    const upstream = connect(Number(port) || 443, resolve(host ?? '127.0.0.1'), () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n'));
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    hits,
    stop: () =>
      new Promise<void>((done) => {
        for (const s of sockets) s.destroy();
        server.close(() => done());
      }),
  };
}

/**
 * Every request of a `--debug` trace (`> METHOD url`), each with whether the next line says it went
 * through the proxy (an http:// or socks5h:// one with credentials, on 127.0.0.1):
 * `[['POST https://rsi.test:1/oauth/token', true], …]`.
 */
export function tracedRequests(stderr: string): [string, boolean][] {
  const lines = stderr.split('\n');
  const out: [string, boolean][] = [];
  lines.forEach((line, i) => {
    const m = /^> ([A-Z]+ https?:\/\/\S+)/.exec(line);
    if (m)
      out.push([m[1]!.replace(/\?.*$/, ''), /^\* through proxy (http|socks5h):\/\/\[redacted\]@127\.0\.0\.1:/.test(lines[i + 1] ?? '')]);
  });
  return out;
}

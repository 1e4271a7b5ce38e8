/**
 * `rsi sandbox`: a local fake of the whole Research Intelligence Service — authorization server,
 * API, setup page — faithful to shared/service-api.md. Choices where the spec is silent are in
 * docs/sandbox.md. Imports nothing from the CLI layers.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { HttpError, crossSite, randomToken, sameSecret, send, type Req, type Res } from './http.js';
import type { AddressInfo, Socket } from 'node:net';
import { OAuthServer } from './oauth.js';
import { ApiService } from './api.js';
import { SandboxClock } from './clock.js';
import { landingPage, setupPage, errorPage } from './pages.js';
import { breakSchema, hostileReply, sparsify, FAULTS, HOSTILE_ROUTES, type Fault } from './faults.js';
import { emptyStats, type SandboxContext, type SandboxStats } from './context.js';
import { uuidFor } from './data.js';

export interface SandboxOptions {
  port?: number;
  host?: string;
  /** Sandbox seconds per real second for scans and analyses. Default 1. */
  timeScale?: number;
  /** Access-token lifetime in seconds. Default 3600. */
  tokenTtlSeconds?: number;
  autoApprove?: boolean;
  faults?: readonly string[];
  /** Called for each request line, for the optional log on stderr. */
  log?: (line: string) => void;
  /** Milliseconds every answer (admin routes aside) is delayed, like a network. Default 0. */
  latencyMs?: number;
  /** The secret the /__sandbox/* admin routes require (header X-Sandbox-Secret). Default: random. */
  adminSecret?: string;
  /** Serve HTTPS with this key and certificate chain (PEM); the base URL then says https://. */
  tls?: { key: string; cert: string };
  /**
   * The host name clients reach the sandbox by (say one only a proxy resolves): it goes in the base
   * URL, and the sandbox answers requests naming it in Host besides its loopback names.
   */
  publicHost?: string;
  /**
   * Derive the ids of created projects and runs from this text (and their order) instead of
   * drawing them at random: the same commands then give the same signals, ranks and outcomes.
   */
  seed?: string;
}

/** The request header that carries the admin secret. */
export const ADMIN_HEADER = 'x-sandbox-secret';

export interface Sandbox {
  url: string;
  /** The secret the /__sandbox/* routes require in the X-Sandbox-Secret header. */
  adminSecret: string;
  stats: SandboxStats;
  /** Jumps both clocks forward (what POST /__sandbox/advance?seconds=N does). */
  advance(seconds: number): void;
  close(): Promise<void>;
}

const MAX_BODY = 1024 * 1024;

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const host = options.host ?? '127.0.0.1';
  const faults = new Set<Fault>();
  for (const f of options.faults ?? []) {
    if (!(FAULTS as readonly string[]).includes(f)) throw new Error(`unknown fault "${f}"`);
    faults.add(f as Fault);
  }
  const stats = emptyStats();
  const adminSecret = options.adminSecret ?? randomToken();
  const latencyMs = options.latencyMs ?? 0;
  const timers = new Set<NodeJS.Timeout>();
  let closing = false;
  const delay = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const t = setTimeout(() => {
        timers.delete(t);
        resolve();
      }, ms);
      timers.add(t);
    });
  const sockets = new Set<Socket>();
  const hanging = new Set<ServerResponse>();
  const seen = new Set<string>();

  const server = options.tls ? createHttpsServer({ key: options.tls.key, cert: options.tls.cert }) : createServer();
  server.keepAliveTimeout = 5000;
  // A client that rejects the certificate (no NODE_EXTRA_CA_CERTS) drops the handshake: not ours.
  server.on('tlsClientError', () => undefined);
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const hostPart = host.includes(':') ? `[${host}]` : host;
  const base = `${options.tls ? 'https' : 'http'}://${options.publicHost ?? hostPart}:${port}`;
  // DNS rebinding: a web page whose name a hostile DNS points at 127.0.0.1 reaches this port with
  // its own name in Host. Only this sandbox's names are answered (every name, if it listens on all
  // addresses: then it is meant to be reached by whatever name the machine has).
  const anyAddress = host === '0.0.0.0' || host === '::';
  const ownHosts = new Set(
    ['127.0.0.1', 'localhost', '[::1]', hostPart, ...(options.publicHost ? [options.publicHost] : [])].map(
      (h) => `${h.toLowerCase()}:${port}`,
    ),
  );

  const ctx: SandboxContext = {
    base,
    apiResource: `${base}/api/v1`,
    mcpResource: `${base}/mcp`,
    clock: new SandboxClock(options.timeScale ?? 1),
    faults,
    stats,
    tokenTtlSeconds: options.tokenTtlSeconds ?? 3600,
    autoApprove: options.autoApprove ?? false,
    newId: options.seed === undefined ? randomUUID : seededIds(options.seed),
  };
  const oauth = new OAuthServer(ctx);
  const api = new ApiService(ctx, oauth);

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((error: unknown) => {
      options.log?.(`internal error: ${error instanceof Error ? error.stack : String(error)}`);
      if (!res.headersSent) send(res, { status: 500, json: { error: 'internal error' } });
      else res.destroy();
    });
  });

  async function handle(raw: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!anyAddress && !ownHosts.has((raw.headers.host ?? '').toLowerCase())) {
      raw.resume();
      // 421 Misdirected Request: this server does not serve that name (RFC 9110 §15.5.20).
      return send(res, { status: 421, json: { error: 'This sandbox answers only to its own host names' } });
    }
    const url = new URL(raw.url ?? '/', base);
    const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : url.pathname;
    const method = raw.method ?? 'GET';

    // Admin routes: outside the spec, never counted, never faulted, and only for whoever holds the
    // run's secret (a web page in the user's browser must not jump the clock or read the counters).
    if (path.startsWith('/__sandbox/')) return send(res, admin(raw, url, path, method));

    let body: Buffer;
    try {
      body = await readBody(raw);
    } catch {
      return send(res, { status: 413, json: { error: 'Request body too large' } });
    }
    // --latency: every answer waits like a network round trip would. Waiting before the work keeps
    // concurrent requests overlapping, as they would on a real link.
    if (latencyMs > 0) await delay(latencyMs);
    if (closing) return;
    const req: Req = { method, url, path, headers: raw.headers, body, remote: raw.socket.remoteAddress ?? 'unknown' };
    stats.requests++;
    const isApi = path === '/api/v1' || path.startsWith('/api/v1/');
    if (isApi) stats.apiRequests++;
    const route = isApi ? api.routeName(method, path) : `${method} ${routeTemplate(path)}`;
    stats.byRoute[route] = (stats.byRoute[route] ?? 0) + 1;
    options.log?.(`${method} ${url.pathname}${url.search ? '?…' : ''}`);

    if (isApi) {
      if (faults.has('hang')) {
        hanging.add(res);
        res.on('close', () => hanging.delete(res));
        return;
      }
      if (faults.has('slow')) await delay(2000);
      if (faults.has('html-502')) {
        return send(res, {
          status: 502,
          html: '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>\n',
        });
      }
      if (faults.has('rate-limit') && !seen.has(`rl:${route}`)) {
        seen.add(`rl:${route}`);
        return send(res, { status: 429, headers: { 'retry-after': '1' }, json: { error: 'Too many requests' } });
      }
      if (faults.has('flaky-503') && method === 'GET' && !seen.has(`503:${url.pathname}${url.search}`)) {
        seen.add(`503:${url.pathname}${url.search}`);
        return send(res, { status: 503, json: { error: 'Service temporarily unavailable' } });
      }
    }

    // hostile: the extra routes `rsi api` is tried on (docs/sandbox.md), sent as they are.
    const extra = faults.has('hostile') && method === 'GET' ? HOSTILE_ROUTES[path] : undefined;
    if (extra) return send(res, { status: 200, text: extra.body, headers: { 'content-type': extra.type } });

    let result: Res;
    try {
      result = isApi ? await api.handle(req) : await handleNonApi(req);
    } catch (error) {
      if (error instanceof HttpError) {
        result =
          typeof error.body === 'string' && error.body.startsWith('<')
            ? { status: error.status, html: error.body }
            : { status: error.status, json: error.body };
      } else throw error;
    }

    if (isApi && result.json !== undefined) {
      const ok = result.status >= 200 && result.status < 300;
      // sparse first, then hostile: hostile rewrites whatever members are left.
      if (ok && faults.has('sparse')) result = { ...result, json: sparsify(route, result.json, faults) };
      if (faults.has('hostile')) result = { ...result, json: hostileReply(result.json) };
    }
    if (isApi && result.status >= 200 && result.status < 300 && result.json !== undefined) {
      if (faults.has('bad-schema')) result = { ...result, json: breakSchema(result.json) };
      if (faults.has('truncated-json')) {
        const text = JSON.stringify(result.json);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(text.slice(0, Math.max(1, Math.floor(text.length / 2))));
        return;
      }
      if (faults.has('reset')) {
        const text = JSON.stringify(result.json);
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) });
        res.write(text.slice(0, Math.floor(text.length / 2)));
        setTimeout(() => res.destroy(), 20);
        return;
      }
    }
    send(res, result);
  }

  function admin(raw: IncomingMessage, url: URL, path: string, method: string): Res {
    if (crossSite(raw.headers, base)) return { status: 403, json: { error: 'Cross-site requests to admin routes are refused' } };
    const given = raw.headers[ADMIN_HEADER];
    if (typeof given !== 'string' || !sameSecret(given, adminSecret)) {
      return { status: 401, json: { error: "Admin routes need the header X-Sandbox-Secret with this run's admin secret" } };
    }
    if (path === '/__sandbox/stats' && method === 'GET') return { status: 200, json: stats };
    if (path === '/__sandbox/reset-stats' && method === 'POST') {
      Object.assign(stats, emptyStats());
      return { status: 204 };
    }
    if (path === '/__sandbox/advance' && method === 'POST') {
      const seconds = Number(url.searchParams.get('seconds'));
      if (!Number.isFinite(seconds) || seconds < 0) return { status: 400, json: { error: 'seconds must be a number >= 0' } };
      ctx.clock.advance(seconds);
      return { status: 200, json: { advanced: seconds } };
    }
    return { status: 404, json: { error: 'Not found' } };
  }

  async function handleNonApi(req: Req): Promise<Res> {
    const { method, path } = req;
    if (method === 'GET' && path === '/') return { status: 200, html: landingPage(base) };
    if (path.startsWith('/.well-known/') || path.startsWith('/oauth/')) return oauth.handle(req);
    if (path === '/mcp' || path.startsWith('/mcp/')) return (await import('./mcp.js')).handleMcp(req, { ctx, oauth, api });
    const overview = /^\/projects\/([^/]+)\/overview$/.exec(path);
    if (overview && method === 'GET') {
      const project = api.projects.get(overview[1]!);
      if (!project) return { status: 404, html: errorPage('Project not found', 'No project has this address.') };
      return {
        status: 200,
        html: setupPage({
          projectName: project.name,
          projectId: project.id,
          setupDone: project.setupDone,
          justFinished: req.url.searchParams.get('setup') === 'done',
        }),
      };
    }
    const setup = /^\/projects\/([^/]+)\/setup$/.exec(path);
    if (setup && method === 'POST') {
      // A page on another site must not finish setup in the user's browser; scripts send no Origin.
      if (crossSite(req.headers, base)) return { status: 403, html: errorPage('Refused', 'Cross-site form posts are refused.') };
      const project = api.projects.get(setup[1]!);
      if (!project) return { status: 404, html: errorPage('Project not found', 'No project has this address.') };
      project.setupDone = true;
      // A browser form gets the page back; a script (Accept: application/json) gets JSON.
      if ((req.headers.accept ?? '').includes('application/json')) {
        return { status: 200, json: { id: project.id, setup: 'done' } };
      }
      return { status: 303, headers: { location: `/projects/${project.id}/overview?setup=done` } };
    }
    return { status: 404, json: { error: 'Not found' } };
  }

  return {
    url: base,
    adminSecret,
    stats,
    advance: (seconds: number) => ctx.clock.advance(seconds),
    close: async () => {
      closing = true;
      // Delayed answers are dropped with their connections; their timers must not hold the process.
      for (const t of timers) clearTimeout(t);
      for (const res of hanging) res.destroy();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
}

function routeTemplate(path: string): string {
  return path.replace(/\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?=\/|$)/gi, '/{id}');
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        reject(new Error('too large'));
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** Ids from a seed: the nth is a UUID derived from the seed and n, the same on every run. */
function seededIds(seed: string): () => string {
  let n = 0;
  return () => uuidFor(`seed:${seed}|${n++}`);
}

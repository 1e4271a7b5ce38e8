/**
 * Requests through a socks5 proxy, on undici's ProxyAgent, loaded only when such a proxy carries a
 * request: most runs have none. http(s) proxies go on Node's client (src/http/tunnel.ts).
 * `Network` (src/http/network.ts) keeps one agent per proxy URL.
 */
import type { Dispatcher } from 'undici';
import type { WireHead, WireRequest } from './wire.js';

export interface UndiciParts {
  ProxyAgent: typeof import('undici').ProxyAgent;
  request: (this: Dispatcher, options: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;
}
let undiciParts: Promise<UndiciParts> | undefined;
/** undici's ProxyAgent and request, loaded only when a proxy carries a request (most runs have none). */
export const loadUndici = (): Promise<UndiciParts> => (undiciParts ??= importUndici());

async function importUndici(): Promise<UndiciParts> {
  // The parts rsi uses, not undici's index, which also loads fetch, WebSocket, cookies, caches and
  // mocks (about 1 MB of code no request needs): the index cost ~9 % more CPU per proxied request,
  // measured (docs/performance.md, "Proxied requests after the network cleanup"). undici has no
  // `exports` map, so these paths resolve as any file of the package; src/http/undici-parts.d.ts
  // types them, and test/unit/http-network.test.ts fails when an upgrade moves one.
  const [proxyAgent, request, connect, dispatcher] = await Promise.all([
    import('undici/lib/dispatcher/proxy-agent.js'),
    import('undici/lib/api/api-request.js'),
    import('undici/lib/api/api-connect.js'),
    import('undici/lib/dispatcher/dispatcher.js'),
  ]);
  // ProxyAgent opens its CONNECT tunnel with `Dispatcher.prototype.connect`, a method undici's
  // index attaches (lib/api) and these direct imports do not: without it every https:// request
  // through a proxy fails with "this[kClient].connect is not a function". It is the only one of
  // those methods undici's dispatchers call on themselves (request is called from outside, above).
  const proto = dispatcher.default.prototype as { connect?: unknown };
  proto.connect ??= connect.default;
  // CommonJS: the module itself is the default export.
  return { ProxyAgent: proxyAgent.default, request: request.default };
}

let socksHushed: Promise<void> | undefined;
/**
 * undici's SOCKS5 agent prints an ExperimentalWarning (two lines on stderr, not in rsi's voice) the
 * first time one is made, deep inside a request. socks5:// is a documented proxy here, so one
 * agent is made up front with that warning held back; undici then never prints it. Not a speed-up:
 * kept for what the person reads (docs/performance.md, "Proxied requests after the network cleanup").
 */
const hushSocksWarning = (): Promise<void> =>
  (socksHushed ??= import('undici/lib/dispatcher/socks5-proxy-agent.js').then(async ({ default: Socks5ProxyAgent }) => {
    const emit = process.emitWarning;
    process.emitWarning = () => undefined;
    let agent: { close(): Promise<void> };
    try {
      agent = new Socks5ProxyAgent('socks5://127.0.0.1:1080');
    } finally {
      process.emitWarning = emit;
    }
    await agent.close();
  }));

/**
 * undici's ProxyAgent for `proxy`. `tls` is read once undici has loaded, so an agent made while
 * the system store was being added still gets the roots of that moment.
 */
export function makeProxyAgent(
  proxy: string,
  timeoutMs: number,
  tls: () => { secureContext?: import('node:tls').SecureContext },
): Promise<Dispatcher> {
  return Promise.all([loadUndici(), /^socks5?:/i.test(proxy) ? hushSocksWarning() : undefined]).then(
    ([{ ProxyAgent }]) =>
      new ProxyAgent({
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        keepAliveTimeout: 10_000,
        connections: 8,
        // Credentials in the URL become Proxy-Authorization (undici decodes them).
        uri: proxy,
        // http:// targets go to an http proxy in absolute form, as curl does: many corporate
        // proxies refuse CONNECT to ports other than 443. https:// always tunnels (CONNECT).
        proxyTunnel: false,
        proxyTls: { timeout: timeoutMs, ...tls() },
        requestTls: { timeout: timeoutMs, ...tls() },
      }),
  );
}

/** One request on `dispatcher` (the ProxyAgent of the proxy `proxyFor` named). */
export async function requestProxied(
  req: WireRequest,
  dispatcher: Promise<Dispatcher>,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<WireHead> {
  const [{ request }, agent] = await Promise.all([loadUndici(), dispatcher]);
  // undici does not say when the request left: from here it may have (src/http/resend.ts).
  req.onSent?.();
  const res = await request.call(agent, {
    origin: req.url.origin,
    path: `${req.url.pathname}${req.url.search}`,
    method: req.method as Dispatcher.HttpMethod,
    headers: req.headers,
    body: req.body ?? null,
    signal,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
  const headers: Record<string, string> = {};
  const rawHeaders: [string, string][] = [];
  for (const [k, v] of Object.entries(res.headers)) {
    if (v === undefined) continue;
    const name = k.toLowerCase();
    headers[name] = Array.isArray(v) ? v.join(', ') : v;
    for (const one of Array.isArray(v) ? v : [v]) rawHeaders.push([name, one]);
  }
  return { status: res.statusCode, headers, rawHeaders, body: res.body };
}

/**
 * The one network path of the process. Every request rsi makes — API calls, OAuth discovery,
 * registration and its probe, token, refresh, revoke, doctor's probes, MCP — goes through `send`,
 * so these hold for all of them alike:
 *
 * - proxies: http_proxy for http://, HTTPS_PROXY for https://, ALL_PROXY for both, NO_PROXY, from
 *   the environment the composition root hands in, decided per URL by `proxyDecision`
 *   (src/http/proxy.ts: as curl reads them; loopback always direct). A direct request goes out on
 *   Node's own `http`/`https` client (already in Node's snapshot: nothing to load,
 *   docs/performance.md round 3); a proxied one on undici's ProxyAgent (CONNECT for https://,
 *   absolute form for http://, socks5), loaded only when a proxy is set;
 * - a whole-request deadline: `timeoutMs` bounds one attempt from connect to the last body byte
 *   (idle timeouts alone would let a server dripping a byte a second run forever);
 * - bounded bodies, counted after decompression (a small gzip bomb stops at the cap);
 * - trust: Node's bundled roots and NODE_EXTRA_CA_CERTS, and the operating system's store once a
 *   certificate fails without it (src/http/system-ca.ts; RSI_NO_SYSTEM_CA=1 turns that off);
 * - errors that say what failed: timeout, refused, TLS (naming the CA fix), the proxy;
 * - the redacting `--debug` trace, and no redaction work at all without `--debug`.
 */
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import {
  CliError,
  InterruptedError,
  ResponseTooLargeError,
  ServiceUnavailableError,
  UndecodableReplyError,
  UnexpectedReplyError,
  UsageError,
} from '../errors.js';
import { readBody } from './decode.js';
import {
  httpOnlyNote,
  isLoopback,
  proxyDecision,
  proxyFor,
  proxySettings,
  redactProxyUrl,
  type Env,
  type ProxyDecision,
  type ProxySettings,
} from './proxy.js';
import { Tracer, redactBody, redactHeaders, redactUrl } from './redact.js';
import { formatSeconds } from '../io/text.js';
import { readSystemStore, systemStoreOff, NO_SYSTEM_CA, type SystemStore } from './system-ca.js';

/** OAuth, discovery and probe replies are small documents: a megabyte is generous. */
export const OAUTH_MAX_BYTES = 1024 * 1024;
/** API replies: the largest page the spec allows is far below this. */
export const API_MAX_BYTES = 64 * 1024 * 1024;
const TRACE_BODY_CHARS = 2000;
/** The hint of a body that cannot be decoded: the bytes arrived, they are just not what they claim. */
const NOT_THE_NETWORK =
  'the service, or a proxy in front of it, sent a body its Content-Encoding header does not describe; this is not a network failure and retrying will not help';

export interface NetworkOptions {
  /** The process environment, for the proxy variables (read nowhere else). */
  env: Env;
  /** The whole-request deadline of one attempt, in milliseconds (`--http-timeout`). */
  timeoutMs: number;
  /** Where the `--debug` trace goes; undefined means no trace and no redaction work. */
  trace?: { write(chunk: string): unknown } | undefined;
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
  /** Hint when a request other than GET was cut off after it may have been processed. */
  hintIfSent?: string | undefined;
}

export interface WireResponse {
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** set-cookie and other repeated headers as sent, for building a fetch Response. */
  rawHeaders: [string, string][];
  body: Buffer;
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
}

type NodeHttp = typeof import('node:http');
/**
 * Node's own client for `url`, loaded on the first request of its scheme: `node:https` brings TLS
 * and crypto (~150 ms of a loaded machine), which a loopback http:// run never needs. The bundle
 * turns this import into a `require` (docs/architecture.md, "Node's built-ins").
 */
const nodeClient = async (url: URL): Promise<NodeHttp> =>
  url.protocol === 'https:' ? ((await import('node:https')) as unknown as NodeHttp) : import('node:http');

/** A reply's status line and headers, its body still to read. */
interface WireHead {
  status: number;
  headers: Record<string, string>;
  rawHeaders: [string, string][];
  body: Readable;
}

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

/** Failures that retrying cannot fix (TLS verification, proxy credentials): never retried. */
const permanent = new WeakSet<Error>();
export function isPermanentFailure(error: unknown): boolean {
  return error instanceof Error && permanent.has(error);
}
function markPermanent<E extends Error>(error: E): E {
  permanent.add(error);
  return error;
}

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

export class Network {
  readonly proxy: ProxySettings;
  readonly timeoutMs: number;
  /** Undefined without `--debug`. */
  readonly tracer: Tracer | undefined;
  /** undici's ProxyAgents, keyed by proxy URL, made on first use. */
  private readonly dispatchers = new Map<string, Promise<Dispatcher>>();
  /** Node's keep-alive agents for direct requests, by scheme, made on first use. */
  private readonly agents = new Map<string, import('node:http').Agent>();
  /** Agents replaced when the system store was added, still carrying requests; closed at the end. */
  private readonly retired: (import('node:http').Agent | Promise<Dispatcher>)[] = [];
  /** The operating system's trust store: not read until a certificate needs it. */
  private store: SystemStore;
  /** Counts the changes of roots, so a request that started before one can try again after it. */
  private trustEpoch = 0;
  private closed = false;

  constructor(options: NetworkOptions) {
    this.proxy = proxySettings(options.env);
    this.timeoutMs = options.timeoutMs;
    this.tracer = options.trace ? new Tracer(options.trace) : undefined;
    this.store = systemStoreOff(options.env) ? { state: 'off' } : { state: 'unread' };
  }

  /** TLS options every new connection takes: the system store's context once it is in use. */
  private tlsOptions(): { secureContext?: import('node:tls').SecureContext } {
    return this.store.state === 'added' ? { secureContext: this.store.context } : {};
  }

  /** The proxy that carries `url`, credentials redacted, or undefined when it goes direct. */
  proxyFor(url: URL): string | undefined {
    const proxy = proxyFor(url, this.proxy);
    return proxy === undefined ? undefined : redactProxyUrl(proxy);
  }

  /** Whether `url` names this machine's loopback, which is never proxied (for messages). */
  isLoopback(url: URL): boolean {
    return isLoopback(url.hostname);
  }

  /** Which variable names the proxy for `url` (for messages), if any. */
  proxySource(url: URL): string | undefined {
    const decision = proxyDecision(url, this.proxy);
    return decision.proxy === undefined ? undefined : decision.source;
  }

  /** `; <why http_proxy / HTTP_PROXY did not apply>` for an https:// URL, else '' (doctor). */
  httpOnlyNoteFor(url: URL): string {
    const note = url.protocol === 'https:' ? httpOnlyNote(this.proxy) : undefined;
    return note ? `; ${note}` : '';
  }

  /**
   * Why `url` goes direct or which proxy carries it (credentials redacted), or the usage error of
   * the variable that would, for doctor (which reports it as a failed check).
   */
  proxyDecision(url: URL): ProxyDecision | { proxy: undefined; why: 'invalid'; error: UsageError } {
    try {
      const decision = proxyDecision(url, this.proxy);
      return decision.proxy === undefined ? decision : { ...decision, proxy: redactProxyUrl(decision.proxy) };
    } catch (error) {
      if (error instanceof UsageError) return { proxy: undefined, why: 'invalid', error };
      throw error;
    }
  }

  /** undici's ProxyAgent for `proxy`, made on first use. */
  private dispatcher(proxy: string): Promise<Dispatcher> {
    let found = this.dispatchers.get(proxy);
    if (!found) {
      found = Promise.all([loadUndici(), /^socks5?:/i.test(proxy) ? hushSocksWarning() : undefined]).then(
        ([{ ProxyAgent }]) =>
          new ProxyAgent({
            headersTimeout: this.timeoutMs,
            bodyTimeout: this.timeoutMs,
            keepAliveTimeout: 10_000,
            connections: 8,
            // Credentials in the URL become Proxy-Authorization (undici decodes them).
            uri: proxy,
            // http:// targets go to an http proxy in absolute form, as curl does: many corporate
            // proxies refuse CONNECT to ports other than 443. https:// always tunnels (CONNECT).
            proxyTunnel: false,
            proxyTls: { timeout: this.timeoutMs, ...this.tlsOptions() },
            requestTls: { timeout: this.timeoutMs, ...this.tlsOptions() },
          }),
      );
      this.dispatchers.set(proxy, found);
    }
    return found;
  }

  async send(req: WireRequest): Promise<WireResponse> {
    const proxy = proxyFor(req.url, this.proxy);
    const tracer = this.tracer;
    const started = Date.now();
    if (tracer) this.traceRequest(tracer, req);
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), this.timeoutMs);
    const signal = req.signal ? AbortSignal.any([req.signal, deadline.signal]) : deadline.signal;
    const open = () => (proxy === undefined ? this.direct(req, signal) : this.proxied(req, proxy, signal));
    try {
      const epoch = this.trustEpoch;
      let res: WireHead;
      try {
        res = await open();
      } catch (error) {
        // A failed handshake sent nothing, so any method may go again, once, with the new roots.
        if (signal.aborted || !(await this.trustSystemStore(error, epoch))) throw error;
        res = await open();
      }
      if (res.status === 407 && proxy !== undefined) {
        res.body.destroy();
        throw this.proxyAuthError(req);
      }
      const body = await readBody(res.body, res.headers, req.maxBytes, {
        tooLarge: () => this.tooLarge(req),
        undecodable: (encoding, detail) =>
          new UndecodableReplyError(`the reply to ${this.where(req)} is not valid ${encoding}, as its Content-Encoding says (${detail})`, {
            hint: NOT_THE_NETWORK,
          }),
        unsupported: (encoding) =>
          new UndecodableReplyError(`the reply to ${this.where(req)} uses a content encoding rsi cannot read (${encoding})`, {
            hint: encoding === 'zstd' ? `Node ${process.version} cannot read zstd; Node 22.15 or later can` : NOT_THE_NETWORK,
          }),
      });
      if (tracer) this.traceResponse(tracer, req, res.status, res.headers, body, Date.now() - started);
      return { status: res.status, headers: res.headers, rawHeaders: res.rawHeaders, body };
    } catch (error) {
      throw this.classify(error, req, deadline.signal.aborted);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * A request that goes straight to the host, on Node's own HTTP client (in Node's snapshot, so
   * nothing to load or compile: docs/performance.md, round 3) and a keep-alive agent per scheme.
   */
  private async direct(req: WireRequest, signal: AbortSignal, fresh = false): Promise<WireHead> {
    const https = req.url.protocol === 'https:';
    const client = await nodeClient(req.url);
    // `agent: false` is one new connection for this request alone (see the retry below).
    const agent = fresh ? false : this.agent(https, client);
    return new Promise<WireHead>((resolve, reject) => {
      const headers: Record<string, string | number> = { ...req.headers };
      if (req.body !== undefined) headers['content-length'] = Buffer.byteLength(req.body);
      const outgoing = client
        .request(req.url, { method: req.method, headers, agent, signal }, (res) => {
          const { headers: joined, rawHeaders } = fromRaw(res.rawHeaders);
          resolve({ status: res.statusCode ?? 0, headers: joined, rawHeaders, body: res });
        })
        .on('error', (error) => {
          // A kept-alive connection the server closed while it sat idle (its keep-alive timeout,
          // e.g. while the person was in the browser during sign-in) fails the next request at
          // once, before any reply. The server never read that request, so it goes again on a new
          // connection, whatever its method: the pattern Node documents for `reusedSocket`, and
          // what Go's transport does for a request it never wrote. Not a retry of the request.
          if (!fresh && outgoing.reusedSocket && !signal.aborted && STALE_SOCKET.has(errorCode(error) ?? '')) {
            this.direct(req, signal, true).then(resolve, reject);
            return;
          }
          reject(error);
        });
      outgoing.end(req.body);
    });
  }

  /**
   * After a certificate Node's roots cannot vouch for: reads the system store (once) and, when it
   * is in use, makes new connections verify against both. True when the request should go again:
   * the roots changed since it started.
   */
  private async trustSystemStore(error: unknown, epoch: number): Promise<boolean> {
    if (!UNKNOWN_CA.has(errorCode(error) ?? '')) return false;
    if (this.store.state === 'unread') {
      const store = await readSystemStore();
      // Another request that failed alongside this one may have moved to the new roots already.
      const meanwhile = this.store as SystemStore;
      if (meanwhile.state !== 'unread') return meanwhile.state === 'added' && epoch !== this.trustEpoch;
      this.store = store;
      this.tracer?.line(`* ${describeStore(this.store)}`);
      if (this.store.state !== 'added') return false;
      this.trustEpoch++;
      // Connections already open keep their roots; these agents finish their requests and close at the end.
      const https = this.agents.get('https:');
      if (https) this.retired.push(https);
      this.agents.delete('https:');
      this.retired.push(...this.dispatchers.values());
      this.dispatchers.clear();
    }
    return this.store.state === 'added' && epoch !== this.trustEpoch;
  }

  private agent(https: boolean, client: NodeHttp): import('node:http').Agent {
    const key = https ? 'https:' : 'http:';
    let agent = this.agents.get(key);
    if (!agent) {
      const options = { keepAlive: true, maxSockets: 8, keepAliveMsecs: 10_000 };
      agent = new client.Agent(https ? { ...options, ...this.tlsOptions() } : options);
      this.agents.set(key, agent);
    }
    return agent;
  }

  /** A request through the proxy `proxyFor` named: undici's ProxyAgent (CONNECT for https://). */
  private async proxied(req: WireRequest, proxy: string, signal: AbortSignal): Promise<WireHead> {
    const [{ request }, dispatcher] = await Promise.all([loadUndici(), this.dispatcher(proxy)]);
    const res = await request.call(dispatcher, {
      origin: req.url.origin,
      path: `${req.url.pathname}${req.url.search}`,
      method: req.method as Dispatcher.HttpMethod,
      headers: req.headers,
      body: req.body ?? null,
      signal,
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs,
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

  /**
   * A fetch over `send` for oauth4webapi's customFetch and the probes: a global Response built from
   * the buffered, capped body. Redirects are never followed (oauth4webapi asks for 'manual').
   */
  readonly fetch = async (input: string | URL, init: FetchInit = {}): Promise<Response> => {
    const headers: Record<string, string> = {};
    const given = init.headers instanceof Headers ? Object.fromEntries(init.headers.entries()) : (init.headers ?? {});
    for (const [k, v] of Object.entries(given)) headers[k.toLowerCase()] = v;
    let body: string | undefined;
    if (init.body instanceof URLSearchParams) {
      body = init.body.toString();
      headers['content-type'] ??= 'application/x-www-form-urlencoded;charset=UTF-8';
    } else if (typeof init.body === 'string') body = init.body;
    const res = await this.send({
      method: init.method ?? 'GET',
      url: new URL(input),
      headers,
      body,
      signal: init.signal ?? undefined,
      maxBytes: init.maxBytes ?? OAUTH_MAX_BYTES,
    });
    const out = new Headers();
    for (const [k, v] of res.rawHeaders) out.append(k, v);
    const nullBody = [101, 103, 204, 205, 304].includes(res.status);
    return new Response(nullBody ? null : new Uint8Array(res.body), { status: res.status, headers: out });
  };

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const retired = this.retired.filter((one): one is import('node:http').Agent => !(one instanceof Promise));
    for (const agent of [...this.agents.values(), ...retired]) agent.destroy();
    const dispatchers = [...this.dispatchers.values(), ...this.retired.filter((one) => one instanceof Promise)];
    await Promise.all(dispatchers.map((d) => d.then((one) => one.destroy()).catch(() => undefined)));
  }

  private traceRequest(tracer: Tracer, req: WireRequest): void {
    // Redact (and learn the secrets of) everything before printing any of it.
    const line = `> ${req.method} ${redactUrl(req.url.href, tracer.learn)}`;
    const headers = redactHeaders(req.headers, tracer.learn);
    const body = req.body ? redactBody(req.body, req.headers['content-type'] ?? '', tracer.learn) : undefined;
    tracer.line(line);
    const proxy = this.proxyFor(req.url);
    if (proxy) tracer.line(`* through proxy ${proxy}`);
    for (const [k, v] of Object.entries(headers)) tracer.line(`> ${k}: ${v}`);
    if (body) tracer.line(`> ${truncate(tracer.scrub(body), TRACE_BODY_CHARS)}`);
  }

  private traceResponse(tracer: Tracer, req: WireRequest, status: number, headers: Record<string, string>, body: Buffer, ms: number) {
    const redacted = redactHeaders(headers, tracer.learn);
    const text = body.length ? redactBody(body.toString('utf8'), headers['content-type'] ?? 'application/octet-stream', tracer.learn) : '';
    tracer.line(`< ${status} ${req.method} ${redactUrl(`${req.url.origin}${req.url.pathname}`)} (${ms} ms)`);
    for (const [k, v] of Object.entries(redacted)) tracer.line(`< ${k}: ${v}`);
    if (text) tracer.line(`< ${truncate(tracer.scrub(text), TRACE_BODY_CHARS)}`);
  }

  private where(req: WireRequest): string {
    return `${req.method} ${req.url.origin}${req.url.pathname}`;
  }

  private tooLarge(req: WireRequest): ResponseTooLargeError {
    return new ResponseTooLargeError(`the reply to ${this.where(req)} is larger than ${formatBytes(req.maxBytes)}; refusing it`, {
      hint: 'this is not a network failure and retrying will not help; report it if the service should send that much',
    });
  }

  private proxyAuthError(req: WireRequest): ServiceUnavailableError {
    const source = this.proxySource(req.url) ?? 'HTTPS_PROXY';
    return markPermanent(
      new ServiceUnavailableError(`the proxy ${this.proxyFor(req.url)} refused ${this.where(req)}: it wants credentials (407)`, 407, {
        hint: `put them in the proxy URL: ${source}=http://user:password@host:port (percent-encode special characters)`,
      }),
    );
  }

  /** Maps whatever undici or the deadline threw to a CliError that says what failed. */
  classify(error: unknown, req: WireRequest, deadlineFired: boolean): Error {
    if (req.signal?.aborted) return req.signal.reason instanceof Error ? req.signal.reason : new InterruptedError();
    if (error instanceof CliError) return error;
    const where = this.where(req);
    const code = errorCode(error);
    const timedOut =
      deadlineFired || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT';
    if (timedOut) {
      const failure = new ServiceUnavailableError(`${where} timed out after ${formatSeconds(this.timeoutMs)}`, undefined, {
        hint: this.httpOnlyHint(req) ?? 'the service may be slow or unreachable; try again, or raise --http-timeout',
        cause: error,
      });
      failure.timedOut = true;
      return failure;
    }
    // A reply that is not HTTP at all arrived whole: the network carried it faithfully, and asking
    // again gets the same bytes. Usually another program on that port.
    if (code?.startsWith('HPE_')) {
      const detail = (error instanceof Error ? error.message : code).replace(/^Parse Error: /, '');
      return new UnexpectedReplyError(`the reply to ${where} is not valid HTTP (${detail})`, {
        hint: 'check that --base-url names the service, its port and scheme (a TLS port needs https://); a proxy or gateway in front of it may also garble replies',
        cause: error,
      });
    }
    const tls = tlsFailure(code, req.url.host, this.store, error instanceof Error ? error.message : '');
    if (tls) {
      return markPermanent(
        new ServiceUnavailableError(`cannot reach the service (${where}): ${tls.reason}`, undefined, { hint: tls.hint, cause: error }),
      );
    }
    const proxy = this.proxyFor(req.url);
    const message = this.scrubProxy(error instanceof Error ? error.message : String(error));
    if (proxy) {
      const source = this.proxySource(req.url);
      const tunnel = /Proxy response \((\d+)\)/.exec(message);
      if (tunnel?.[1] === '407' || /\(407\)/.test(message)) return this.proxyAuthError(req);
      const hint = `check ${source}, or list the service's host in NO_PROXY if it should be reached directly`;
      if (tunnel) {
        // The proxy answered and said no (403: its policy; 5xx: it could not, or would not, reach
        // the host). curl makes one try and says so; retrying would ask the same proxy the same
        // question four times.
        return markPermanent(
          new ServiceUnavailableError(
            `the proxy ${proxy} (${source}) would not open a tunnel to ${req.url.host} (${tunnel[1]}); ${where} was not sent`,
            undefined,
            { hint, cause: error },
          ),
        );
      }
      return new ServiceUnavailableError(
        `cannot reach the proxy ${proxy} (${source}): ${networkReason(code, message)}; ${where} was not sent`,
        undefined,
        { hint, cause: error },
      );
    }
    // A request other than GET cut off after it was sent may have been processed: say so.
    const sent = req.method !== 'GET' && code !== 'ECONNREFUSED' && code !== 'ENOTFOUND' && code !== 'EAI_AGAIN';
    return new ServiceUnavailableError(`cannot reach the service (${where}): ${networkReason(code, message)}`, undefined, {
      hint:
        sent && req.hintIfSent ? req.hintIfSent : (this.httpOnlyHint(req) ?? 'check the base URL and your network, or run `rsi doctor`'),
      cause: error,
    });
  }

  /**
   * rsi once sent https:// through HTTP_PROXY (undici's habit); curl and Go never do. Someone who
   * relied on that, and whose network needs the proxy, learns what to set when a direct https://
   * request fails while only an http proxy is set.
   */
  private httpOnlyHint(req: WireRequest): string | undefined {
    const note = httpOnlyNote(this.proxy);
    if (!note || req.url.protocol !== 'https:' || isLoopback(req.url.hostname)) return undefined;
    return `set HTTPS_PROXY (or ALL_PROXY) if https:// needs the proxy: ${note}`;
  }

  /** undici's messages do not carry the proxy URL today; this keeps it so if one ever does. */
  private scrubProxy(message: string): string {
    let out = message;
    for (const proxy of [this.proxy.http, this.proxy.https]) {
      if (!proxy) continue;
      const url = new URL(proxy);
      for (const secret of [url.password, decodeURIComponent(url.password), proxy]) {
        if (secret) out = out.split(secret).join(secret === proxy ? redactProxyUrl(proxy) : '[redacted]');
      }
    }
    return out;
  }
}

function errorCode(error: unknown): string | undefined {
  const e = error as { code?: unknown; cause?: { code?: unknown } } | undefined;
  const code = typeof e?.code === 'string' ? e.code : typeof e?.cause?.code === 'string' ? e.cause.code : undefined;
  return code;
}

function networkReason(code: string | undefined, message: string): string {
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host not found';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'the connection was closed unexpectedly';
    default:
      return message;
  }
}

/** How a kept-alive connection the server already closed fails the next request sent on it. */
const STALE_SOCKET = new Set(['ECONNRESET', 'EPIPE']);
const UNKNOWN_CA = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
]);

/** OpenSSL's other certificate verdicts (X509_V_ERR_*, as Node names them). */
const REJECTED_CERT = new Set([
  'UNABLE_TO_DECRYPT_CERT_SIGNATURE',
  'UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY',
  'ERROR_IN_CERT_NOT_BEFORE_FIELD',
  'ERROR_IN_CERT_NOT_AFTER_FIELD',
  'CERT_CHAIN_TOO_LONG',
  'CERT_REVOKED',
  'INVALID_CA',
  'PATH_LENGTH_EXCEEDED',
  'INVALID_PURPOSE',
  'CERT_REJECTED',
]);

/**
 * A TLS verification failure, with the fix named. For an unknown CA the fix depends on where the
 * system store stands (src/http/system-ca.ts): already trusted and the CA not in it, turned off,
 * or out of this Node's reach (before 22.15).
 */
export function tlsFailure(
  code: string | undefined,
  host: string,
  store: SystemStore,
  message = '',
): { reason: string; hint: string } | undefined {
  if (!code) return undefined;
  // OpenSSL's own text ("…:SSL routines:ssl3_get_record:wrong version number:../deps/…") is for
  // its developers: the one case a person meets is an https:// address on a port that is not TLS.
  if (code === 'EPROTO' || code.startsWith('ERR_SSL_')) {
    const plain = /wrong version number|packet length too long|http request/i.test(message);
    const what = /SSL routines:[^:]*:([^:]+)/.exec(message)?.[1] ?? code;
    return plain
      ? {
          reason: `${host} does not answer in TLS on that port (${what})`,
          hint: 'check the port in --base-url; a service that speaks plain HTTP needs an http:// address, which rsi accepts for loopback only',
        }
      : { reason: `the TLS handshake with ${host} failed (${what})`, hint: 'check --base-url, and any proxy or gateway that handles TLS' };
  }
  if (UNKNOWN_CA.has(code)) {
    const self = code === 'DEPTH_ZERO_SELF_SIGNED_CERT' || code === 'SELF_SIGNED_CERT_IN_CHAIN';
    const who = store.state === 'added' ? "Node and this system's trust store do not trust" : 'Node does not trust';
    return {
      reason: `the TLS certificate of ${host} is ${self ? 'self-signed or signed by an unknown authority' : `signed by an authority ${who}`} (${code})`,
      hint: `if your network uses its own certificate authority (a corporate proxy or gateway), trust it: ${caFix(store)}`,
    };
  }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID' || code === 'HOSTNAME_MISMATCH') {
    return {
      reason: `the TLS certificate presented for ${host} is for another host name (${code})`,
      hint: "check --base-url: use the host name the service's certificate names; a proxy that intercepts TLS must issue certificates for the real host",
    };
  }
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID') {
    return {
      reason: `the TLS certificate of ${host} ${code === 'CERT_HAS_EXPIRED' ? 'has expired' : 'is not valid yet'} (${code})`,
      hint: "check your computer's clock (NTP); if it is right, the service must renew its certificate",
    };
  }
  // Every other verdict of OpenSSL's certificate check: the network delivered the certificate
  // faithfully, and asking again gets the same one.
  if (REJECTED_CERT.has(code)) {
    return {
      reason: `the TLS certificate of ${host} was rejected (${code})`,
      hint: 'the certificate the service (or a proxy or gateway in front of it) presents cannot be used for TLS; its owner must replace it',
    };
  }
  return undefined;
}

/** The ways to trust a CA that are open, given where the system store stands. */
function caFix(store: SystemStore): string {
  const file = 'NODE_EXTRA_CA_CERTS=/path/ca.pem';
  switch (store.state) {
    case 'added':
    case 'unread':
      return `install it in the system's trust store (where IT installs it; update-ca-certificates on Debian), or ${file}`;
    case 'off':
      return `${file}, or let rsi read the system's trust store: unset ${NO_SYSTEM_CA}`;
    case 'unavailable':
      return `${file} (Node ${store.nodeVersion} cannot read the system's trust store; on Node 22.15 or later rsi trusts it too)`;
    case 'unreadable':
      return `${file} (the system's trust store could not be read: ${store.reason})`;
  }
}

/** The `--debug` trace line for the moment the system store was looked at. */
function describeStore(store: SystemStore): string {
  switch (store.state) {
    case 'added':
      return `certificate not trusted by Node's roots: trying again with the system's trust store (${store.count} more certificates)`;
    case 'unavailable':
      return `certificate not trusted by Node's roots; Node ${store.nodeVersion} cannot read the system's trust store`;
    case 'unreadable':
      return `certificate not trusted by Node's roots; the system's trust store could not be read: ${store.reason}`;
    default:
      return `certificate not trusted by Node's roots (system trust store: ${store.state})`;
  }
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;
}

function formatBytes(n: number): string {
  return n >= 1024 * 1024 ? `${n / (1024 * 1024)} MiB` : `${n} bytes`;
}

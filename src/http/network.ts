/**
 * The one network path of the process. Every request rsi makes — API calls, OAuth discovery,
 * registration and its probe, token, refresh, revoke, doctor's probes, MCP — goes through `send`,
 * so these hold for all of them alike:
 *
 * - proxies: http_proxy for http://, HTTPS_PROXY for https://, ALL_PROXY for both, NO_PROXY, from
 *   the environment the composition root hands in, decided per URL by `proxyDecision`
 *   (src/http/proxy.ts: as curl reads them; loopback always direct). A direct request goes out on
 *   Node's own `http`/`https` client (already in Node's snapshot: nothing to load,
 *   docs/performance.md round 3), and so does one through an http(s) proxy, with rsi's own CONNECT
 *   (src/http/tunnel.ts: one connection per attempt, under the attempt's signal), and so does one
 *   through a socks5 proxy (the same tunnel, opened with rsi's own SOCKS5 handshake);
 * - a whole-request deadline: `timeoutMs` bounds one attempt from connect (the proxy's CONNECT and
 *   TLS included) to the last body byte (idle timeouts alone would let a server dripping a byte a
 *   second run forever);
 * - bounded bodies, counted after decompression (a small gzip bomb stops at the cap);
 * - trust: Node's bundled roots and NODE_EXTRA_CA_CERTS, and the operating system's store once a
 *   certificate fails without it (src/http/system-ca.ts; RSI_NO_SYSTEM_CA=1 turns that off);
 * - errors that say what failed: timeout, refused, TLS (naming the CA fix), the proxy;
 * - the redacting `--debug` trace, and no redaction work at all without `--debug`.
 */
import {
  CliError,
  InterruptedError,
  ResponseTooLargeError,
  ServiceUnavailableError,
  UndecodableReplyError,
  UnexpectedReplyError,
  UsageError,
} from '../errors.js';
import { formatSeconds } from '../io/text.js';
import { capStream, readBody } from './decode.js';
import { type NodeHttp, neverSent, requestDirect } from './direct.js';
import { absoluteForm, isSocks, makePlainTunnelAgent, makeTunnelAgent, TUNNEL_SIGNAL, TunnelError } from './tunnel.js';
import {
  httpOnlyNote,
  isLoopback,
  proxyDecision,
  proxyFor,
  proxySettings,
  redactProxyUrl,
  type ProxyDecision,
  type ProxySettings,
} from './proxy.js';
import { Tracer } from './redact.js';
import { Secrets } from '../io/secrets.js';
import { readSystemStore, systemStoreOff, type SystemStore } from './system-ca.js';
import { UNKNOWN_CA, describeStore, errorCode, markPermanent, networkReason, tlsFailure } from './tls-errors.js';
import { traceRequest, traceResponse } from './trace.js';
import { IDLE_REUSE_MS, isIdempotent, maySendAgain, outcomeUnknown } from './resend.js';
import { OAUTH_MAX_BYTES, type FetchInit, type NetworkOptions, type WireHead, type WireRequest, type WireResponse } from './wire.js';

/** The hint of a body that cannot be decoded: the bytes arrived, they are just not what they claim. */
const NOT_THE_NETWORK =
  'the service, or a proxy in front of it, sent a body its Content-Encoding header does not describe; this is not a network failure and retrying will not help';

const AGENT_OPTIONS = { keepAlive: true, maxSockets: 8, keepAliveMsecs: 10_000 };

export class Network {
  readonly proxy: ProxySettings;
  readonly timeoutMs: number;
  /** Undefined without `--debug`. */
  readonly tracer: Tracer | undefined;
  /** Every token this run holds (src/io/secrets.ts): the OAuth steps and token providers add theirs. */
  readonly secrets: Secrets;
  /** Node's keep-alive agents for direct requests, by scheme, made on first use. */
  private readonly agents = new Map<string, import('node:http').Agent>();
  /** Keep-alive agents whose connections are tunnels, by proxy URL and target scheme (src/http/tunnel.ts). */
  private readonly tunnels = new Map<string, Promise<import('node:http').Agent>>();
  /** Agents replaced when the system store was added, still carrying requests; closed at the end. */
  private readonly retired: (import('node:http').Agent | Promise<import('node:http').Agent>)[] = [];
  /** The operating system's trust store: not read until a certificate needs it. */
  private store: SystemStore;
  /** Counts the changes of roots, so a request that started before one can try again after it. */
  private trustEpoch = 0;
  private closed = false;
  /** When a request to an origin last settled: how long its kept-alive connections sat idle. */
  private readonly lastUsed = new Map<string, number>();

  constructor(options: NetworkOptions) {
    this.proxy = proxySettings(options.env);
    this.timeoutMs = options.timeoutMs;
    this.secrets = options.secrets ?? new Secrets();
    this.tracer = options.trace ? new Tracer(options.trace, this.secrets) : undefined;
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

  async send(req: WireRequest): Promise<WireResponse> {
    const proxy = proxyFor(req.url, this.proxy);
    const tracer = this.tracer;
    const started = Date.now();
    if (tracer) traceRequest(tracer, req, this.proxyFor(req.url));
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), this.timeoutMs);
    const signal = req.signal ? AbortSignal.any([req.signal, deadline.signal]) : deadline.signal;
    const open = () => (proxy === undefined ? this.direct(req, signal) : this.proxied(req, proxy, signal));
    let handedOver = false;
    try {
      const epoch = this.trustEpoch;
      let res: WireHead;
      try {
        res = await open();
      } catch (error) {
        // A failed handshake sent nothing, so the send rule lets any method go again, once, with the new roots.
        if (signal.aborted || !maySendAgain(req.method, { sent: !neverSent(error) }) || !(await this.trustSystemStore(error, epoch)))
          throw error;
        res = await open();
      }
      if (res.status === 407 && proxy !== undefined) {
        res.body.destroy();
        throw this.proxyAuthError(req);
      }
      if (req.streamIf?.(res.status, res.headers) && !res.headers['content-encoding']) {
        if (tracer) traceResponse(tracer, req, res.status, res.headers, Buffer.alloc(0), Date.now() - started);
        tracer?.line('< (an event stream, passed on as it arrives)');
        handedOver = true;
        const stream = await capStream(
          res.body,
          req.maxBytes,
          () => this.tooLarge(req),
          () => clearTimeout(timer),
        );
        return { status: res.status, headers: res.headers, rawHeaders: res.rawHeaders, body: Buffer.alloc(0), stream };
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
      if (tracer) traceResponse(tracer, req, res.status, res.headers, body, Date.now() - started);
      return { status: res.status, headers: res.headers, rawHeaders: res.rawHeaders, body };
    } catch (error) {
      throw this.classify(error, req, deadline.signal.aborted);
    } finally {
      if (!handedOver) clearTimeout(timer);
      this.lastUsed.set(req.url.origin, Date.now());
    }
  }

  /**
   * A direct request on its scheme's keep-alive agent (direct.ts); one never sent twice (resend.ts) on a new
   * connection after an idle spell, when a server's keep-alive timeout may be closing the kept one.
   */
  private direct(req: WireRequest, signal: AbortSignal): Promise<WireHead> {
    const idle = Date.now() - (this.lastUsed.get(req.url.origin) ?? Number.NEGATIVE_INFINITY);
    return requestDirect(req, signal, (https, client) => this.agent(https, client), !isIdempotent(req.method) && idle > IDLE_REUSE_MS);
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
      this.retired.push(...this.tunnels.values());
      this.tunnels.clear();
    }
    return this.store.state === 'added' && epoch !== this.trustEpoch;
  }

  private agent(https: boolean, client: NodeHttp): import('node:http').Agent {
    const key = https ? 'https:' : 'http:';
    let agent = this.agents.get(key);
    if (!agent) {
      agent = new client.Agent(https ? { ...AGENT_OPTIONS, ...this.tlsOptions() } : AGENT_OPTIONS);
      this.agents.set(key, agent);
    }
    return agent;
  }

  /**
   * A request through the proxy `proxyFor` named, on Node's client with rsi's own tunnel
   * (src/http/tunnel.ts: an HTTP CONNECT or a SOCKS5 one), one connection per attempt under the
   * attempt's signal; an http:// target through an http(s) proxy goes in absolute form instead.
   */
  private async proxied(req: WireRequest, proxy: string, signal: AbortSignal): Promise<WireHead> {
    const proxyUrl = new URL(proxy);
    const socks = isSocks(proxyUrl);
    if (req.url.protocol === 'http:' && !socks) {
      const { url, headers } = absoluteForm(req, proxyUrl);
      return requestDirect(req, signal, (https, client) => this.agent(https, client), false, { url, path: req.url.href, headers });
    }
    const key = `${req.url.protocol} ${proxy}`;
    let tunnels = this.tunnels.get(key);
    if (!tunnels) {
      tunnels =
        req.url.protocol === 'http:'
          ? makePlainTunnelAgent(proxyUrl, AGENT_OPTIONS)
          : makeTunnelAgent(proxyUrl, AGENT_OPTIONS, () => this.tlsOptions());
      this.tunnels.set(key, tunnels);
    }
    const agent = await tunnels;
    return requestDirect(req, signal, () => agent, false, { url: req.url, options: { [TUNNEL_SIGNAL]: signal }, freshAgent: agent });
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
      streamIf: init.streamIf,
    });
    const out = new Headers();
    for (const [k, v] of res.rawHeaders) out.append(k, v);
    const nullBody = [101, 103, 204, 205, 304].includes(res.status);
    if (res.stream) {
      const { Readable } = await import('node:stream');
      return new Response(Readable.toWeb(res.stream) as ReadableStream<Uint8Array>, { status: res.status, headers: out });
    }
    return new Response(nullBody ? null : new Uint8Array(res.body), { status: res.status, headers: out });
  };

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const retired = this.retired.filter((one): one is import('node:http').Agent => !(one instanceof Promise));
    for (const agent of [...this.agents.values(), ...retired]) agent.destroy();
    const later = [...this.tunnels.values(), ...this.retired.filter((one) => one instanceof Promise)];
    // Agents still being made are destroyed once made, waited for a second at most: closing must
    // never keep a process that was told to stop.
    const destroyed = Promise.all(later.map((d) => d.then((one) => one.destroy()).catch(() => undefined)));
    await Promise.race([destroyed, new Promise((done) => setTimeout(done, 1000).unref())]);
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

  /** Maps whatever Node's client, the tunnel or the deadline threw to a CliError that says what failed. */
  classify(error: unknown, req: WireRequest, deadlineFired: boolean): Error {
    if (req.signal?.aborted) return req.signal.reason instanceof Error ? req.signal.reason : new InterruptedError();
    if (error instanceof CliError) return error;
    const where = this.where(req);
    const code = errorCode(error);
    // Not idempotent, and it may have reached the service: its outcome is unknown.
    const unknownOutcome = outcomeUnknown(req.method, { sent: !neverSent(error) });
    const timedOut = deadlineFired;
    if (timedOut) {
      const proxied = this.proxyFor(req.url);
      const through = proxied ? ` (through the proxy ${proxied}, ${this.proxySource(req.url)})` : '';
      const failure = new ServiceUnavailableError(`${where} timed out after ${formatSeconds(this.timeoutMs)}${through}`, undefined, {
        hint:
          (unknownOutcome ? req.hintIfSent : undefined) ??
          this.httpOnlyHint(req) ??
          (proxied
            ? `the proxy or the service may be slow or unreachable; check ${this.proxySource(req.url)}, or raise --http-timeout`
            : 'the service may be slow or unreachable; try again, or raise --http-timeout'),
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
      if (error instanceof TunnelError && error.code !== 'RSI_PROXY_REFUSED') {
        const hint =
          error.code === 'RSI_PROXY_AUTH'
            ? `put the proxy's user name and password in ${source} (socks5h://user:password@host:port, percent-encoded)`
            : error.code === 'RSI_PROXY_RESOLVE'
              ? `set ${source}=socks5h://… to let the proxy resolve names, or list the service's host in NO_PROXY`
              : `check ${source}, or list the service's host in NO_PROXY if it should be reached directly`;
        const failure = new ServiceUnavailableError(
          `the proxy ${proxy} (${source}) ${this.scrubProxy(error.message)}; ${where} was not sent`,
          undefined,
          {
            hint,
            cause: error,
          },
        );
        // Garbage, a refused sign-in or a SOCKS5 refusal comes again if asked again (curl makes
        // one try); a closed connection may be a moment's trouble.
        return error.code === 'RSI_PROXY_CLOSED' ? failure : markPermanent(failure);
      }
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
    return new ServiceUnavailableError(`cannot reach the service (${where}): ${networkReason(code, message)}`, undefined, {
      hint:
        unknownOutcome && req.hintIfSent
          ? req.hintIfSent
          : (this.httpOnlyHint(req) ?? 'check the base URL and your network, or run `rsi doctor`'),
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

  /** Node's messages do not carry the proxy URL today; this keeps it so if one ever does. */
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

function formatBytes(n: number): string {
  return n >= 1024 * 1024 ? `${n / (1024 * 1024)} MiB` : `${n} bytes`;
}

/**
 * The API's retry layer: the API base URL, safe retries (the one send rule of src/http/resend.ts:
 * the method and what is known of the attempt decide) with the wait src/http/retry-after.ts
 * decides (Retry-After honoured, else jittered backoff), one refresh and
 * retry on 401 through the AuthProvider port, same-origin 307/308 followed. The wire itself (proxies, the whole-request deadline, bounded bodies, the redacting trace) is the
 * process's one `Network`, which the OAuth calls share.
 */
import { InterruptedError, ServiceUnavailableError } from '../errors.js';
import type { Clock } from '../io/io.js';
import { parseJson } from '../io/json.js';
import type { AuthProvider, Http, HttpRequest, HttpResponse } from './types.js';
import type { Network } from './network.js';
import { API_MAX_BYTES } from './wire.js';
import { isPermanentFailure } from './tls-errors.js';
import { apiBaseOf, pathUnderApi } from './api-path.js';
import { MAX_REDIRECTS, followableRedirect } from './redirect.js';
import { redactUrl } from './redact.js';
import { backoffMs, retryWait } from './retry-after.js';
import { maySendAgain } from './resend.js';

export interface HttpOptions {
  /** Service base URL; the API lives at `<baseUrl>/api/v1`. */
  baseUrl: string;
  auth?: AuthProvider;
  timeoutMs: number;
  userAgent: string;
  clock: Clock;
  /** Where the debug trace goes when no network is given (tests); undefined means no trace. */
  trace?: { write(chunk: string): unknown };
  /** Retries after the first attempt, for the requests the send rule lets go again. */
  maxRetries?: number;
  /** Random source for jitter, injectable for tests. */
  random?: () => number;
}

/** Replies worth asking again after a wait; whether a request may go again is resend.ts's. */
const RETRY_STATUSES = new Set([429, 502, 503, 504]);

export class RetryingHttp implements Http {
  readonly apiBase: string;
  /** The process's one network, owned (and closed) by the Context. */
  constructor(
    private readonly options: HttpOptions,
    private readonly network: Network,
  ) {
    this.apiBase = apiBaseOf(options.baseUrl);
  }

  async request(req: HttpRequest): Promise<HttpResponse> {
    let url = this.url(req);
    const redirects: NonNullable<HttpResponse['redirects']>[number][] = [];
    const maxRetries = this.options.maxRetries ?? 3;
    let token = this.options.auth ? await this.options.auth.getAccessToken(req.signal) : undefined;
    let refreshed = false;
    for (let attempt = 0; ; attempt++) {
      let res: HttpResponse;
      // Whether a byte of this attempt may have reached the server (src/http/direct.ts says).
      let sent = false;
      try {
        res = await this.send(req, url, token, () => {
          sent = true;
          req.onSent?.();
        });
      } catch (error) {
        const failure = error as Error;
        // A timed-out request is retried once at most: a hung server should fail in reasonable time.
        // An untrusted certificate or a proxy wanting credentials will not go away by itself.
        const retriable =
          failure instanceof ServiceUnavailableError && !isPermanentFailure(failure) && (!failure.timedOut || attempt === 0);
        if (maySendAgain(req.method, { sent }) && attempt < maxRetries && retriable && !req.signal?.aborted) {
          const waitMs = backoffMs(attempt, this.options.random);
          req.onRetry?.(waitMs);
          await this.pause(waitMs, req.signal, `${failure.message}; retrying`);
          continue;
        }
        throw failure;
      }
      if (res.status === 401 && this.options.auth && token !== undefined && !refreshed && maySendAgain(req.method, { status: 401 })) {
        refreshed = true;
        const next = await this.options.auth.refreshAfterUnauthorized(token, req.signal);
        if (next !== undefined && next !== token) {
          // The server did not process a request it refused with 401, so resending is safe.
          token = next;
          attempt--;
          continue;
        }
      }
      const next = redirects.length < MAX_REDIRECTS ? followableRedirect(req.method, url, res) : undefined;
      if (next) {
        // Same origin, so the Authorization header stays where it was meant to go; method and
        // body go again unchanged, as 307 and 308 require. Not counted as a retry.
        this.trace(`* ${res.status} to ${redactUrl(next.href)}: following (same origin)`);
        redirects.push({ url: url.href, status: res.status, headers: res.headers });
        url = next;
        attempt--;
        continue;
      }
      if (
        RETRY_STATUSES.has(res.status) &&
        attempt < maxRetries &&
        maySendAgain(req.method, { status: res.status, retryAfter: res.headers['retry-after'] })
      ) {
        const { waitMs, retry } = retryWait(res.headers['retry-after'], {
          now: this.options.clock.now(),
          attempt,
          random: this.options.random,
        });
        // Asked to wait longer than rsi waits by itself: the reply goes to the caller as it is.
        if (retry) {
          req.onRetry?.(waitMs);
          await this.pause(waitMs, req.signal, `${res.status} from ${req.method} ${req.path}; retrying in ${Math.round(waitMs)} ms`);
          continue;
        }
      }
      return redirects.length > 0 ? { ...res, redirects } : res;
    }
  }

  /** Nothing of its own to release: the network belongs to the Context. */
  async close(): Promise<void> {}

  private url(req: HttpRequest): URL {
    const url = new URL(`${this.apiBase}${pathUnderApi(req.path)}`);
    for (const [key, value] of Object.entries(req.query ?? {})) {
      if (value === undefined) continue;
      if (Array.isArray(value)) for (const v of value) url.searchParams.append(key, String(v));
      else url.searchParams.set(key, String(value));
    }
    return url;
  }

  private async send(req: HttpRequest, url: URL, token: string | undefined, onSent: () => void): Promise<HttpResponse> {
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': this.options.userAgent };
    // The caller's extra headers (`rsi api -H`) go first, so authorization below is always rsi's own.
    for (const [name, value] of Object.entries(req.headers ?? {})) headers[name.toLowerCase()] = value;
    if (token !== undefined) headers.authorization = `Bearer ${token}`;
    let body: string | undefined;
    if (req.body !== undefined) {
      body = JSON.stringify(req.body);
      headers['content-type'] = 'application/json';
    }
    const res = await this.network.send({
      method: req.method,
      url,
      headers,
      body,
      signal: req.signal,
      maxBytes: API_MAX_BYTES,
      onSent,
      hintIfSent:
        req.ifOutcomeUnknown ?? 'the service may have processed the request: check (rsi projects list, rsi status) before running it again',
    });
    const text = res.body.toString('utf8');
    const isJsonType = /\bjson\b/i.test(res.headers['content-type'] ?? '');
    let json: unknown;
    let isJson = false;
    if (isJsonType && text.length > 0) {
      try {
        json = parseJson(text);
        isJson = true;
      } catch {
        isJson = false;
      }
    }
    return { status: res.status, headers: res.headers, text, json, isJson, url: url.href };
  }

  private async pause(ms: number, signal: AbortSignal | undefined, why: string): Promise<void> {
    this.trace(`* ${why}`);
    try {
      await this.options.clock.sleep(ms, signal);
    } catch {
      throw signal?.reason instanceof Error ? signal.reason : new InterruptedError();
    }
  }

  private trace(line: string): void {
    this.network.tracer?.line(line);
  }
}

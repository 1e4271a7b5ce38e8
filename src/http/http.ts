/**
 * The HTTP layer on undici: one keep-alive pool per process, connect/headers/body timeouts, safe
 * retries with jittered backoff (idempotent requests only, honouring Retry-After), one refresh and
 * retry on 401 through the AuthProvider port, and a redacting `--debug` trace.
 */
import { Agent, request as undiciRequest, errors as undiciErrors, type Dispatcher } from 'undici';
import type { Writable } from 'node:stream';
import { InterruptedError, NotSignedInError, ServiceUnavailableError } from '../errors.js';
import type { Clock } from '../io/io.js';
import type { AuthProvider, Http, HttpRequest, HttpResponse } from './types.js';
import { redactBody, redactHeaders, redactUrl } from './redact.js';
import { apiBaseOf, pathUnderApi } from './api-path.js';

export interface HttpOptions {
  /** Service base URL; the API lives at `<baseUrl>/api/v1`. */
  baseUrl: string;
  auth?: AuthProvider;
  timeoutMs: number;
  userAgent: string;
  clock: Clock;
  /** Where the debug trace goes; undefined means no trace. */
  trace?: Writable;
  /** Retries after the first attempt for idempotent requests. */
  maxRetries?: number;
  /** Random source for jitter, injectable for tests. */
  random?: () => number;
}

const RETRY_STATUSES = new Set([429, 502, 503, 504]);
const MAX_RETRY_AFTER_MS = 10_000;
const MAX_BODY_BYTES = 64 * 1024 * 1024;

/** A pool shared by every Http and by the OAuth calls of one process. */
export function createAgent(timeoutMs: number): Agent {
  return new Agent({
    connect: { timeout: timeoutMs },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    keepAliveTimeout: 10_000,
    connections: 8,
  });
}

export class UndiciHttp implements Http {
  readonly apiBase: string;
  private readonly agent: Agent;
  private readonly ownsAgent: boolean;

  constructor(
    private readonly options: HttpOptions,
    agent?: Agent,
  ) {
    this.apiBase = apiBaseOf(options.baseUrl);
    this.agent = agent ?? createAgent(options.timeoutMs);
    this.ownsAgent = agent === undefined;
  }

  async request(req: HttpRequest): Promise<HttpResponse> {
    const url = this.url(req);
    // As the port documents: only a GET is retried unless the caller vouches for the request.
    const idempotent = req.idempotent ?? req.method === 'GET';
    const maxRetries = idempotent ? (this.options.maxRetries ?? 3) : 0;
    let token = this.options.auth ? await this.options.auth.getAccessToken(req.signal) : undefined;
    let refreshed = false;
    for (let attempt = 0; ; attempt++) {
      let res: HttpResponse;
      try {
        res = await this.send(req, url, token);
      } catch (error) {
        const failure = this.classify(error, req, url);
        // A timed-out request is retried once at most: a hung server should fail in reasonable time.
        const retriable = failure instanceof ServiceUnavailableError && (!failure.timedOut || attempt === 0);
        if (attempt < maxRetries && retriable && !req.signal?.aborted) {
          await this.pause(this.backoff(attempt), req.signal, `${failure.message}; retrying`);
          continue;
        }
        throw failure;
      }
      if (res.status === 401 && this.options.auth && token !== undefined && !refreshed) {
        refreshed = true;
        const next = await this.options.auth.refreshAfterUnauthorized(token, req.signal);
        if (next !== undefined && next !== token) {
          // The server did not process a request it refused with 401, so resending is safe.
          token = next;
          attempt--;
          continue;
        }
      }
      if (RETRY_STATUSES.has(res.status) && attempt < maxRetries) {
        const wait = retryAfterMs(res.headers['retry-after'], this.options.clock.now()) ?? this.backoff(attempt);
        if (wait <= MAX_RETRY_AFTER_MS) {
          await this.pause(wait, req.signal, `${res.status} from ${req.method} ${req.path}; retrying in ${Math.round(wait)} ms`);
          continue;
        }
      }
      return res;
    }
  }

  async close(): Promise<void> {
    if (this.ownsAgent) await this.agent.destroy().catch(() => undefined);
  }

  private url(req: HttpRequest): URL {
    const url = new URL(`${this.apiBase}${pathUnderApi(req.path)}`);
    for (const [key, value] of Object.entries(req.query ?? {})) {
      if (value === undefined) continue;
      if (Array.isArray(value)) for (const v of value) url.searchParams.append(key, String(v));
      else url.searchParams.set(key, String(value));
    }
    return url;
  }

  private async send(req: HttpRequest, url: URL, token: string | undefined): Promise<HttpResponse> {
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': this.options.userAgent };
    if (token !== undefined) headers.authorization = `Bearer ${token}`;
    let body: string | undefined;
    if (req.body !== undefined) {
      body = JSON.stringify(req.body);
      headers['content-type'] = 'application/json';
    }
    const started = this.options.clock.now();
    this.trace(`> ${req.method} ${redactUrl(url.toString())}`);
    for (const [k, v] of Object.entries(redactHeaders(headers))) this.trace(`> ${k}: ${v}`);
    if (body !== undefined) this.trace(`> ${redactBody(body, 'application/json')}`);
    const res: Dispatcher.ResponseData = await undiciRequest(url, {
      method: req.method,
      headers,
      body,
      dispatcher: this.agent,
      signal: req.signal,
      headersTimeout: this.options.timeoutMs,
      bodyTimeout: this.options.timeoutMs,
    });
    const text = await readText(res.body);
    const flat: Record<string, string> = {};
    for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) flat[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
    this.trace(`< ${res.statusCode} ${req.method} ${url.pathname} (${Math.round(this.options.clock.now() - started)} ms)`);
    for (const [k, v] of Object.entries(redactHeaders(flat))) this.trace(`< ${k}: ${v}`);
    if (text) this.trace(`< ${truncate(redactBody(text, flat['content-type']), 2000)}`);
    const isJsonType = /\bjson\b/i.test(flat['content-type'] ?? '');
    let json: unknown;
    let isJson = false;
    if (isJsonType && text.length > 0) {
      try {
        json = JSON.parse(text);
        isJson = true;
      } catch {
        isJson = false;
      }
    }
    return { status: res.statusCode, headers: flat, text, json, isJson };
  }

  private classify(error: unknown, req: HttpRequest, url: URL): Error {
    if (req.signal?.aborted) return req.signal.reason instanceof Error ? req.signal.reason : new InterruptedError();
    if (error instanceof NotSignedInError) return error;
    const where = `${req.method} ${url.origin}${url.pathname}`;
    const timedOut =
      error instanceof undiciErrors.HeadersTimeoutError ||
      error instanceof undiciErrors.BodyTimeoutError ||
      error instanceof undiciErrors.ConnectTimeoutError;
    const seconds = Math.round(this.options.timeoutMs / 100) / 10;
    if (timedOut) {
      const failure = new ServiceUnavailableError(`${where} timed out after ${seconds} s`, undefined, {
        hint: 'the service may be slow or unreachable; try again, or raise --http-timeout',
      });
      failure.timedOut = true;
      return failure;
    }
    const code = (error as { code?: string; cause?: { code?: string } }).code ?? (error as { cause?: { code?: string } }).cause?.code;
    const reason =
      code === 'ECONNREFUSED'
        ? 'connection refused'
        : code === 'ENOTFOUND'
          ? 'host not found'
          : code === 'ECONNRESET' || code === 'UND_ERR_SOCKET'
            ? 'the connection was closed unexpectedly'
            : error instanceof Error
              ? error.message
              : String(error);
    // A POST cut off after it was sent may have been processed: say so rather than invite a blind retry.
    const sent = req.method !== 'GET' && code !== 'ECONNREFUSED' && code !== 'ENOTFOUND';
    return new ServiceUnavailableError(`cannot reach the service (${where}): ${reason}`, undefined, {
      hint: sent
        ? 'the service may have processed the request: check (rsi projects list, rsi status) before running it again'
        : 'check the base URL and your network, or run `rsi doctor`',
      cause: error,
    });
  }

  private backoff(attempt: number): number {
    const base = 250 * 2 ** attempt;
    return base / 2 + (this.options.random ?? Math.random)() * base;
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
    this.options.trace?.write(`${line}\n`);
  }
}

async function readText(body: Dispatcher.ResponseData['body']): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) {
      body.destroy();
      throw new Error(`response body larger than ${MAX_BODY_BYTES} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Retry-After as delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(value: string | undefined, now: number): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length} bytes)` : text;
}

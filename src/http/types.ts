/**
 * The HTTP port shared by the API client and auth. `src/http/` implements it on Node's own client; the client
 * only sees these types, and auth plugs in through `AuthProvider`.
 */

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export type QueryValue = string | number | boolean | undefined | readonly (string | number)[];

export interface HttpRequest {
  method: HttpMethod;
  /** Path relative to the API base `<base>/api/v1`, starting with `/` (e.g. `/keywords`). */
  path: string;
  query?: Record<string, QueryValue>;
  /** Extra request headers (`rsi api -H`); `authorization` is always the http layer's own. */
  headers?: Record<string, string>;
  /** JSON body; serialised by the http layer. */
  body?: unknown;
  signal?: AbortSignal;
  /**
   * What to tell the person when a request other than GET timed out after it was sent, or its
   * reply was cut: the service may have done it (`the project may have been created: …`).
   */
  ifOutcomeUnknown?: string;
  /**
   * Told when a byte of the request may have reached the server (once per attempt): from then on,
   * a failure leaves the outcome of a request that is not idempotent unknown. Whether a request is
   * sent again is the method's and the server's answer's (src/http/resend.ts), never the caller's.
   */
  onSent?: () => void;
  /**
   * Told each time the request is about to be retried (a 429/502/503/504, a reset, a timeout):
   * the server is struggling, which `--all` uses to send fewer pages at once, and a batch to hold
   * every new request for as long as this one waits (`waitMs`: Retry-After, or the backoff).
   */
  onRetry?: (waitMs: number) => void;
}

export interface HttpResponse {
  status: number;
  /** Lower-case header names. */
  headers: Record<string, string>;
  /** The raw body text. */
  text: string;
  /** The body parsed as JSON when the content type is JSON and it parses; otherwise undefined. */
  json: unknown;
  /** True when the content type is JSON and the body parsed. */
  isJson: boolean;
  /** The address that answered: the request's, or the last one a redirect led to. */
  url?: string;
  /** Same-origin 307/308 redirects followed on the way, in order (for `rsi api -i`). */
  redirects?: readonly { url: string; status: number; headers: Record<string, string> }[];
}

/**
 * Sends requests to the API with authentication, timeouts and safe retries. Resolves with any HTTP
 * status (the caller maps statuses to errors); rejects with a `ServiceUnavailableError` on network
 * failure or timeout, `NotSignedInError` when no token can be had, `InterruptedError` on abort.
 */
export interface Http {
  readonly apiBase: string;
  request(req: HttpRequest): Promise<HttpResponse>;
  close(): Promise<void>;
}

/**
 * How http obtains a bearer token. On a 401 it calls `refreshAfterUnauthorized` once with the token
 * that was rejected and retries with the result, if any.
 */
export interface AuthProvider {
  getAccessToken(signal?: AbortSignal): Promise<string>;
  refreshAfterUnauthorized(rejectedToken: string, signal?: AbortSignal): Promise<string | undefined>;
}

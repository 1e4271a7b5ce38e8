/**
 * The one send rule: whether a request may go out again after an attempt, decided from its method
 * and what is known of that attempt. Every place that could send a request a second time asks
 * here: the stale kept-alive connection (src/http/direct.ts), the trust-store retry
 * (src/http/network.ts), the API's retry layer and its redirects (src/http/retrying-http.ts,
 * src/http/redirect.ts).
 *
 * - A request none of whose bytes can have reached the server (the connection was refused, never
 *   opened, its TLS handshake or the proxy's tunnel failed) may go again whatever its method: the
 *   server saw nothing (Go's transport does the same for a request it never wrote).
 * - Once any byte may have reached the server (a reset, a close, a timeout or a cut reply after
 *   the request was handed to an open connection, new or kept-alive), only an idempotent method
 *   (RFC 9110 §9.2.2) goes again: the server may have acted, and a second POST may act twice.
 * - A reply that says the request was not acted on lets any method go again: 429 (RFC 6585:
 *   refused before any work), 503 with Retry-After (RFC 9110 §15.6.4: unavailable, come back
 *   then), 401 (refused before any work; rsi refreshes the token first). A 502, 504 or a bare 503
 *   may come from a gateway after the service acted: only idempotent methods go again.
 *
 * service-api.md says nothing of retries or Retry-After for its routes; these are HTTP's own rules.
 */

/** RFC 9110 §9.2.2: methods whose repetition has the same effect on the server as one request. */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'DELETE']);

export function isIdempotent(method: string): boolean {
  return IDEMPOTENT.has(method.toUpperCase());
}

/**
 * A request that is not idempotent reuses a kept-alive connection only if it was busy this
 * recently; after longer, a server's keep-alive timeout may be closing it (src/http/network.ts).
 */
export const IDLE_REUSE_MS = 1000;

/** What is known of one attempt. */
export type Attempt =
  /** It failed, and none of its bytes can have reached the server. */
  | { sent: false }
  /** It failed after its bytes may have reached the server: the outcome is unknown. */
  | { sent: true }
  /** The server answered with this status (and Retry-After, when it sent one). */
  | { status: number; retryAfter?: string | undefined };

/** Statuses after which a request may be worth sending again at all (the rule above decides). */
const TRANSIENT = new Set([429, 502, 503, 504]);

/** Whether a request with this method may be sent again after `attempt`. */
export function maySendAgain(method: string, attempt: Attempt): boolean {
  if ('sent' in attempt) return !attempt.sent || isIdempotent(method);
  const { status, retryAfter } = attempt;
  if (status === 429 || status === 401 || (status === 503 && retryAfter !== undefined)) return true;
  return TRANSIENT.has(status) && isIdempotent(method);
}

/**
 * Whether a failed attempt of this method leaves its outcome unknown: the server may have acted
 * on it, and rsi will not send it again to find out (the caller reads the service back instead).
 */
export function outcomeUnknown(method: string, attempt: Attempt): boolean {
  return !maySendAgain(method, attempt);
}

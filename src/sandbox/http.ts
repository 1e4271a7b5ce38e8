/** Small HTTP helpers shared by the sandbox's modules. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`HTTP ${status}`);
  }
}

export interface Req {
  method: string;
  url: URL;
  path: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
  remote: string;
}

export interface Res {
  status: number;
  headers?: Record<string, string>;
  json?: unknown;
  html?: string;
  text?: string;
}

export function send(res: ServerResponse, r: Res): void {
  const headers: Record<string, string> = { ...r.headers };
  let payload: string | undefined;
  if (r.json !== undefined) {
    payload = JSON.stringify(r.json);
    headers['content-type'] = 'application/json; charset=utf-8';
  } else if (r.html !== undefined) {
    payload = r.html;
    headers['content-type'] = 'text/html; charset=utf-8';
    // Pages cannot be framed (clickjacking on the consent page), run no script, leak no referrer.
    headers['content-security-policy'] ??= "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'";
    headers['x-frame-options'] ??= 'DENY';
    headers['referrer-policy'] ??= 'no-referrer';
    headers['cache-control'] ??= 'no-store';
  } else if (r.text !== undefined) {
    payload = r.text;
    headers['content-type'] ??= 'text/plain; charset=utf-8';
  }
  if (payload !== undefined) headers['content-length'] = String(Buffer.byteLength(payload));
  res.writeHead(r.status, headers);
  res.end(payload);
}

export function randomToken(): string {
  return randomBytes(32).toString('base64url');
}

export function s256(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

/**
 * True when a browser says the request comes from another site. `Sec-Fetch-Site` decides when
 * present (every current browser sends it; it must be same-origin or none), because our pages'
 * `Referrer-Policy: no-referrer` makes Chromium send `Origin: null` even on same-origin form posts.
 * Without it, an `Origin` must be the sandbox's base or the Host the request was sent to. Scripts
 * (curl, fetch from Node) send neither header and pass.
 */
export function crossSite(headers: IncomingMessage['headers'], base: string): boolean {
  const site = headers['sec-fetch-site'];
  if (site !== undefined) return site !== 'same-origin' && site !== 'none';
  const origin = headers.origin;
  if (origin === undefined) return false;
  return origin !== base && origin !== `http://${headers.host ?? ''}`;
}

/** Compares two secrets in constant time (hashing first, so lengths leak nothing either). */
export function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

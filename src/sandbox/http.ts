/** Small HTTP helpers shared by the sandbox's modules. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createHash, randomBytes } from 'node:crypto';

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

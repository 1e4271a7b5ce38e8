/**
 * The redacting `--debug` trace of one request and its reply (src/http/redact.ts does the
 * redacting). Only called with a Tracer: without `--debug` none of this work is done.
 */
import { type Tracer, redactBody, redactHeaders, redactUrl } from './redact.js';
import type { WireRequest } from './wire.js';

const TRACE_BODY_CHARS = 2000;

/** `proxy`: the proxy that carries the request, credentials redacted, if any. */
export function traceRequest(tracer: Tracer, req: WireRequest, proxy: string | undefined): void {
  // Redact (and learn the secrets of) everything before printing any of it.
  const line = `> ${req.method} ${redactUrl(req.url.href, tracer.learn)}`;
  const headers = redactHeaders(req.headers, tracer.learn);
  const body = req.body ? redactBody(req.body, req.headers['content-type'] ?? '', tracer.learn) : undefined;
  tracer.line(line);
  if (proxy) tracer.line(`* through proxy ${proxy}`);
  for (const [k, v] of Object.entries(headers)) tracer.line(`> ${k}: ${v}`);
  if (body) tracer.line(`> ${truncate(tracer.scrub(body), TRACE_BODY_CHARS)}`);
}

export function traceResponse(
  tracer: Tracer,
  req: WireRequest,
  status: number,
  headers: Record<string, string>,
  body: Buffer,
  ms: number,
): void {
  const redacted = redactHeaders(headers, tracer.learn);
  const text = body.length ? redactBody(body.toString('utf8'), headers['content-type'] ?? 'application/octet-stream', tracer.learn) : '';
  tracer.line(`< ${status} ${req.method} ${redactUrl(`${req.url.origin}${req.url.pathname}`)} (${ms} ms)`);
  for (const [k, v] of Object.entries(redacted)) tracer.line(`< ${k}: ${v}`);
  if (text) tracer.line(`< ${truncate(tracer.scrub(text), TRACE_BODY_CHARS)}`);
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;
}

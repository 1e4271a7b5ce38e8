/** Request checks shared by the API's route modules: ids, integers, JSON bodies, scopes. */
import { HttpError, type Req } from './http.js';
import type { Caller } from './oauth.js';

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function requireScope(caller: Caller, scope: string): void {
  if (!caller.scopes.includes(scope)) throw new HttpError(403, { error: 'insufficient_scope', scope });
}

export function badRequest(message: string): HttpError {
  return new HttpError(400, { error: message });
}

export function methodNotAllowed(): HttpError {
  return new HttpError(405, { error: 'Method not allowed' });
}

export function intParam(q: URLSearchParams, name: string, fallback: number, min: number, max: number): number {
  const raw = q.get(name);
  if (raw === null) return fallback;
  if (!/^-?\d+$/.test(raw.trim()))
    throw badRequest(`${name} must be an integer${max < Number.MAX_SAFE_INTEGER ? ` between ${min} and ${max}` : ` of at least ${min}`}`);
  const n = Number(raw);
  if (n < min || n > max)
    throw badRequest(`${name} must be ${max < Number.MAX_SAFE_INTEGER ? `between ${min} and ${max}` : `at least ${min}`}`);
  return n;
}

export function jsonBody(req: Req): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(req.body.toString('utf8') || 'null');
  } catch {
    throw badRequest('Request body must be JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw badRequest('Request body must be a JSON object');
  return parsed as Record<string, unknown>;
}

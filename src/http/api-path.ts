/**
 * The API's version prefix, spelled once (service-api.md "Versioning": the API lives under
 * `{base_url}/api/v1`, and the OAuth resource identifier of the API is that same address). Every
 * module that needs the API base, the resource, or a path relative to the base goes through here.
 */
export const API_PREFIX = '/api/v1';

function trimSlashes(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '');
}

/** `https://host` → `https://host/api/v1`: where the API's routes live. */
export function apiBaseOf(baseUrl: string): string {
  return `${trimSlashes(baseUrl)}${API_PREFIX}`;
}

/** The OAuth resource indicator (RFC 8707) of the API: the same address as its base. */
export const apiResourceOf = apiBaseOf;

/** `/api/v1/keywords` or `/keywords` → `/keywords`, so `rsi api` accepts either spelling. */
export function pathUnderApi(path: string): string {
  const relative = path === API_PREFIX || path.startsWith(`${API_PREFIX}/`) ? path.slice(API_PREFIX.length) : path;
  return relative.startsWith('/') ? relative : `/${relative}`;
}

import { UsageError } from '../errors.js';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname) || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

/**
 * Checks and normalises a service base URL: https anywhere, http only on loopback (tokens must
 * never cross a network in clear text). No trailing slash, no query or fragment.
 */
export function normaliseBaseUrl(raw: string, flag = '--base-url'): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new UsageError(`${flag} "${raw}" is not a URL`, { hint: 'for example https://research.example.com' });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError(`${flag} must use https:// (got ${url.protocol}//)`);
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new UsageError(`${flag} may use http:// only for loopback hosts (127.0.0.1, localhost, [::1]); use https:// for ${url.hostname}`);
  }
  if (url.username || url.password) throw new UsageError(`${flag} must not contain credentials`);
  if (url.search || url.hash) throw new UsageError(`${flag} must not have a query or fragment`);
  // The API lives at <base>/api/v1 and the sandbox prints that too: take the base out of it.
  return `${url.origin}${url.pathname.replace(/\/+$/, '').replace(/\/api\/v1$/, '')}`;
}

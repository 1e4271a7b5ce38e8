/**
 * Proxy settings from HTTP_PROXY / HTTPS_PROXY / NO_PROXY (either case, lower case first, as curl
 * and undici read them), and the one place that decides whether a URL goes through the proxy, so
 * `doctor` says what the dispatcher actually does.
 */
import { UsageError } from '../errors.js';

export type Env = Readonly<Record<string, string | undefined>>;

export interface ProxySettings {
  /** Proxy for http:// URLs, credentials included (never print it: use `redactProxyUrl`). */
  http: string | undefined;
  /** Proxy for https:// URLs; falls back to the http one, as undici and curl do. */
  https: string | undefined;
  /** The raw NO_PROXY list. */
  noProxy: string;
  /** Which variable each value came from, for messages. */
  source: { http?: string; https?: string };
}

export function proxySettings(env: Env): ProxySettings {
  const pick = (lower: string, upper: string): [string, string] | undefined => {
    for (const name of [lower, upper]) {
      const value = env[name]?.trim();
      if (value) return [normaliseProxyUrl(value, name), name];
    }
    return undefined;
  };
  const http = pick('http_proxy', 'HTTP_PROXY');
  const https = pick('https_proxy', 'HTTPS_PROXY') ?? http;
  const source: ProxySettings['source'] = {};
  if (http) source.http = http[1];
  if (https) source.https = https[1];
  return { http: http?.[0], https: https?.[0], noProxy: (env.no_proxy ?? env.NO_PROXY ?? '').trim(), source };
}

/** `proxy.corp:3128` means `http://proxy.corp:3128`, as it does to curl. */
function normaliseProxyUrl(value: string, name: string): string {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new UsageError(`${name} is not a valid proxy URL (${redactProxyUrl(value)})`, {
      hint: `set it like ${name}=http://proxy.example:3128`,
    });
  }
  if (!['http:', 'https:', 'socks:', 'socks5:'].includes(url.protocol)) {
    throw new UsageError(`${name} uses an unsupported scheme (${url.protocol}); use http://, https:// or socks5://`);
  }
  return url.href;
}

/** The proxy URL with any user name and password replaced: safe for traces, errors and doctor. */
export function redactProxyUrl(value: string): string {
  try {
    const url = new URL(value);
    if (url.username || url.password) {
      url.username = 'redacted';
      url.password = '';
    }
    return url.href.replace('//redacted@', '//[redacted]@').replace(/\/$/, '');
  } catch {
    // Not a URL: strip anything up to an '@', which is where credentials would be.
    return value.replace(/^([a-z][a-z0-9+.-]*:\/\/)?[^@/]*@/i, (_m, scheme: string | undefined) => `${scheme ?? ''}[redacted]@`);
  }
}

/** The proxy (credentials included) that carries `url`, or undefined when it goes direct. */
export function proxyFor(url: URL, settings: ProxySettings): string | undefined {
  const proxy = url.protocol === 'https:' ? settings.https : settings.http;
  if (!proxy) return undefined;
  return bypassed(url, settings.noProxy) ? undefined : proxy;
}

/** NO_PROXY matching exactly as undici's EnvHttpProxyAgent does it (host, .suffix, host:port, `*`). */
function bypassed(url: URL, noProxy: string): boolean {
  if (noProxy === '*') return true;
  const hostname = url.host.replace(/:\d*$/, '').toLowerCase();
  const port = Number.parseInt(url.port, 10) || (url.protocol === 'https:' ? 443 : 80);
  for (const entry of noProxy.split(/[,\s]/)) {
    if (!entry) continue;
    const parsed = /^(.+):(\d+)$/.exec(entry);
    const host = (parsed ? parsed[1]! : entry).replace(/^\*?\./, '').toLowerCase();
    const entryPort = parsed ? Number.parseInt(parsed[2]!, 10) : 0;
    if (entryPort && entryPort !== port) continue;
    if (hostname === host || hostname.endsWith(`.${host}`)) return true;
  }
  return false;
}

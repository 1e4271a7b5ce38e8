/**
 * Proxy settings from HTTP_PROXY / HTTPS_PROXY / NO_PROXY (either case, lower case first, as curl
 * and undici read them), and the one place that decides whether a URL goes through the proxy, so
 * `doctor` says what the dispatcher actually does.
 */
// A namespace, not `{ BlockList }`: net's BlockList is a lazy export that loads its own modules
// when read, and most runs never need one.
import * as net from 'node:net';
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
  return isLoopback(url.hostname) || bypassed(url, settings.noProxy) ? undefined : proxy;
}

/** `[::1]` → `::1`; other host names unchanged (lower case, no trailing dot). */
function bareHost(hostname: string): string {
  return hostname
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '')
    .toLowerCase();
}

/**
 * Loopback never goes through a proxy, whatever HTTP(S)_PROXY says (the rule Go's net/http and
 * Chromium follow): a proxy cannot reach this machine's loopback, and a token for the sandbox must
 * not travel in clear to it.
 */
export function isLoopback(hostname: string): boolean {
  const host = bareHost(hostname);
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (net.isIP(host) === 4) return host.startsWith('127.');
  return net.isIP(host) === 6 && loopback6().check(host, 'ipv6');
}
/** Made on first use: most runs never see an IPv6 address, and a BlockList loads its own modules. */
let loopback6List: net.BlockList | undefined;
function loopback6(): net.BlockList {
  if (!loopback6List) {
    loopback6List = new net.BlockList();
    loopback6List.addAddress('::1', 'ipv6');
    // 127.0.0.0/8 written as IPv4-mapped IPv6 (URL turns [::ffff:127.0.0.1] into [::ffff:7f00:1]).
    loopback6List.addSubnet('::ffff:7f00:0', 104, 'ipv6');
  }
  return loopback6List;
}

/**
 * NO_PROXY as curl and Go read it: entries split on commas or spaces; `*` alone means everything;
 * `example.com`, `.example.com` and `*.example.com` each match example.com and every host under it;
 * an IP address matches itself (IPv6 with or without brackets); `10.0.0.0/8` or `fd00::/8` match
 * the addresses in that range (only when the URL names an address: rsi never resolves a name to
 * decide); `host:port` and `[v6]:port` match that port only.
 */
export function bypassed(url: URL, noProxy: string): boolean {
  const host = bareHost(url.hostname);
  const port = Number.parseInt(url.port, 10) || (url.protocol === 'https:' ? 443 : 80);
  const hostIp = net.isIP(host);
  for (const raw of noProxy.split(/[,\s]+/)) {
    const entry = raw.trim().toLowerCase();
    if (!entry) continue;
    if (entry === '*') return true;
    const cidr = /^\[?([0-9a-f.:]+)\]?\/(\d{1,3})$/.exec(entry);
    if (cidr) {
      const [, range = '', bits = ''] = cidr;
      const family = net.isIP(range);
      if (family === 0 || hostIp !== family || Number(bits) > (family === 4 ? 32 : 128)) continue;
      const list = new net.BlockList();
      list.addSubnet(range, Number(bits), family === 4 ? 'ipv4' : 'ipv6');
      if (list.check(host, family === 4 ? 'ipv4' : 'ipv6')) return true;
      continue;
    }
    const { name, entryPort } = splitPort(entry);
    if (entryPort !== undefined && entryPort !== port) continue;
    if (net.isIP(name) !== 0) {
      if (hostIp !== 0 && sameIp(name, host)) return true;
      continue;
    }
    const suffix = name.replace(/^\*?\./, '').replace(/\.$/, '');
    if (suffix && (host === suffix || host.endsWith(`.${suffix}`))) return true;
  }
  return false;
}

/** `host:port`, `[v6]:port`, `[v6]`, a bare IPv6 address (its colons are not a port) or a name. */
function splitPort(entry: string): { name: string; entryPort: number | undefined } {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (bracketed) return { name: bracketed[1] ?? '', entryPort: bracketed[2] ? Number(bracketed[2]) : undefined };
  if (net.isIP(entry) === 6) return { name: entry, entryPort: undefined };
  const withPort = /^(.+):(\d+)$/.exec(entry);
  if (withPort) return { name: withPort[1] ?? '', entryPort: Number(withPort[2]) };
  return { name: entry, entryPort: undefined };
}

function sameIp(a: string, b: string): boolean {
  const family = net.isIP(a);
  if (family !== net.isIP(b)) return false;
  if (family === 4) return a === b;
  const list = new net.BlockList();
  list.addAddress(a, 'ipv6');
  return list.check(b, 'ipv6');
}

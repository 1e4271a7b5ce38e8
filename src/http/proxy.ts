/**
 * Proxy settings from the environment, read as curl reads them (lib/proxy.c), and the one place
 * that decides whether a URL goes through a proxy, so `doctor` says what the dispatcher actually
 * does. docs/auth.md ("Proxy variables, as curl and Go read them") has the rules and, row by row,
 * where curl and Go's golang.org/x/net/http/httpproxy disagree and which one rsi follows.
 */
// A namespace, not `{ BlockList }`: net's BlockList is a lazy export that loads its own modules
// when read, and most runs never need one.
import { BlockList, isIP } from 'node:net';
import { domainToASCII } from 'node:url';
import { UsageError } from '../errors.js';
import type { Env } from '../io/io.js';

export interface ProxySettings {
  /** Proxy for http:// URLs, credentials included (never print it: use `redactProxyUrl`). */
  http: string | undefined;
  /** Proxy for https:// URLs. Never the http one: curl and Go use http_proxy for http:// only. */
  https: string | undefined;
  /** The NO_PROXY list as set (no_proxy first). */
  noProxy: string;
  /** Which variable each value came from, for messages. */
  source: { http?: string; https?: string };
  /**
   * http_proxy / HTTP_PROXY when set while no https proxy is: the hint for an https:// request
   * that went direct and failed names them (rsi once sent https through HTTP_PROXY, as undici does).
   */
  httpOnly: string[];
  /**
   * A scheme whose variable holds no usable proxy URL: the usage error naming it, raised when a
   * request of that scheme would use it (an ALL_PROXY=socks4://… that HTTPS_PROXY overrides for
   * https:// must not stop every command).
   */
  invalid: { http?: UsageError; https?: UsageError };
}

/**
 * The variables that name the proxy for each scheme, in curl's order: the scheme's own lower-case
 * variable, its upper-case twin, then all_proxy and ALL_PROXY as the fallback for both. An empty
 * value counts as unset (curl and Go alike).
 *
 * Upper-case HTTP_PROXY is read for http:// URLs, as the contract and Go read it, except when
 * REQUEST_METHOD is set: a CGI server turns a request's `Proxy:` header into HTTP_PROXY
 * ("httpoxy"), so under CGI a stranger would choose the proxy. Go refuses it there too; curl never
 * reads upper-case HTTP_PROXY at all. It matters little here: rsi sends http:// only to loopback,
 * which is never proxied.
 */
export const PROXY_VARIABLES = {
  http: ['http_proxy', 'HTTP_PROXY', 'all_proxy', 'ALL_PROXY'],
  https: ['https_proxy', 'HTTPS_PROXY', 'all_proxy', 'ALL_PROXY'],
} as const;

export function proxySettings(env: Env): ProxySettings {
  const settings: ProxySettings = { http: undefined, https: undefined, noProxy: '', source: {}, httpOnly: [], invalid: {} };
  for (const scheme of ['http', 'https'] as const) {
    const name = PROXY_VARIABLES[scheme].find((one) => env[one]?.trim() && !(one === 'HTTP_PROXY' && env.REQUEST_METHOD));
    if (!name) continue;
    try {
      settings[scheme] = normaliseProxyUrl(env[name]?.trim() ?? '', name);
      settings.source[scheme] = name;
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      settings.invalid[scheme] = error;
    }
  }
  // Set, yet carrying no https:// request: named in the hint when such a request goes direct and fails.
  if (!settings.https && !settings.invalid.https) {
    settings.httpOnly = ['http_proxy', 'HTTP_PROXY'].filter((name) => env[name]?.trim());
  }
  settings.noProxy = (env.no_proxy?.trim() || env.NO_PROXY?.trim()) ?? '';
  return settings;
}

/**
 * Why http_proxy / HTTP_PROXY did not carry an https:// request, when one of them is set and no
 * https proxy is (for doctor and the hint of a failed direct request), else undefined.
 */
export function httpOnlyNote(settings: ProxySettings): string | undefined {
  return settings.httpOnly.length > 0
    ? `${settings.httpOnly.join(' and ')} ${settings.httpOnly.length > 1 ? 'carry' : 'carries'} http:// URLs only, as in curl and Go`
    : undefined;
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
  if (!['http:', 'https:', 'socks:', 'socks5:', 'socks5h:'].includes(url.protocol)) {
    throw new UsageError(`${name} uses an unsupported scheme (${url.protocol}); use http://, https://, socks5:// or socks5h://`);
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

/** Why a URL goes direct, or the proxy (credentials included) and the variable that named it. */
export type ProxyDecision = { proxy: string; source: string } | { proxy: undefined; why: 'loopback' | 'no_proxy' | 'unset' };

/**
 * The proxy for `url`: http_proxy (or ALL_PROXY) for http://, https_proxy (or ALL_PROXY) for
 * https://, none for any other scheme; loopback and NO_PROXY go direct.
 */
export function proxyDecision(url: URL, settings: ProxySettings): ProxyDecision {
  const scheme = url.protocol === 'https:' ? 'https' : url.protocol === 'http:' ? 'http' : undefined;
  const proxy = scheme && settings[scheme];
  const invalid = scheme && settings.invalid[scheme];
  if (!scheme || (!proxy && !invalid)) return { proxy: undefined, why: 'unset' };
  if (isLoopback(url.hostname)) return { proxy: undefined, why: 'loopback' };
  if (bypassed(url, settings.noProxy)) return { proxy: undefined, why: 'no_proxy' };
  if (!proxy) throw invalid;
  return { proxy, source: settings.source[scheme] ?? scheme };
}

/** The proxy (credentials included) that carries `url`, or undefined when it goes direct. */
export function proxyFor(url: URL, settings: ProxySettings): string | undefined {
  return proxyDecision(url, settings).proxy;
}

/** `[::1]` → `::1`; other host names unchanged (lower case, no trailing dot). */
function bareHost(hostname: string): string {
  return hostname
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '')
    .toLowerCase();
}

/**
 * Loopback never goes through a proxy, whatever the variables say: a proxy cannot reach this
 * machine's loopback, and a token for the sandbox must not travel in clear to it. Go's httpproxy
 * does the same for `localhost` and loopback addresses; rsi adds `*.localhost` (RFC 6761: such
 * names are loopback), which Go would proxy. curl proxies loopback like any host unless NO_PROXY
 * lists it: a deliberate difference (docs/auth.md).
 */
export function isLoopback(hostname: string): boolean {
  const host = bareHost(hostname);
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return isIP(host) === 6 && loopback6().check(host, 'ipv6');
}
/** Made on first use: most runs never see an IPv6 address, and a BlockList loads its own modules. */
let loopback6List: BlockList | undefined;
function loopback6(): BlockList {
  if (!loopback6List) {
    loopback6List = new BlockList();
    loopback6List.addAddress('::1', 'ipv6');
    // 127.0.0.0/8 written as IPv4-mapped IPv6 (URL turns [::ffff:127.0.0.1] into [::ffff:7f00:1]).
    loopback6List.addSubnet('::ffff:7f00:0', 104, 'ipv6');
  }
  return loopback6List;
}

/**
 * NO_PROXY as curl and Go read it: entries split on commas, blanks around them ignored (an entry
 * with a blank inside matches nothing, as in both); `*` means everything; `example.com` and
 * `.example.com` match example.com and every host under it (curl; Go's `.example.com` leaves out
 * example.com itself); `*.example.com` matches hosts under example.com only (Go; curl has no such
 * form); names compare case-insensitively with trailing dots ignored, in punycode on both sides
 * (`.示例.com` bypasses `api.xn--fsq092h.com`); an IP address matches itself (IPv6 with or without
 * brackets); `10.0.0.0/8` or `fd00::/8` match the addresses in that range (only when the URL names
 * an address: rsi never resolves a name to decide); `host:port` and `[v6]:port` match that port only.
 */
export function bypassed(url: URL, noProxy: string): boolean {
  const host = asciiName(bareHost(url.hostname));
  const port = Number.parseInt(url.port, 10) || (url.protocol === 'https:' ? 443 : 80);
  const hostIp = isIP(host);
  for (const raw of noProxy.split(',')) {
    const entry = raw.trim().toLowerCase();
    if (!entry || /\s/.test(entry)) continue;
    if (entry === '*') return true;
    const cidr = /^\[?([0-9a-f.:]+)\]?\/(\d{1,3})$/.exec(entry);
    if (cidr) {
      const [, range = '', bits = ''] = cidr;
      const family = isIP(range);
      if (family === 0 || hostIp !== family || Number(bits) > (family === 4 ? 32 : 128)) continue;
      const list = new BlockList();
      list.addSubnet(range, Number(bits), family === 4 ? 'ipv4' : 'ipv6');
      if (list.check(host, family === 4 ? 'ipv4' : 'ipv6')) return true;
      continue;
    }
    const { name, entryPort } = splitPort(entry);
    if (entryPort !== undefined && entryPort !== port) continue;
    if (isIP(name) !== 0) {
      if (hostIp !== 0 && sameIp(name, host)) return true;
      continue;
    }
    // A name never matches an address, nor an address a name (curl and Go alike).
    if (hostIp !== 0) continue;
    const underOnly = name.startsWith('*.');
    const suffix = asciiName(name.replace(/^\*?\./, '').replace(/\.$/, ''));
    if (!suffix) continue;
    if (host.endsWith(`.${suffix}`) || (!underOnly && host === suffix)) return true;
  }
  return false;
}

/**
 * A host name in punycode (`示例.com` → `xn--fsq092h.com`), as URL already gives a request's host,
 * so an IDN entry and an IDN host compare alike. ASCII is returned as it is; a name IDNA cannot
 * convert is kept, and then matches only itself.
 */
function asciiName(name: string): string {
  if (/^[\x00-\x7f]*$/.test(name)) return name;
  return domainToASCII(name) || name;
}

/** `host:port`, `[v6]:port`, `[v6]`, a bare IPv6 address (its colons are not a port) or a name. */
function splitPort(entry: string): { name: string; entryPort: number | undefined } {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (bracketed) return { name: bracketed[1] ?? '', entryPort: bracketed[2] ? Number(bracketed[2]) : undefined };
  if (isIP(entry) === 6) return { name: entry, entryPort: undefined };
  const withPort = /^(.+):(\d+)$/.exec(entry);
  if (withPort) return { name: withPort[1] ?? '', entryPort: Number(withPort[2]) };
  return { name: entry, entryPort: undefined };
}

function sameIp(a: string, b: string): boolean {
  const family = isIP(a);
  if (family !== isIP(b)) return false;
  if (family === 4) return a === b;
  const list = new BlockList();
  list.addAddress(a, 'ipv6');
  return list.check(b, 'ipv6');
}

// The proxy tables two other projects test themselves with, run through rsi's own proxy selection
// (src/http/proxy.ts): Go's golang.org/x/net/http/httpproxy (proxy_test.go: the proxyForURLTests
// rows, the UseProxyTests hosts against its NO_PROXY list, the "*" and malformed-list cases;
// BSD-3-Clause, LICENSE unpacked beside it) and curl's NO_PROXY unit test (tests/unit/unit1614.c:
// the proxy_check_noproxy list and the CIDR lists; curl's licence, COPYING unpacked beside it).
// test/outside/fetch.sh unpacks both from Debian's source archive; nothing of them is committed:
// the rows are parsed out of their sources here, at test time. rsi must agree with every row except
// the deliberate differences listed below, each with its reason; docs/auth.md ("Proxies") records
// where Go and curl disagree with each other and which one rsi follows. Only the selection is run:
// no row's host (example.com and the like) is ever connected to.
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { bypassed, isLoopback, proxyFor, proxySettings } from '../../src/http/proxy.js';
import { outsideSuitePart, skipWithout } from '../support/system.js';

const goSuite = outsideSuitePart('golang-x-net-0.58.0');
const curlSuite = outsideSuitePart('curl-8.21.0');
const skipGo = skipWithout(goSuite);
const skipCurl = skipWithout(curlSuite);

/** Any proxy: the tables ask only whether one is used. */
const PROXY = 'http://proxy.test:3128';

// ---- reading the sources ------------------------------------------------------------------------

const STRING = String.raw`"(?:[^"\\]|\\.)*"`;

/** The text between the brace that ends `opening` and its matching close (strings skipped). */
function block(source: string, opening: string): string {
  const at = source.indexOf(opening);
  if (at < 0) throw new Error(`${opening} not found: the upstream file changed shape`);
  const start = at + opening.length;
  let depth = 1;
  for (let i = start; i < source.length; i++) {
    const c = source[i];
    if (c === '"') {
      const m = new RegExp(STRING, 'y');
      m.lastIndex = i;
      if (!m.exec(source)) throw new Error(`unterminated string after ${opening}`);
      i = m.lastIndex - 1;
    } else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return source.slice(start, i);
  }
  throw new Error(`no end to ${opening}`);
}

/** The `{…}` elements at the top level of a composite literal's body. */
function elements(body: string): string[] {
  const out: string[] = [];
  let rest = body;
  for (;;) {
    const open = rest.indexOf('{');
    if (open < 0) return out;
    const inner = block(rest, rest.slice(0, open + 1));
    out.push(inner);
    rest = rest.slice(open + 1 + inner.length + 1);
  }
}

/** A Go or C string literal's value (their escapes used here are JSON's). */
const unquote = (literal: string): string => JSON.parse(literal) as string;

interface GoUrlRow {
  http: string;
  https: string;
  noProxy: string;
  cgi: boolean;
  req: string;
  /** "<nil>" or the proxy URL Go returns. */
  want: string;
}

function goField(element: string, name: string): string {
  const m = new RegExp(String.raw`\b${name}:\s*(${STRING})`).exec(element);
  return m?.[1] ? unquote(m[1]) : '';
}

function readGo(): { urlRows: GoUrlRow[]; hosts: [string, boolean][]; noProxy: string; extra: [string, string, boolean][] } {
  const source = readFileSync(`${goSuite.dir}http/httpproxy/proxy_test.go`, 'utf8');
  const urlRows = elements(block(source, 'var proxyForURLTests = []proxyForURLTest{')).map((e) => ({
    http: goField(e, 'HTTPProxy'),
    https: goField(e, 'HTTPSProxy'),
    noProxy: goField(e, 'NoProxy'),
    cgi: /\bCGI:\s*true\b/.test(e),
    req: goField(e, 'req') || 'http://example.com',
    want: goField(e, 'want'),
  }));
  const useProxyOpening = /var UseProxyTests = \[\]struct \{[^}]*\}\{/.exec(source)?.[0] ?? 'var UseProxyTests = []struct';
  const useProxyBody = block(source, useProxyOpening);
  const hosts = [...useProxyBody.matchAll(new RegExp(String.raw`\{(${STRING}),\s*(true|false)\}`, 'g'))].map((m): [string, boolean] => [
    unquote(m[1]!),
    m[2] === 'true',
  ]);
  const noProxy = unquote(new RegExp(`var noProxy = (${STRING})`).exec(source)![1]!);
  // TestAllNoProxy: every UseProxyTests host under NO_PROXY "*" is expected not to use a proxy.
  const all = block(source, 'func TestAllNoProxy(t *testing.T) {');
  const allList = goField(all, 'NoProxy');
  const allWant = /ExportUseProxy\(cfg, test\.host\+":80"\) != (true|false)/.exec(all)![1] === 'true';
  // TestInvalidNoProxy: one host, a malformed list, a proxy expected (`if !ok` fails the test).
  const invalid = block(source, 'func TestInvalidNoProxy(t *testing.T) {');
  const invalidHost = unquote(new RegExp(String.raw`ok := httpproxy\.ExportUseProxy\(cfg, (${STRING})\)`).exec(invalid)![1]!);
  const invalidWant = /if !ok \{/.test(invalid);
  const extra: [string, string, boolean][] = [
    ...hosts.map(([host]): [string, string, boolean] => [`${host}:80`, allList, allWant]),
    [invalidHost, goField(invalid, 'NoProxy'), invalidWant],
  ];
  return { urlRows, hosts, noProxy, extra };
}

interface CurlRow {
  list: string;
  host: string;
  noProxy: string;
  /** curl's answer: true means "in NO_PROXY", so no proxy. */
  match: boolean;
}

function readCurl(): CurlRow[] {
  const source = readFileSync(`${curlSuite.dir}tests/unit/unit1614.c`, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*#.*$/gm, '');
  const strings = String.raw`((?:${STRING}\s*)+)`;
  const row = new RegExp(String.raw`\{\s*${strings},\s*${strings},\s*(?:(\d+)\s*,\s*)?(TRUE|FALSE)\s*\}`, 'g');
  const joined = (pieces: string) => [...pieces.matchAll(new RegExp(STRING, 'g'))].map((p) => unquote(p[0])).join('');
  const rows: CurlRow[] = [];
  for (const [list, opening] of [
    ['list4', /struct check list4\[\]\s*=\s*\{/],
    ['list6', /struct check list6\[\]\s*=\s*\{/],
    ['list', /struct noproxy list\[\]\s*=\s*\{/],
  ] as const) {
    const found = opening.exec(source);
    if (!found) throw new Error(`${list} not found in unit1614.c: the upstream file changed shape`);
    for (const m of block(source, found[0]).matchAll(row)) {
      const [, a = '', n = '', bits, verdict] = m;
      const network = joined(n);
      // The CIDR lists call cidr4_match/cidr6_match(address, network, bits) directly. In NO_PROXY
      // that is the entry "network/bits"; bits 0 is what curl passes for an entry without a slash
      // (and reads as "the whole address").
      const noProxy = bits === undefined ? network : bits === '0' ? network : `${network}/${bits}`;
      rows.push({ list, host: joined(a), noProxy, match: verdict === 'TRUE' });
    }
  }
  return rows;
}

/** `::1` → `http://[::1]/`; names and IPv4 as they are. */
function urlFor(host: string, port = ''): URL {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  return new URL(`http://${isIP(bare) === 6 ? `[${bare}]` : bare}${port}/`);
}

// ---- the deliberate differences -----------------------------------------------------------------

type Verdict = 'direct' | 'proxy';

/**
 * Go's rows where rsi answers otherwise, by Go's own row description (its String(), plus CGI), or
 * by host for UseProxyTests. `rsi` is what rsi does instead.
 */
const GO_DIFFERENCES: Record<string, { rsi: string; why: string }> = {
  'http_proxy="foo://host" req="http://example.com"': {
    rsi: 'usage error',
    why: 'rsi speaks http, https and socks5 to a proxy; any other scheme is a usage error naming the variable (exit 2) before any request, as curl refuses it, not a proxy URL passed along',
  },
  'http_proxy="http://10.1.2.3:8080" req="http://example.com" CGI': {
    rsi: 'http://10.1.2.3:8080/',
    why: "Go refuses every http proxy when REQUEST_METHOD is set; rsi refuses only upper-case HTTP_PROXY there (the one a CGI server fills from a request's Proxy: header) and reads lower-case http_proxy, which no request can set, everywhere",
  },
  'http_proxy="proxy" no_proxy=".example.com" req="http://example.com/"': {
    rsi: '<nil>',
    why: "curl's reading: a leading dot is ignored, so .example.com covers example.com itself (Go: subdomains only)",
  },
  'http_proxy="proxy" no_proxy="example.com" req="http://[1000::%25.example.com]:123"': {
    rsi: 'not a URL',
    why: 'a zone id in a URL host is not a URL to the WHATWG parser rsi uses (new URL throws), so rsi never has such a request to route',
  },
};
const GO_HOST_DIFFERENCES: Record<string, { rsi: Verdict; why: string }> = {
  'barbaz.net': { rsi: 'direct', why: "curl's reading of .barbaz.net: barbaz.net itself is covered (Go: subdomains only)" },
  'local.localhost': {
    rsi: 'direct',
    why: 'loopback is never proxied, and every *.localhost name is loopback (RFC 6761); Go exempts only "localhost" itself',
  },
};
/**
 * curl's rows where rsi answers otherwise: loopback hosts whose NO_PROXY does not list them. curl
 * proxies them; rsi (like Go) never sends loopback to a proxy. Its NO_PROXY reading still agrees
 * with curl's on these rows (checked through `bypassed`): only the loopback rule overrides it.
 */
const CURL_LOOPBACK_DIFFERENCES = 9;

// ---- the tables ---------------------------------------------------------------------------------

function goKey(row: GoUrlRow): string {
  const parts: string[] = [];
  if (row.http) parts.push(`http_proxy=${JSON.stringify(row.http)}`);
  if (row.https) parts.push(`https_proxy=${JSON.stringify(row.https)}`);
  if (row.noProxy) parts.push(`no_proxy=${JSON.stringify(row.noProxy)}`);
  parts.push(`req=${JSON.stringify(row.req)}`);
  return `${parts.join(' ')}${row.cgi ? ' CGI' : ''}`;
}

/** rsi's answer to one of Go's proxyForURL rows, in Go's terms ("<nil>" or the proxy's URL). */
function rsiForGoRow(row: GoUrlRow): string {
  let url: URL;
  try {
    url = new URL(row.req);
  } catch {
    return 'not a URL';
  }
  // Go's Config fields are either case of each variable; the lower-case ones are what both Go and
  // curl read first. CGI is what Go infers from REQUEST_METHOD.
  const env = { http_proxy: row.http, https_proxy: row.https, no_proxy: row.noProxy, REQUEST_METHOD: row.cgi ? 'GET' : undefined };
  try {
    return proxyFor(url, proxySettings(env)) ?? '<nil>';
  } catch (error) {
    if (error instanceof UsageError) return 'usage error';
    throw error;
  }
}

describe.skipIf(skipGo)("Go's golang.org/x/net/http/httpproxy table", () => {
  const go = skipGo ? { urlRows: [], hosts: [], noProxy: '', extra: [] } : readGo();

  it('was read whole: every row of proxyForURLTests and UseProxyTests, and the list they share', () => {
    // golang.org/x/net 0.58.0 has 26 proxyForURLTests rows and 27 UseProxyTests hosts: fewer means
    // the file changed shape and this parser missed some.
    expect(go.urlRows.length).toBeGreaterThanOrEqual(26);
    expect(go.hosts.length).toBeGreaterThanOrEqual(27);
    expect(go.noProxy).toContain('.barbaz.net');
    const keys = new Set(go.urlRows.map(goKey));
    for (const key of Object.keys(GO_DIFFERENCES)) expect(keys, `a listed difference no row has: ${key}`).toContain(key);
    for (const host of Object.keys(GO_HOST_DIFFERENCES)) expect(go.hosts.map(([h]) => h)).toContain(host);
  });

  it.each(go.urlRows.map((row) => [goKey(row), row] as const))('proxyForURL %s', (key, row) => {
    const want = row.want === '<nil>' ? '<nil>' : new URL(row.want).href;
    const got = rsiForGoRow(row);
    const difference = GO_DIFFERENCES[key];
    if (difference) {
      expect(got, difference.why).toBe(difference.rsi);
      expect(got).not.toBe(want);
    } else {
      expect(got).toBe(want);
    }
  });

  it.each(go.hosts.map(([host, useProxy]) => [host, useProxy] as const))('useProxy(%s:80) under its NO_PROXY list', (host, useProxy) => {
    const url = urlFor(host, ':80');
    const got: Verdict = proxyFor(url, proxySettings({ http_proxy: PROXY, no_proxy: go.noProxy })) ? 'proxy' : 'direct';
    const want: Verdict = useProxy ? 'proxy' : 'direct';
    const difference = GO_HOST_DIFFERENCES[host];
    if (difference) {
      expect(got, difference.why).toBe(difference.rsi);
      expect(got).not.toBe(want);
    } else {
      expect(got).toBe(want);
    }
  });

  it.each(go.extra)('useProxy(%s) with NO_PROXY=%j uses a proxy: %s', (hostPort, noProxy, useProxy) => {
    const [, host = '', port = ''] = /^(.*?)(:\d+)?$/.exec(hostPort) ?? [];
    const got = proxyFor(urlFor(host, port), proxySettings({ http_proxy: PROXY, no_proxy: noProxy })) !== undefined;
    expect(got).toBe(useProxy);
  });
});

describe.skipIf(skipCurl)("curl's NO_PROXY unit cases (tests/unit/unit1614.c)", () => {
  const rows = skipCurl ? [] : readCurl();

  it('was read whole: the noproxy list and both CIDR lists, and the loopback rows are the only differences', () => {
    // curl 8.21.0: 12 IPv4 and 5 IPv6 CIDR rows, 78 NO_PROXY rows.
    expect(rows.filter((r) => r.list === 'list4').length).toBeGreaterThanOrEqual(12);
    expect(rows.filter((r) => r.list === 'list6').length).toBeGreaterThanOrEqual(5);
    expect(rows.filter((r) => r.list === 'list').length).toBeGreaterThanOrEqual(70);
    const loopbackMisses = rows.filter((r) => isLoopback(urlFor(r.host).hostname) && !r.match);
    expect(loopbackMisses).toHaveLength(CURL_LOOPBACK_DIFFERENCES);
  });

  it.each(rows.map((r) => [r.list, r.host, r.noProxy, r.match, r] as const))(
    '%s: %s with NO_PROXY=%j is in the list: %s',
    (_list, host, noProxy, match, _row) => {
      const url = urlFor(host);
      const got: Verdict = proxyFor(url, proxySettings({ http_proxy: PROXY, https_proxy: PROXY, no_proxy: noProxy })) ? 'proxy' : 'direct';
      const want: Verdict = match ? 'direct' : 'proxy';
      // NO_PROXY itself is read as curl reads it on every row, loopback included.
      expect(bypassed(url, noProxy)).toBe(match);
      if (isLoopback(url.hostname) && !match) {
        // The deliberate difference: curl proxies loopback that NO_PROXY does not list; rsi never does.
        expect(got).toBe('direct');
      } else {
        expect(got).toBe(want);
      }
    },
  );
});

// `rsi sandbox --tls` and the sandbox's own host names, in process: the throwaway CA and server
// certificate (made without openssl) pass Node's X.509 checks and a real TLS handshake; every URL
// the sandbox hands out says https://; and a request naming a foreign host in Host (DNS rebinding)
// is answered 421 while the sandbox's own names work.
import { X509Certificate } from 'node:crypto';
import { request as httpsRequest } from 'node:https';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { makeSandboxTls, type SandboxTls } from '../../src/sandbox/x509.js';

let tls: SandboxTls;
let secure: Sandbox;
let plain: Sandbox;
beforeAll(async () => {
  tls = makeSandboxTls(['127.0.0.1', 'localhost', '::1', 'rsi.test']);
  [secure, plain] = await Promise.all([startSandbox({ tls, publicHost: 'rsi.test' }), startSandbox({})]);
});
afterAll(async () => {
  await Promise.all([secure?.close(), plain?.close()]);
});

/** One GET to the sandbox's port on 127.0.0.1 with the given Host (and, over TLS, server name). */
function get(sandbox: Sandbox, path: string, host: string, servername = 'rsi.test'): Promise<{ status: number; body: string }> {
  const url = new URL(sandbox.url);
  const https = url.protocol === 'https:';
  const send = https ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      {
        host: '127.0.0.1',
        port: url.port,
        path,
        headers: { host },
        ...(https ? { ca: tls.caCert, servername } : {}),
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('the throwaway certificates', () => {
  it('a CA that signed a server certificate for the loopback names and --public-host, for server auth', () => {
    const ca = new X509Certificate(tls.caCert);
    const leaf = new X509Certificate(tls.cert);
    expect(ca.ca).toBe(true);
    expect(leaf.ca).toBe(false);
    expect(leaf.checkIssued(ca)).toBe(true);
    expect(leaf.verify(ca.publicKey)).toBe(true);
    expect(leaf.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(leaf.checkIP('::1')).toBe('::1');
    expect(leaf.checkHost('localhost')).toBe('localhost');
    expect(leaf.checkHost('rsi.test')).toBe('rsi.test');
    expect(leaf.checkHost('evil.example')).toBeUndefined();
    expect(leaf.keyUsage).toContain('1.3.6.1.5.5.7.3.1');
    expect(new Date(leaf.validTo).getTime()).toBeGreaterThan(Date.now() + 24 * 3600 * 1000);
  });
});

describe('sandbox --tls', () => {
  it('serves https: discovery, issuer, resources and setup_url all say https://', async () => {
    expect(secure.url).toMatch(/^https:\/\/rsi\.test:\d+$/);
    const host = new URL(secure.url).host;
    const as = await get(secure, '/.well-known/oauth-authorization-server', host);
    expect(as.status).toBe(200);
    const meta = JSON.parse(as.body) as Record<string, string>;
    expect(meta.issuer).toBe(secure.url);
    expect(meta.token_endpoint).toBe(`${secure.url}/oauth/token`);
    const pr = JSON.parse((await get(secure, '/.well-known/oauth-protected-resource/mcp', host)).body) as { resource: string };
    expect(pr.resource).toBe(`${secure.url}/mcp`);
  });
});

describe('only its own host names (DNS rebinding)', () => {
  it.each(['evil.example', 'rsi.test', '127.0.0.1:1'])('Host %s on the plain sandbox → 421', async (host) => {
    const r = await get(plain, '/.well-known/oauth-authorization-server', host);
    expect(r.status).toBe(421);
    expect(r.body).toContain('only to its own host names');
  });

  it('answers 127.0.0.1, localhost and [::1] with its port, and --public-host', async () => {
    const port = new URL(plain.url).port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, `LOCALHOST:${port}`]) {
      expect((await get(plain, '/.well-known/oauth-authorization-server', host)).status, host).toBe(200);
    }
    const securePort = new URL(secure.url).port;
    expect((await get(secure, '/', `rsi.test:${securePort}`)).status).toBe(200);
    expect((await get(secure, '/', `evil.example:${securePort}`)).status).toBe(421);
  });
});

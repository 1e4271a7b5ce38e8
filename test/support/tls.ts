/**
 * TLS fixtures for tests: a throw-away certificate authority and server certificates made with the
 * openssl command line (on every Debian machine this project runs on), and an https front that
 * forwards to a sandbox, rewriting the sandbox's own http origin to the front's https one in both
 * directions, so discovery, issuer checks and resource indicators all see one https service.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, constants, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SystemPart } from './system.js';

export interface TestCa {
  dir: string;
  /** PEM file of the CA certificate: what NODE_EXTRA_CA_CERTS points at. */
  caFile: string;
  /** Issues a server certificate; `days` below 0 makes one that has already expired. */
  issue(name: string, options: { subjectAltName: string; days?: number }): { key: string; cert: string };
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

/**
 * `loopbackOnly`: the CA may vouch for 127.0.0.0/8, localhost and names under .test, nothing else (X.509 name
 * constraints), so while one sits in the machine's trust store it cannot vouch for any real host.
 */
export function createTestCa(options: { loopbackOnly?: boolean } = {}): TestCa {
  const dir = mkdtempSync(join(tmpdir(), 'rsi-ca-'));
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  const constrained = options.loopbackOnly
    ? [
        '-addext',
        'basicConstraints=critical,CA:true',
        '-addext',
        'keyUsage=critical,keyCertSign,cRLSign',
        '-addext',
        'nameConstraints=critical,permitted;IP:127.0.0.0/255.0.0.0,permitted;DNS:localhost,permitted;DNS:test',
      ]
    : [];
  openssl(['req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=rsi test CA', ...constrained], dir);
  return {
    dir,
    caFile: join(dir, 'ca.pem'),
    issue(name, options) {
      openssl(['req', ...ec, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`], dir);
      writeFileSync(join(dir, `${name}.ext`), `subjectAltName=${options.subjectAltName}\nextendedKeyUsage=serverAuth\n`);
      openssl(
        [
          'x509',
          '-req',
          '-in',
          `${name}.csr`,
          '-CA',
          'ca.pem',
          '-CAkey',
          'ca.key',
          '-CAcreateserial',
          '-out',
          `${name}.pem`,
          '-days',
          String(options.days ?? 2),
          '-extfile',
          `${name}.ext`,
        ],
        dir,
      );
      return { key: readFileSync(join(dir, `${name}.key`), 'utf8'), cert: readFileSync(join(dir, `${name}.pem`), 'utf8') };
    },
  };
}

export interface HttpsFront {
  url: string;
  /** Requests that completed a TLS handshake and reached the front. */
  requests: number;
  stop(): Promise<void>;
}

/**
 * An https server on 127.0.0.1 that forwards every request to `upstream` (an http sandbox). With
 * `hostname`, its URL names that host instead (one only a test proxy resolves, say).
 */
export async function startHttpsFront(upstream: string, tls: { key: string; cert: string }, hostname = '127.0.0.1'): Promise<HttpsFront> {
  const sockets = new Set<Socket>();
  let front = '';
  const swap = (text: string, from: string, to: string) =>
    text.split(from).join(to).split(encodeURIComponent(from)).join(encodeURIComponent(to));
  const state = { requests: 0 };
  const server: Server = createServer(tls, (req, res) => {
    state.requests++;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.from(swap(Buffer.concat(chunks).toString('utf8'), front, upstream));
      const headers = { ...req.headers, host: new URL(upstream).host, 'content-length': String(body.length) };
      const up = httpRequest(`${upstream}${swap(req.url ?? '/', front, upstream)}`, { method: req.method, headers }, (ur) => {
        const parts: Buffer[] = [];
        ur.on('data', (c: Buffer) => parts.push(c));
        ur.on('end', () => {
          const out = Buffer.from(swap(Buffer.concat(parts).toString('utf8'), upstream, front));
          const h = { ...ur.headers, 'content-length': String(out.length) };
          if (typeof h.location === 'string') h.location = swap(h.location, upstream, front);
          delete h['transfer-encoding'];
          res.writeHead(ur.statusCode ?? 502, h).end(out);
        });
      });
      up.on('error', () => res.writeHead(502).end());
      up.end(body);
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  // A client that rejects the certificate closes the socket mid-handshake: not an error here.
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  front = `https://${hostname}:${(server.address() as AddressInfo).port}`;
  return {
    url: front,
    get requests() {
      return state.requests;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Debian's trust store folder for local CAs, which `update-ca-certificates` adds to the store. */
const LOCAL_CA_DIR = '/usr/local/share/ca-certificates';
/** Where update-ca-certificates links them, and OpenSSL (and Node's 'system' source) reads them. */
const ETC_CERTS = '/etc/ssl/certs';
/** The machine-wide lock every test suite's update-ca-certificates run takes (flock, util-linux). */
const UPDATE_LOCK = '/run/lock/rsi-test-update-ca-certificates.lock';

/**
 * Installing a CA in this machine's trust store needs root and Debian's `update-ca-certificates`
 * (package ca-certificates; .ci/run installs it and runs as root).
 */
export function systemTrustStorePart(): SystemPart {
  const name = "the system's trust store (update-ca-certificates, as root)";
  const tool = spawnSync('sh', ['-c', 'command -v update-ca-certificates'], { stdio: 'ignore' }).status === 0;
  if (!tool) return { name, available: false, reason: 'update-ca-certificates not found (apt-get install ca-certificates)' };
  if (process.getuid?.() !== 0) return { name, available: false, reason: 'installing a CA in the system store needs root' };
  try {
    accessSync(LOCAL_CA_DIR, constants.W_OK);
  } catch {
    return { name, available: false, reason: `${LOCAL_CA_DIR} is not writable` };
  }
  return { name, available: true, reason: '' };
}

/**
 * Puts `caFile` in the system's trust store as an administrator does (a .crt in
 * /usr/local/share/ca-certificates, then update-ca-certificates) under a random name; the function
 * it returns takes it out again, safe to call twice. Nothing is left in the repository or the store.
 * The hooks (Java's keystore) are not run: a test has no business changing other programs' stores.
 */
export function installInSystemStore(caFile: string): () => void {
  const name = `rsi-test-${randomBytes(6).toString('hex')}`;
  const installed = join(LOCAL_CA_DIR, `${name}.crt`);
  const hooks = mkdtempSync(join(tmpdir(), 'rsi-no-hooks-'));
  // One change of the store at a time on this machine, the file copied or removed inside the same
  // lock as the update: update-ca-certificates builds the bundle in a fixed temporary file
  // (ca-certificates.crt.new), so two suites run at once appended into the same file, and one
  // scanning the folder while the other removed its .crt failed reading it ("sed: can't read").
  // Under the lock each change starts after the previous one ended and sees a still folder.
  const locked = (script: string, ...args: string[]) =>
    execFileSync('flock', [UPDATE_LOCK, 'sh', '-c', script, 'sh', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  locked('cp "$1" "$2" && update-ca-certificates --hooksdir "$3"', caFile, installed, hooks);
  return () => {
    if (!existsSync(installed)) return;
    // A plain run rebuilds the bundle file but leaves the links to a removed local CA (only
    // --fresh, which relinks every certificate, clears them): the link and its hash names go too.
    locked(
      'rm -f "$1" && update-ca-certificates --hooksdir "$2" && for f in "$3"/*; do ' +
        'if [ "${f##*/}" = "$4.pem" ] || { [ -L "$f" ] && [ "$(readlink "$f")" = "$4.pem" ]; }; then rm -f "$f"; fi; done',
      installed,
      hooks,
      ETC_CERTS,
      name,
    );
    rmSync(hooks, { recursive: true, force: true });
  };
}

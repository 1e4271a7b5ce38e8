/**
 * What a failed request's error means: the error code under Node's error, the reason a
 * person reads, the TLS verdicts with their fix named, and the failures retrying cannot fix.
 * Used by `Network` (src/http/network.ts).
 */
import { NO_SYSTEM_CA, type SystemStore } from './system-ca.js';

/** Failures that retrying cannot fix (TLS verification, proxy credentials): never retried. */
const permanent = new WeakSet<Error>();
export function isPermanentFailure(error: unknown): boolean {
  return error instanceof Error && permanent.has(error);
}
export function markPermanent<E extends Error>(error: E): E {
  permanent.add(error);
  return error;
}

export function errorCode(error: unknown): string | undefined {
  const e = error as { code?: unknown; cause?: { code?: unknown } } | undefined;
  const code = typeof e?.code === 'string' ? e.code : typeof e?.cause?.code === 'string' ? e.cause.code : undefined;
  return code;
}

export function networkReason(code: string | undefined, message: string): string {
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host not found';
    case 'ECONNRESET':
      return 'the connection was closed unexpectedly';
    default:
      return message;
  }
}

/** How a kept-alive connection the server already closed fails the next request sent on it. */
export const STALE_SOCKET = new Set(['ECONNRESET', 'EPIPE']);
export const UNKNOWN_CA = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
]);

/** OpenSSL's other certificate verdicts (X509_V_ERR_*, as Node names them). */
const REJECTED_CERT = new Set([
  'UNABLE_TO_DECRYPT_CERT_SIGNATURE',
  'UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY',
  'ERROR_IN_CERT_NOT_BEFORE_FIELD',
  'ERROR_IN_CERT_NOT_AFTER_FIELD',
  'CERT_CHAIN_TOO_LONG',
  'CERT_REVOKED',
  'INVALID_CA',
  'PATH_LENGTH_EXCEEDED',
  'INVALID_PURPOSE',
  'CERT_REJECTED',
]);

/**
 * A TLS verification failure, with the fix named. For an unknown CA the fix depends on where the
 * system store stands (src/http/system-ca.ts): already trusted and the CA not in it, turned off,
 * or out of this Node's reach (before 22.15).
 */
export function tlsFailure(
  code: string | undefined,
  host: string,
  store: SystemStore,
  message = '',
): { reason: string; hint: string } | undefined {
  if (!code) return undefined;
  // OpenSSL's own text ("…:SSL routines:ssl3_get_record:wrong version number:../deps/…") is for
  // its developers: the one case a person meets is an https:// address on a port that is not TLS.
  if (code === 'EPROTO' || code.startsWith('ERR_SSL_')) {
    const plain = /wrong version number|packet length too long|http request/i.test(message);
    const what = /SSL routines:[^:]*:([^:]+)/.exec(message)?.[1] ?? code;
    return plain
      ? {
          reason: `${host} does not answer in TLS on that port (${what})`,
          hint: 'check the port in --base-url; a service that speaks plain HTTP needs an http:// address, which rsi accepts for loopback only',
        }
      : { reason: `the TLS handshake with ${host} failed (${what})`, hint: 'check --base-url, and any proxy or gateway that handles TLS' };
  }
  if (UNKNOWN_CA.has(code)) {
    const self = code === 'DEPTH_ZERO_SELF_SIGNED_CERT' || code === 'SELF_SIGNED_CERT_IN_CHAIN';
    const who = store.state === 'added' ? "Node and this system's trust store do not trust" : 'Node does not trust';
    return {
      reason: `the TLS certificate of ${host} is ${self ? 'self-signed or signed by an unknown authority' : `signed by an authority ${who}`} (${code})`,
      hint: `if your network uses its own certificate authority (a corporate proxy or gateway), trust it: ${caFix(store)}`,
    };
  }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID' || code === 'HOSTNAME_MISMATCH') {
    return {
      reason: `the TLS certificate presented for ${host} is for another host name (${code})`,
      hint: "check --base-url: use the host name the service's certificate names; a proxy that intercepts TLS must issue certificates for the real host",
    };
  }
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID') {
    return {
      reason: `the TLS certificate of ${host} ${code === 'CERT_HAS_EXPIRED' ? 'has expired' : 'is not valid yet'} (${code})`,
      hint: "check your computer's clock (NTP); if it is right, the service must renew its certificate",
    };
  }
  // Every other verdict of OpenSSL's certificate check: the network delivered the certificate
  // faithfully, and asking again gets the same one.
  if (REJECTED_CERT.has(code)) {
    return {
      reason: `the TLS certificate of ${host} was rejected (${code})`,
      hint: 'the certificate the service (or a proxy or gateway in front of it) presents cannot be used for TLS; its owner must replace it',
    };
  }
  return undefined;
}

/**
 * Whether an error is OpenSSL's verdict on the server's certificate: it comes from the handshake,
 * before Node's client writes a byte of the request (src/http/direct.ts, `neverSent`), so a POST
 * refused this way may go again once the system's trust store is read.
 */
export function isCertificateVerdict(code: string | undefined): boolean {
  if (!code) return false;
  return (
    UNKNOWN_CA.has(code) ||
    REJECTED_CERT.has(code) ||
    code === 'ERR_TLS_CERT_ALTNAME_INVALID' ||
    code === 'HOSTNAME_MISMATCH' ||
    code === 'CERT_HAS_EXPIRED' ||
    code === 'CERT_NOT_YET_VALID'
  );
}

/** The ways to trust a CA that are open, given where the system store stands. */
function caFix(store: SystemStore): string {
  const file = 'NODE_EXTRA_CA_CERTS=/path/ca.pem';
  switch (store.state) {
    case 'added':
    case 'unread':
      return `install it in the system's trust store (where IT installs it; update-ca-certificates on Debian), or ${file}`;
    case 'off':
      return `${file}, or let rsi read the system's trust store: unset ${NO_SYSTEM_CA}`;
    case 'unavailable':
      return `${file} (Node ${store.nodeVersion} cannot read the system's trust store; on Node 22.15 or later rsi trusts it too)`;
    case 'unreadable':
      return `${file} (the system's trust store could not be read: ${store.reason})`;
  }
}

/** The `--debug` trace line for the moment the system store was looked at. */
export function describeStore(store: SystemStore): string {
  switch (store.state) {
    case 'added':
      return `certificate not trusted by Node's roots: trying again with the system's trust store (${store.count} more certificates)`;
    case 'unavailable':
      return `certificate not trusted by Node's roots; Node ${store.nodeVersion} cannot read the system's trust store`;
    case 'unreadable':
      return `certificate not trusted by Node's roots; the system's trust store could not be read: ${store.reason}`;
    default:
      return `certificate not trusted by Node's roots (system trust store: ${store.state})`;
  }
}

/**
 * A throwaway certificate authority and server certificate for `rsi sandbox --tls`, made with Node's
 * own crypto and no openssl binary. Node can make keys and sign, but not lay out an X.509
 * certificate, so this writes the few DER structures an ECDSA P-256 certificate needs (RFC 5280):
 * about a hundred lines, against a dependency tree (@peculiar/x509 pulls in eleven packages,
 * tsyringe included) shipped in the bundle for a test tool. Node's `X509Certificate` and the TLS
 * handshake in test/sandbox/tls-hosts.test.ts check the result.
 */
import { generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';
import { isIP } from 'node:net';

export interface SandboxTls {
  /** PEM of the CA certificate: what NODE_EXTRA_CA_CERTS points at. */
  caCert: string;
  /** PEM of the server certificate followed by the CA's (the chain the server sends). */
  cert: string;
  /** PEM (PKCS #8) of the server's private key. */
  key: string;
}

/** A CA and a server certificate for `names` (host names and IP addresses), valid for 30 days. */
export function makeSandboxTls(names: readonly string[], now = new Date()): SandboxTls {
  const ca = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const server = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  // A random tag in the CA's name: two sandboxes' CAs never pass for each other.
  const caName = name(`rsi sandbox CA ${randomBytes(4).toString('hex')}`);
  const notBefore = new Date(now.getTime() - 60 * 60 * 1000);
  const notAfter = new Date(now.getTime() + 30 * 24 * 60 * 60 * 1000);
  const caCert = certificate({
    issuer: caName,
    subject: caName,
    publicKey: ca.publicKey,
    signer: ca.privateKey,
    notBefore,
    notAfter,
    extensions: [
      extension('2.5.29.19', true, seq(bool(true))), // basicConstraints: CA
      extension('2.5.29.15', true, bits(0x06, 1)), // keyUsage: keyCertSign, cRLSign
    ],
  });
  const serverCert = certificate({
    issuer: caName,
    subject: name('rsi sandbox'),
    publicKey: server.publicKey,
    signer: ca.privateKey,
    notBefore,
    notAfter,
    extensions: [
      extension('2.5.29.19', true, seq()), // basicConstraints: not a CA
      extension('2.5.29.15', true, bits(0x80, 7)), // keyUsage: digitalSignature
      extension('2.5.29.37', false, seq(oid('1.3.6.1.5.5.7.3.1'))), // extKeyUsage: serverAuth
      extension('2.5.29.17', false, seq(...names.map(altName))), // subjectAltName
    ],
  });
  return {
    caCert: pem('CERTIFICATE', caCert),
    cert: pem('CERTIFICATE', serverCert) + pem('CERTIFICATE', caCert),
    key: server.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}

interface CertificateParts {
  issuer: Buffer;
  subject: Buffer;
  publicKey: KeyObject;
  signer: KeyObject;
  notBefore: Date;
  notAfter: Date;
  extensions: Buffer[];
}

const ECDSA_SHA256 = () => seq(oid('1.2.840.10045.4.3.2'));

function certificate(p: CertificateParts): Buffer {
  const serial = randomBytes(16);
  serial[0] = (serial[0]! & 0x7f) | 0x40; // positive and 16 bytes long
  const tbs = seq(
    tlv(0xa0, int(Buffer.from([2]))), // version 3
    int(serial),
    ECDSA_SHA256(),
    p.issuer,
    seq(time(p.notBefore), time(p.notAfter)),
    p.subject,
    p.publicKey.export({ type: 'spki', format: 'der' }),
    tlv(0xa3, seq(...p.extensions)),
  );
  const signature = sign('sha256', tbs, p.signer);
  return seq(tbs, ECDSA_SHA256(), tlv(0x03, Buffer.concat([Buffer.from([0]), signature])));
}

function tlv(tag: number, content: Buffer): Buffer {
  const n = content.length;
  const length = n < 0x80 ? Buffer.from([n]) : n < 0x100 ? Buffer.from([0x81, n]) : Buffer.from([0x82, n >> 8, n & 0xff]);
  return Buffer.concat([Buffer.from([tag]), length, content]);
}
const seq = (...items: Buffer[]) => tlv(0x30, Buffer.concat(items));
const bool = (value: boolean) => tlv(0x01, Buffer.from([value ? 0xff : 0]));
const int = (bytes: Buffer) => tlv(0x02, bytes);
const bits = (byte: number, unused: number) => tlv(0x03, Buffer.from([unused, byte]));

function oid(dotted: string): Buffer {
  const [a = 0, b = 0, ...rest] = dotted.split('.').map(Number);
  const out = [40 * a + b];
  for (const arc of rest) {
    const chunk = [arc & 0x7f];
    for (let v = arc >> 7; v > 0; v >>= 7) chunk.unshift((v & 0x7f) | 0x80);
    out.push(...chunk);
  }
  return tlv(0x06, Buffer.from(out));
}

/** A Name with one common name. */
function name(commonName: string): Buffer {
  return seq(tlv(0x31, seq(oid('2.5.4.3'), tlv(0x0c, Buffer.from(commonName, 'utf8')))));
}

function time(date: Date): Buffer {
  // UTCTime (YYMMDDHHMMSSZ) up to 2049, as RFC 5280 requires.
  const iso = date.toISOString();
  const digits = `${iso.slice(2, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`;
  return tlv(0x17, Buffer.from(digits, 'ascii'));
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return seq(oid(id), ...(critical ? [bool(true)] : []), tlv(0x04, value));
}

/** dNSName [2] or iPAddress [7] (4 or 16 bytes). */
function altName(value: string): Buffer {
  const bare = value.replace(/^\[(.*)\]$/, '$1');
  const family = isIP(bare);
  if (family === 4) return tlv(0x87, Buffer.from(bare.split('.').map(Number)));
  if (family === 6) return tlv(0x87, ipv6Bytes(bare));
  return tlv(0x82, Buffer.from(value.toLowerCase(), 'ascii'));
}

function ipv6Bytes(address: string): Buffer {
  const [head = '', tail] = address.split('::');
  const groups = (part: string) => (part ? part.split(':') : []);
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const all = [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  const out = Buffer.alloc(16);
  for (const [i, g] of all.entries()) out.writeUInt16BE(Number.parseInt(g, 16), i * 2);
  return out;
}

function pem(label: string, der: Buffer): string {
  const body = der.toString('base64').replace(/(.{64})/g, '$1\n');
  return `-----BEGIN ${label}-----\n${body}${body.endsWith('\n') ? '' : '\n'}-----END ${label}-----\n`;
}

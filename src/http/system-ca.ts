/**
 * The operating system's trust store (where IT installs a corporate CA, and where curl, gh and
 * browsers look), added to Node's bundled roots and NODE_EXTRA_CA_CERTS. Node reads it through
 * `tls.getCACertificates('system')` from 22.15 and 23.10 (the single executable embeds 26); an
 * older Node cannot, and the TLS error's hint says what to do instead.
 *
 * Reading the store parses every certificate in it (on Debian the bundle file and the folder's
 * hashed links, 400+ certificates: 40-140 ms on these machines, docs/performance.md), so it is
 * read only when a certificate fails to verify against Node's own roots, once per process. A
 * service with a public certificate never pays for it.
 *
 * The roots go into a TLS context of rsi's own, handed to its agents, rather than through
 * `tls.setDefaultCACertificates`: that arrived later (22.19, 24.5), so 22.15-22.18 could not use
 * it, and it would change every other TLS client in the process too.
 */
import type { SecureContext } from 'node:tls';

/** Where the system store stands for this process, for the trace and the TLS hint. */
export type SystemStore =
  /** Not looked at yet: every certificate so far verified against Node's roots. */
  | { state: 'unread' }
  /** Read and in use, `count` certificates on top of Node's own. */
  | { state: 'added'; count: number; context: SecureContext }
  /** Turned off with RSI_NO_SYSTEM_CA. */
  | { state: 'off' }
  /** This Node has no way to read it (before 22.15). */
  | { state: 'unavailable'; nodeVersion: string }
  /** Reading it failed (an unreadable file the platform names, say). */
  | { state: 'unreadable'; reason: string };

/** `tls.getCACertificates` is newer than the @types/node this project builds against (20). */
type TlsWithStore = typeof import('node:tls') & {
  getCACertificates?: (type?: 'default' | 'system' | 'bundled' | 'extra') => string[];
};

/** The environment variable that keeps rsi out of the system store (docs/auth.md). */
export const NO_SYSTEM_CA = 'RSI_NO_SYSTEM_CA';

/** RSI_NO_SYSTEM_CA set to anything but empty, `0` or `false` turns the system store off. */
export function systemStoreOff(env: Record<string, string | undefined>): boolean {
  const value = env[NO_SYSTEM_CA]?.trim().toLowerCase();
  return value !== undefined && value !== '' && value !== '0' && value !== 'false';
}

let read: Promise<SystemStore> | undefined;

/**
 * Node's default roots (bundled, NODE_EXTRA_CA_CERTS) and the system's, as one TLS context for
 * every later connection: made once per process, since the read is the costly part.
 */
export function readSystemStore(): Promise<SystemStore> {
  read ??= import('node:tls').then((tls: TlsWithStore): SystemStore => {
    if (typeof tls.getCACertificates !== 'function') return { state: 'unavailable', nodeVersion: process.version };
    try {
      const own = tls.getCACertificates('default');
      const system = tls.getCACertificates('system');
      // On Debian the store lists each certificate up to three times (bundle file, folder, hash link).
      const ca = [...new Set([...own, ...system])];
      return { state: 'added', count: ca.length - own.length, context: tls.createSecureContext({ ca }) };
    } catch (error) {
      return { state: 'unreadable', reason: error instanceof Error ? error.message : String(error) };
    }
  });
  return read;
}

// The one send rule (src/http/resend.ts) and the command's one bound (src/context/deadline.ts).
import { describe, expect, it } from 'vitest';
import { createDeadline, parseDuration } from '../../src/context/deadline.js';
import { CommandTimeoutError, UsageError } from '../../src/errors.js';
import { neverSent } from '../../src/http/direct.js';
import { isIdempotent, maySendAgain } from '../../src/http/resend.js';

describe('the send rule: the method and what is known of the attempt decide', () => {
  it.each([
    // method, attempt, may go again
    ['POST', { sent: false }, true],
    ['POST', { sent: true }, false],
    ['PATCH', { sent: true }, false],
    ['GET', { sent: true }, true],
    ['PUT', { sent: true }, true],
    ['DELETE', { sent: true }, true],
    ['POST', { status: 429 }, true],
    ['POST', { status: 503, retryAfter: '1' }, true],
    ['POST', { status: 503 }, false],
    ['POST', { status: 502 }, false],
    ['POST', { status: 504 }, false],
    ['POST', { status: 401 }, true],
    ['GET', { status: 503 }, true],
    ['GET', { status: 500 }, false],
  ] as const)('%s after %j: %s', (method, attempt, expected) => {
    expect(maySendAgain(method, attempt)).toBe(expected);
  });

  it("a certificate the handshake refused was never sent (so a POST goes again once the system's trust store is read)", () => {
    const failure = (code: string) => Object.assign(new Error(code), { code });
    for (const code of [
      'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
      'SELF_SIGNED_CERT_IN_CHAIN',
      'ERR_TLS_CERT_ALTNAME_INVALID',
      'CERT_HAS_EXPIRED',
    ]) {
      expect(neverSent(failure(code)), code).toBe(true);
    }
    // A connection that broke after it was open may have carried the request.
    expect(neverSent(failure('ECONNRESET'))).toBe(false);
  });

  it('reads the method in any case', () => {
    expect(isIdempotent('get')).toBe(true);
    expect(isIdempotent('post')).toBe(false);
  });
});

describe('--timeout: one bound for the whole command', () => {
  it.each([
    ['90', 90_000],
    ['1.5', 1500],
    ['500ms', 500],
    ['90s', 90_000],
    ['5m', 300_000],
    ['1h30m', 5_400_000],
    ['0', 0],
  ])('%s is %d ms', (raw, ms) => {
    expect(parseDuration('--timeout', raw)).toBe(ms);
  });

  it.each(['-1', 'soon', '5 m', '', '8d', '200h'])('%j is a usage error', (raw) => {
    expect(() => parseDuration('--timeout', raw)).toThrow(UsageError);
  });

  it('aborts the signal with the step under way; the first bound set holds; 0 is none', async () => {
    const deadline = createDeadline(new AbortController().signal, { now: () => Date.now() });
    expect(deadline.limit(200)).toBe(200);
    expect(deadline.limit(3_600_000)).toBe(200);
    deadline.step('the project list');
    await new Promise((resolve) => deadline.signal.addEventListener('abort', resolve, { once: true }));
    expect(deadline.signal.reason).toBeInstanceOf(CommandTimeoutError);
    expect((deadline.signal.reason as Error).message).toBe('gave up after 0.2 s (--timeout) waiting for the project list');
    const none = createDeadline(new AbortController().signal, { now: () => Date.now() });
    expect(none.limit(0)).toBe(0);
    expect(none.signal.aborted).toBe(false);
    none.dispose();
  });

  it('passes a stop (Ctrl-C, SIGTERM) through with its own reason', () => {
    const stop = new AbortController();
    const deadline = createDeadline(stop.signal, { now: () => Date.now() });
    stop.abort(new Error('SIGTERM'));
    expect((deadline.signal.reason as Error).message).toBe('SIGTERM');
  });
});

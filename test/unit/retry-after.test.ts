// The one Retry-After policy (src/http/retry-after.ts) that the API's retry layer and OAuth client
// registration share: what a header means, how long rsi waits by itself, and the backoff without one.
import { describe, expect, it } from 'vitest';
import { MAX_RETRY_WAIT_MS, backoffMs, parseRetryAfter, retryWait } from '../../src/http/retry-after.js';

const now = Date.parse('2026-01-01T00:00:00Z');

describe('parseRetryAfter', () => {
  it('reads delta-seconds, surrounding space allowed', () => {
    expect(parseRetryAfter('5', now)).toBe(5000);
    expect(parseRetryAfter('0', now)).toBe(0);
    expect(parseRetryAfter(' 12 ', now)).toBe(12_000);
  });

  it('reads an HTTP-date in each form RFC 9110 makes a recipient accept; one in the past is 0', () => {
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:03 GMT', now)).toBe(3000);
    expect(parseRetryAfter('Thursday, 01-Jan-26 00:00:07 GMT', now)).toBe(7000);
    // asctime has no zone; HTTP means GMT, whatever the machine's zone is.
    expect(parseRetryAfter('Thu Jan  1 00:00:09 2026', now)).toBe(9000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 00:00:00 GMT', now)).toBe(0);
  });

  it('treats an absent or unreadable value as absent (Date.parse would read some as dates in 2001)', () => {
    for (const value of [
      undefined,
      null,
      '',
      '   ',
      'soon',
      '1.5',
      '5s',
      '0x10',
      'Infinity',
      '2026-01-01T00:00:05Z',
      'Thu, 01 Jan 2026 00:00:03',
    ]) {
      expect(parseRetryAfter(value, now), String(value)).toBeUndefined();
    }
  });

  it('treats a negative value as unreadable, not as "now"', () => {
    expect(parseRetryAfter('-5', now)).toBeUndefined();
    expect(parseRetryAfter('-0', now)).toBeUndefined();
  });

  it('reads a huge delta-seconds as 2^31 seconds (RFC 9110), never Infinity or a lost precision', () => {
    expect(parseRetryAfter('99999999999999999999999', now)).toBe(2 ** 31 * 1000);
    expect(parseRetryAfter('2147483648', now)).toBe(2 ** 31 * 1000);
    expect(parseRetryAfter('86400', now)).toBe(86_400_000);
  });
});

describe('backoffMs', () => {
  it('doubles per attempt and spreads each wait over ±50 % of its base', () => {
    expect(backoffMs(0, () => 0)).toBe(125);
    expect(backoffMs(0, () => 0.5)).toBe(250);
    expect(backoffMs(0, () => 0.999)).toBeCloseTo(374.75);
    expect(backoffMs(2, () => 0.5)).toBe(1000);
    expect(backoffMs(1, () => 0.5, 1000)).toBe(2000);
  });
});

describe('retryWait', () => {
  const at = (attempt: number) => ({ now, attempt, random: () => 0.5 });

  it('waits what Retry-After asks, up to the cap', () => {
    expect(retryWait('3', at(0))).toEqual({ waitMs: 3000, retry: true });
    expect(retryWait(String(MAX_RETRY_WAIT_MS / 1000), at(0))).toEqual({ waitMs: MAX_RETRY_WAIT_MS, retry: true });
    expect(retryWait('Thu, 01 Jan 2026 00:00:04 GMT', at(1))).toEqual({ waitMs: 4000, retry: true });
  });

  it('gives up (retry false) when the service asks for longer than rsi waits by itself', () => {
    expect(retryWait('11', at(0))).toEqual({ waitMs: 11_000, retry: false });
    expect(retryWait('99999999999999999999999', at(0)).retry).toBe(false);
    expect(retryWait('Thu, 01 Jan 2026 01:00:00 GMT', at(0)).retry).toBe(false);
  });

  it('falls back to the backoff without a readable Retry-After (absent, garbage, negative)', () => {
    for (const value of [undefined, 'later', '-5', '1.5']) expect(retryWait(value, at(1))).toEqual({ waitMs: 500, retry: true });
    expect(retryWait(undefined, { now, attempt: 0, random: () => 0.5, baseMs: 1000 })).toEqual({ waitMs: 1000, retry: true });
  });
});

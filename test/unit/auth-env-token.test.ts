/** RSI_TOKEN checked before use: a character no bearer token has is a usage error, not exit 8. */
import { describe, expect, it } from 'vitest';
import { resolveCredentials } from '../../src/auth/credentials.js';
import { UsageError } from '../../src/errors.js';
import { Network } from '../../src/http/network.js';
import { fakeClock, fakeIo } from '../support/fakes.js';

const resolve = (token: string) =>
  resolveCredentials({
    globals: { profile: 'default', baseUrl: 'http://127.0.0.1:9', debug: false, timeoutMs: 1000 },
    env: { RSI_TOKEN: token, RSI_CONFIG_DIR: '/nonexistent/rsi-qa' },
    io: fakeIo(),
    clock: fakeClock(),
    signal: new AbortController().signal,
    version: '0.0.0',
    network: new Network({ env: {}, timeoutMs: 1000 }),
  });

describe('RSI_TOKEN', () => {
  it('is trimmed (a token pasted with its line break works)', async () => {
    expect((await resolve(' abc.DEF-123_~+/=\r\n')).envToken).toBe('abc.DEF-123_~+/=');
  });

  // undici refuses such a header and the request failed as "cannot reach the service" (exit 8).
  it.each([['a b'], ['gar\u001b[31mbage'], ['t\u00f6ken'], ['a\u0000b']])('%j → exit 2, one line', async (token) => {
    const error = await resolve(token).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toBe('RSI_TOKEN must be a single token: visible ASCII, no spaces');
  });
});

import { describe, expect, it } from 'vitest';
import { PAGES_IN_FLIGHT, pagesInFlight } from '../../src/client/paging.js';
import { UsageError } from '../../src/errors.js';

describe('RSI_PAGES_IN_FLIGHT', () => {
  it('defaults to a small number under the hard cap', async () => {
    expect(await pagesInFlight({})).toBe(PAGES_IN_FLIGHT.default);
    expect(await pagesInFlight({ RSI_PAGES_IN_FLIGHT: '' })).toBe(PAGES_IN_FLIGHT.default);
    expect(PAGES_IN_FLIGHT.default).toBeLessThanOrEqual(PAGES_IN_FLIGHT.max);
    expect(PAGES_IN_FLIGHT.max).toBe(8);
  });

  it('takes 1 to 8', async () => {
    expect(await pagesInFlight({ RSI_PAGES_IN_FLIGHT: '1' })).toBe(1);
    expect(await pagesInFlight({ RSI_PAGES_IN_FLIGHT: ' 8 ' })).toBe(8);
  });

  it.each(['0', '9', '100', 'many', '2.5', '-1'])('refuses %j with a usage error naming the variable and the range', async (raw) => {
    const error = await Promise.resolve()
      .then(() => pagesInFlight({ RSI_PAGES_IN_FLIGHT: raw }))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toBe(`RSI_PAGES_IN_FLIGHT must be an integer from 1 to 8 (got "${raw}")`);
  });
});

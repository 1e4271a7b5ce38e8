// The one read-ahead walk (src/client/paging.ts) on its own: search, relations and batches are it
// with different positions; client-api.test.ts, page-window.test.ts and scripting.test.ts drive it
// through them.
import { describe, expect, it } from 'vitest';
import { type Page, readAhead, type Walk } from '../../src/client/paging.js';
import { UnexpectedReplyError } from '../../src/errors.js';

/** Runs a walk to its end, recording the positions asked for and how many were out at each ask. */
async function drive<T>(walk: Omit<Walk<T>, 'fetch'>, page: (position: number) => Page<T>) {
  const asked: number[] = [];
  const outAtAsk: number[] = [];
  let out = 0;
  const rows: T[] = [];
  const it = readAhead<T>({
    ...walk,
    fetch: async (position) => {
      asked.push(position);
      outAtAsk.push(++out);
      await new Promise((r) => setImmediate(r));
      out--;
      return page(position);
    },
  });
  let next = await it.next();
  while (!next.done) {
    rows.push(next.value);
    next = await it.next();
  }
  return { rows, asked, outAtAsk, end: next.value };
}

describe('readAhead', () => {
  it('numbered pages: the first goes alone, then the window; an empty page ends the walk', async () => {
    const pages = [[], ['a', 'b'], ['c', 'd'], ['e']];
    const got = await drive({ by: 'page', start: 1, window: 3 }, (n) => ({ rows: pages[n] ?? [], pageSize: 2 }));
    expect(got.rows).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(got.outAtAsk[0]).toBe(1);
    expect(Math.max(...got.outAtAsk)).toBeLessThanOrEqual(3);
    expect(got.end).toEqual({ received: 5, end: 5, totals: new Set() });
  });

  it('offsets step by the rows a page held, and a total only bounds the read-ahead', async () => {
    // The server answers 3 rows a page whatever was asked, and promises 7 (it has 8).
    const data = ['r0', 'r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7'];
    const got = await drive({ by: 'row', start: 0, window: 4 }, (offset) => ({ rows: data.slice(offset, offset + 3), total: 7 }));
    expect(got.rows).toEqual(data);
    expect(got.end.end).toBe(8);
    expect([...got.end.totals]).toEqual([7]);
  });

  it("a repeated page ends the walk with the caller's error; without `repeated`, repeats are rows like any", async () => {
    const same = () => ({ rows: ['x'], pageSize: 1 });
    const repeated = (p: number, before: number) => new UnexpectedReplyError(`page ${p} repeats page ${before}`);
    await expect(drive({ by: 'page', start: 1, window: 1, repeated }, same)).rejects.toThrow('page 2 repeats page 1');
    const batch = await drive({ by: 'row', start: 0, window: 2, total: 3, probe: false }, (i) => ({ rows: i < 3 ? ['x'] : [] }));
    expect(batch.rows).toEqual(['x', 'x', 'x']);
  });

  it('probe: false fills the window at once, never past a known total and the empty page at it', async () => {
    const got = await drive({ by: 'row', start: 0, window: 3, total: 5, probe: false }, (i) => ({ rows: i < 5 ? [i] : [] }));
    expect(got.rows).toEqual([0, 1, 2, 3, 4]);
    expect(got.outAtAsk.slice(0, 3)).toEqual([1, 2, 3]);
    expect(Math.max(...got.asked)).toBe(5);
  });
});

describe('readAhead: the page cap (issue 30)', () => {
  it('a walk whose pages never end stops at the default cap of 10,000 pages with an error, never asking past cap + 1', async () => {
    const walk = drive({ by: 'page', start: 1, window: 8 }, (n) => ({ rows: [n], pageSize: 1 }));
    await expect(walk).rejects.toThrow(/stopped after 10000 pages/);
    await expect(walk).rejects.toBeInstanceOf(UnexpectedReplyError);
  });

  it('row walks too, and the caller names the error; a walk that ends exactly at the cap is not an error', async () => {
    const asked: number[] = [];
    const capped = readAhead<number>({
      by: 'row',
      start: 0,
      window: 4,
      maxPages: 50,
      capped: (cap) => new Error(`cap ${cap}`),
      fetch: async (offset) => {
        asked.push(offset);
        return { rows: [offset, offset + 1] };
      },
    });
    const rows: number[] = [];
    await expect(
      (async () => {
        for await (const r of capped) rows.push(r);
      })(),
    ).rejects.toThrow('cap 50');
    expect(rows).toHaveLength(100);
    expect(Math.max(...asked)).toBe(100);
    const exact = await drive({ by: 'page', start: 1, window: 8, maxPages: 5 }, (n) => ({ rows: n <= 5 ? [n] : [], pageSize: 1 }));
    expect(exact.rows).toEqual([1, 2, 3, 4, 5]);
    expect(Math.max(...exact.asked)).toBe(6);
  });
});

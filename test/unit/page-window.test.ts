// The pages-in-flight window of `--all`: the controller alone, then both paging walks against a
// server on virtual time (a fake clock; replies are released in order of their due time), counting
// how many requests are really out at once.
import { describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/client/client.js';
import { type AdaptiveInFlight, type InFlight, PageWindow, SLACK_MS } from '../../src/client/window.js';
import { PAGES_IN_FLIGHT, pageWindow } from '../../src/client/paging.js';
import type { Http, HttpRequest, HttpResponse } from '../../src/http/types.js';
import { UsageError } from '../../src/errors.js';
import { fakeClock } from '../support/fakes.js';

const adaptive = (now = () => 0): AdaptiveInFlight => ({ start: PAGES_IN_FLIGHT.default, max: PAGES_IN_FLIGHT.max, now });

describe('PageWindow', () => {
  it('grows by one per page while round trips stay near the best, up to the cap and no further', () => {
    const w = new PageWindow(adaptive());
    expect(w.size).toBe(6);
    w.observe(50); // the first page goes alone: it sets the best without moving the window
    expect(w.size).toBe(6);
    const sizes = [];
    for (let i = 0; i < 10; i++) {
      w.observe(50 + (i % 3) * 5);
      sizes.push(w.size);
    }
    expect(sizes).toEqual([7, 8, 8, 8, 8, 8, 8, 8, 8, 8]);
  });

  it('halves when a round trip climbs well above the best, and ignores replies sent before the cut', () => {
    const w = new PageWindow(adaptive());
    w.observe(50);
    w.observe(50);
    w.observe(50);
    expect(w.size).toBe(8);
    const before = w.sent(); // out under the window of 8
    w.observe(400);
    expect(w.size).toBe(4);
    w.observe(400, before.cuts); // queued behind the old window: says nothing of 4
    expect(w.size).toBe(4);
    w.observe(400);
    expect(w.size).toBe(2);
  });

  it('never goes below its floor, and a server that drains lets it grow again', () => {
    const w = new PageWindow({ ...adaptive(), min: 2 });
    w.observe(10);
    for (let i = 0; i < 20; i++) w.observe(1000);
    expect(w.size).toBe(2);
    w.observe(10);
    expect(w.size).toBe(3);
    const one = new PageWindow({ start: 3, min: 1, max: 8, now: () => 0 });
    one.observe(10);
    for (let i = 0; i < 5; i++) one.observe(1000);
    expect(one.size).toBe(1);
    // The floor also bounds the start.
    expect(new PageWindow({ start: 1, max: 8, now: () => 0 }).size).toBe(2);
  });

  it('a few milliseconds of loopback jitter moves nothing down', () => {
    const w = new PageWindow(adaptive());
    w.observe(1);
    for (let i = 0; i < 50; i++) w.observe(1 + ((i * 7) % (2 * SLACK_MS)));
    expect(w.size).toBe(8);
  });

  it('halves when the HTTP layer retries a page, once per window, and never below its floor', () => {
    const w = new PageWindow(adaptive());
    const first = w.sent();
    w.retried(first);
    expect(w.size).toBe(3);
    w.retried(first); // the same page again, or another page sent before the cut: nothing new
    expect(w.size).toBe(3);
    w.retried(w.sent());
    expect(w.size).toBe(2);
    w.retried(w.sent());
    expect(w.size).toBe(2);
    const fixed = new PageWindow(6);
    fixed.retried(fixed.sent());
    expect(fixed.size).toBe(6);
  });

  it('a fixed window never moves, whatever the round trips', () => {
    for (const k of [1, 3, 6, 8]) {
      const w = new PageWindow(k);
      for (const ms of [50, 50, 50, 5000, 5000, 1, 1, 1]) w.observe(ms);
      expect(w.size).toBe(k);
    }
  });

  it('times pages with the clock it was given', () => {
    const clock = fakeClock(0);
    const w = new PageWindow(adaptive(clock.now));
    for (const ms of [50, 50, 50]) {
      const t = w.sent();
      clock.t += ms;
      w.settled(t);
    }
    expect(w.size).toBe(8);
    const slow = w.sent();
    clock.t += 1000;
    w.settled(slow);
    expect(w.size).toBe(4);
  });
});

describe('pageWindow (RSI_PAGES_IN_FLIGHT)', () => {
  it('unset or empty: adaptive, from the default to the hard cap, timed by the given clock', async () => {
    const clock = fakeClock(42);
    for (const env of [{}, { RSI_PAGES_IN_FLIGHT: '' }]) {
      const got = await pageWindow(env, clock);
      expect(got).toMatchObject({ start: 6, max: 8 });
      expect(typeof got === 'object' && got.now()).toBe(42);
    }
  });

  it('set: exactly that fixed window; a bad value is the usual usage error', async () => {
    expect(await pageWindow({ RSI_PAGES_IN_FLIGHT: '6' }, fakeClock())).toBe(6);
    expect(await pageWindow({ RSI_PAGES_IN_FLIGHT: '1' }, fakeClock())).toBe(1);
    expect(() => pageWindow({ RSI_PAGES_IN_FLIGHT: '9' }, fakeClock())).toThrow(UsageError);
  });
});

const UUID = '11111111-2222-4333-8444-555555555555';

/**
 * A server on virtual time. `parallel`: every reply takes `ms`, however many are out (a server
 * with room to spare). `serial`: one request at a time, `ms` each, the rest wait in line (a
 * server that is the bottleneck: the more rsi sends, the longer each reply takes).
 */
function virtualServer(kind: 'parallel' | 'serial', rows: number, ms = 50, searchTotal = false, retryEach = false) {
  const clock = fakeClock(0);
  const pending: Array<{ due: number; answer: () => void }> = [];
  let out = 0;
  let free = 0;
  /** How many requests were out (this one included) as each went out, in order. */
  const outAtSend: number[] = [];
  const answer = (req: HttpRequest): HttpResponse => {
    const q = req.query ?? {};
    const relations = req.path.endsWith('/relations');
    const size = Number(q.limit);
    const from = relations ? Number(q.offset) : (Number(q.page) - 1) * size;
    const data = [];
    for (let i = from; i < Math.min(rows, from + size); i++) {
      data.push(relations ? { id: UUID, name: `R${i}` } : { id: UUID, name: `K${i}`, type: 'target', synonyms: [] });
    }
    const meta = relations
      ? { relation: 'assets', total: rows, limit: size, offset: from }
      : { page: Number(q.page), pageSize: size, ...(searchTotal ? { total: rows } : {}) };
    const body = { data, meta };
    return { status: 200, headers: { 'content-type': 'application/json' }, text: JSON.stringify(body), json: body, isJson: true };
  };
  const http: Http = {
    apiBase: 'https://rsi.example/api/v1',
    request(req) {
      outAtSend.push(++out);
      // As RetryingHttp does before it waits out a 503 and resends: every page alike, so the round
      // trips alone look healthy.
      if (retryEach) req.onRetry?.(0);
      const due = kind === 'parallel' ? clock.t + ms : (free = Math.max(free, clock.t) + ms);
      return new Promise((resolve) =>
        pending.push({
          due,
          answer: () => {
            out--;
            resolve(answer(req));
          },
        }),
      );
    },
    async close() {},
  };
  /** Runs a walk to its end: lets it send what it wants, then answers the earliest due request. */
  async function walk<T>(it: AsyncIterable<T>): Promise<T[]> {
    const got: T[] = [];
    let done = false;
    const consuming = (async () => {
      for await (const x of it) got.push(x);
    })().finally(() => {
      done = true;
    });
    for (;;) {
      await new Promise((r) => setImmediate(r));
      if (done) break;
      if (pending.length === 0) throw new Error('the walk waits for nothing');
      pending.sort((a, b) => a.due - b.due);
      const next = pending.shift()!;
      clock.t = next.due;
      next.answer();
    }
    await consuming;
    return got;
  }
  return { client: new ApiClient(http), clock, walk, outAtSend, requests: () => outAtSend.length };
}

describe('walks at the latency limit (issue 56, item 3)', () => {
  it("a 54-page walk at 50 ms a reply ends within 1.3× of 50 ms × (1 + 53/8): the first reply's total opens the window to its cap", async () => {
    const s = virtualServer('parallel', 5400, 50);
    const got = await s.walk(s.client.iterateRelations(UUID, { relation: 'assets', pageSize: 100, concurrency: adaptive(s.clock.now) }));
    expect(got).toHaveLength(5400);
    const limit = 50 * (1 + 53 / PAGES_IN_FLIGHT.max);
    expect(s.clock.t).toBeLessThanOrEqual(1.3 * limit);
    // The first page alone, then the cap at once: the total said 53 pages follow.
    expect(s.outAtSend.slice(0, 9)).toEqual([1, 1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('a walk whose total leaves fewer pages than the cap opens the window to those pages only', async () => {
    const s = virtualServer('parallel', 400, 50);
    expect(
      await s.walk(s.client.iterateRelations(UUID, { relation: 'assets', pageSize: 100, concurrency: adaptive(s.clock.now) })),
    ).toHaveLength(400);
    // Pages 2–4 and the empty page at the total that ends the walk: no more.
    expect(Math.max(...s.outAtSend)).toBe(4);
    expect(s.requests()).toBe(5);
  });
});

describe('--all against a server on virtual time', () => {
  const rows = 4000; // 40 pages of 100 (or 200 of 20)

  for (const iterator of ['relations', 'search'] as const) {
    const run = (s: ReturnType<typeof virtualServer>, inFlight: InFlight) =>
      iterator === 'relations'
        ? s.walk(s.client.iterateRelations(UUID, { relation: 'assets', pageSize: 100, concurrency: inFlight }))
        : s.walk(s.client.iterateKeywordSearch({ q: 'k', limit: 100, window: inFlight }));

    it(`${iterator}: equally fast replies take the window above the default to the cap, never past it`, async () => {
      const s = virtualServer('parallel', rows);
      const got = await run(s, adaptive(s.clock.now));
      expect(got).toHaveLength(rows);
      expect(got.map((r) => r.name).slice(0, 3)).toEqual([iterator === 'relations' ? 'R0' : 'K0', expect.any(String), expect.any(String)]);
      expect(Math.max(...s.outAtSend)).toBeGreaterThan(PAGES_IN_FLIGHT.default);
      expect(Math.max(...s.outAtSend)).toBe(PAGES_IN_FLIGHT.max);
      // The first page goes alone. A search's page says no total: the read-ahead starts at the
      // default. A relation's page says how many follow: the window opens to the cap at once.
      if (iterator === 'relations') expect(s.outAtSend.slice(0, 9)).toEqual([1, 1, 2, 3, 4, 5, 6, 7, 8]);
      else expect(s.outAtSend.slice(0, 7)).toEqual([1, 1, 2, 3, 4, 5, 6]);
      if (iterator === 'relations') {
        // The empty page at the promised total, which ends the walk, goes out with the last pages
        // instead of a round trip after them; and nothing past it.
        expect(s.outAtSend.at(-1)).toBeGreaterThan(1);
        expect(s.requests()).toBe(rows / 100 + 1);
      }
    });

    it(`${iterator}: replies that slow down as more are out bring the window down and keep it low`, async () => {
      const s = virtualServer('serial', rows);
      const got = await run(s, adaptive(s.clock.now));
      expect(got).toHaveLength(rows);
      // A relation's first page says how many follow, and the window opens to the cap; a search's
      // does not, and it climbs from the default.
      expect(Math.max(...s.outAtSend)).toBeLessThanOrEqual(iterator === 'relations' ? PAGES_IN_FLIGHT.max : PAGES_IN_FLIGHT.default + 1);
      // After the first few round trips, no request goes out with more than 3 in flight.
      expect(Math.max(...s.outAtSend.slice(20))).toBeLessThanOrEqual(3);
      // The same server with a fixed window of 6: 6 stay out to the end (what the test tells apart).
      const fixed = virtualServer('serial', rows);
      await run(fixed, 6);
      expect(Math.max(...fixed.outAtSend.slice(15))).toBe(6);
    });

    it(`${iterator}: no page starts past a total the server promised (a search sends one only beyond the spec)`, async () => {
      const s = virtualServer('parallel', rows, 50, true);
      expect(await run(s, adaptive(s.clock.now))).toHaveLength(rows);
      expect(s.requests()).toBe(rows / 100 + 1);
    });

    it(`${iterator}: a service that needs a retry for every page keeps the window at its floor, though every round trip is alike`, async () => {
      const s = virtualServer('parallel', rows, 300, false, true);
      expect(await run(s, adaptive(s.clock.now))).toHaveLength(rows);
      expect(Math.max(...s.outAtSend.slice(5))).toBeLessThanOrEqual(2);
      // The same replies without retries: the window goes to the cap.
      const healthy = virtualServer('parallel', rows, 300);
      await run(healthy, adaptive(healthy.clock.now));
      expect(Math.max(...healthy.outAtSend)).toBe(PAGES_IN_FLIGHT.max);
      // A fixed window ignores retries: the user chose it.
      const fixed = virtualServer('parallel', rows, 300, false, true);
      await run(fixed, 6);
      expect(Math.max(...fixed.outAtSend.slice(15))).toBe(6);
    });

    it(`${iterator}: RSI_PAGES_IN_FLIGHT's fixed window never moves, fast or slow`, async () => {
      for (const kind of ['parallel', 'serial'] as const) {
        const s = virtualServer(kind, rows);
        await run(s, 4);
        expect(Math.max(...s.outAtSend)).toBe(4);
        expect(Math.max(...s.outAtSend.slice(15))).toBe(4);
      }
    });
  }
});

// Issue 55, item 3: the API's request limits have one home (src/client/limits.ts), which the
// command's flag and its MCP tool both read: each refuses one past the limit and takes the limit,
// and both say the same range.
import { afterEach, describe, expect, it } from 'vitest';
import { LIMITS, type Limit, rangeText } from '../../src/client/limits.js';
import { main } from '../../src/main.js';
import { fakeIo } from '../support/fakes.js';
import { fakeRemote, ORIGIN, type Served, serve } from './mcp-tools.harness.js';

let s: Served | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

/** Each limit, the command line that sets it, and where the MCP tool takes it. */
const CASES: Array<{ limit: Limit; argv: (n: number) => string[]; flag: string; tool: string; at: string[] }> = [
  {
    limit: LIMITS.searchLimit,
    argv: (n) => ['keywords', 'search', 'egfr', '--limit', String(n)],
    flag: '--limit',
    tool: 'search_keywords',
    at: ['limit'],
  },
  {
    limit: LIMITS.searchPage,
    argv: (n) => ['keywords', 'search', 'egfr', '--page', String(n)],
    flag: '--page',
    tool: 'search_keywords',
    at: ['page'],
  },
  {
    limit: LIMITS.relationsLimit,
    argv: (n) => ['keywords', 'relations', 'EGFR', '--relation', 'assets', '--limit', String(n)],
    flag: '--limit',
    tool: 'list_relations',
    at: ['limit'],
  },
  {
    limit: LIMITS.relationsOffset,
    argv: (n) => ['keywords', 'relations', 'EGFR', '--relation', 'assets', '--offset', String(n)],
    flag: '--offset',
    tool: 'list_relations',
    at: ['offset'],
  },
  { limit: LIMITS.signalsLimit, argv: (n) => ['signals', 'P', '--limit', String(n)], flag: '--limit', tool: 'list_signals', at: ['limit'] },
  {
    limit: LIMITS.topLimit,
    argv: (n) => ['analyses', 'run', 'P', '--top', String(n), '--type', 'target'],
    flag: '--top',
    tool: 'run_analyses',
    at: ['top', 'limit'],
  },
];

async function rsi(argv: readonly string[]): Promise<{ code: number; err: string }> {
  const io = fakeIo({ tty: false });
  // No sign-in and a base URL nobody answers: a line past a limit must fail before any request.
  const code = await main({ argv: [...argv], env: { RSI_CONFIG_DIR: '/nonexistent-rsi-limits', RSI_BASE_URL: 'http://127.0.0.1:9' }, io });
  return { code, err: io.err() };
}

describe('the API request limits, one home for both front-ends', () => {
  it.each(CASES.map((c) => [`${c.argv(0).slice(0, 2).join(' ')} ${c.flag}`, c] as const))(
    '%s: the flag refuses what is past the limit',
    async (_name, c) => {
      const past = [c.limit.min - 1, ...(c.limit.max === undefined ? [] : [c.limit.max + 1])];
      for (const n of past) {
        const r = await rsi(c.argv(n));
        expect(r.code, r.err).toBe(2);
        expect(r.err).toContain(c.flag);
        expect(r.err).toContain(String(c.limit.max ?? c.limit.min));
      }
    },
  );

  it('each MCP tool holds the same parameter to the same range', async () => {
    const remote = fakeRemote([], () => ({ content: [] }));
    // Writes are listed only to a client that can confirm them (run_analyses takes top.limit).
    s = await serve({
      allowWrite: true,
      remote: remote.deps,
      signIns: { now: { baseUrl: ORIGIN, api: {}, mcp: {} } },
      confirmInChat: true,
    });
    const tools = (await s.client.listTools()).tools;
    for (const c of CASES) {
      const tool = tools.find((t) => t.name === c.tool)!;
      let schema: Record<string, unknown> = tool.inputSchema as Record<string, unknown>;
      for (const key of c.at) schema = (schema.properties as Record<string, Record<string, unknown>>)[key]!;
      expect(schema.minimum, `${c.tool}.${c.at.join('.')}`).toBe(c.limit.min);
      expect(schema.maximum, `${c.tool}.${c.at.join('.')}`).toBe(c.limit.max ?? Number.MAX_SAFE_INTEGER);
    }
  });

  it('help and tool descriptions say the range from the same record', () => {
    expect(rangeText(LIMITS.searchLimit)).toBe('1 to 20 (default 10)');
    expect(rangeText(LIMITS.topLimit, '-')).toBe('1-100');
    expect(rangeText(LIMITS.searchPage)).toBe('from 1 (default 1)');
  });
});

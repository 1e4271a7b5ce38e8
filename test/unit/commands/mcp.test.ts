/**
 * mcp tools / call / serve and scoreboard: flags → options, and run with a fake MCP session (the
 * `open` each run takes; openMcp's real session is covered by test/e2e/mcp-client.test.ts against the sandbox).
 * `mcp serve` without --print-config serves JSON-RPC on the process's stdio until the client goes
 * away: only its refusals and --print-config are driven here; the server is test/journeys/mcp-serve.test.ts.
 */
import { describe, expect, it } from 'vitest';
import * as call from '../../../src/commands/mcp/call/call.js';
import * as serve from '../../../src/commands/mcp/serve/serve.js';
import * as tools from '../../../src/commands/mcp/tools/tools.js';
import * as scoreboard from '../../../src/commands/scoreboard/scoreboard.js';
import { ForbiddenError, UsageError } from '../../../src/errors.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { fakeClient, fakeMcp, parseFlags } from '../../support/commands.js';
import { fakeCtx, fakeIo } from '../../support/fakes.js';

const SCOREBOARD_TOOL: Tool = {
  name: 'project_scoreboard',
  description: 'Ranked opportunities',
  inputSchema: { type: 'object', properties: { project_id: { type: 'string' }, limit: { type: 'integer' } }, required: ['project_id'] },
};
const SEARCH_TOOL: Tool = {
  name: 'search_keywords',
  title: 'Search keywords',
  inputSchema: {
    type: 'object',
    properties: { q: { type: 'string' }, limit: { type: 'integer' }, tags: { type: 'array', items: { type: 'string' } } },
    required: ['q'],
  },
};
const open = (mcp: ReturnType<typeof fakeMcp>) => async () => mcp;

describe('mcp tools: flags', () => {
  it('takes nothing', async () => {
    expect(await parseFlags(tools.build, [])).toEqual({});
    await expect(parseFlags(tools.build, ['x'])).rejects.toThrow(/too many arguments/);
  });
});

describe('mcp tools: run', () => {
  it('tsv: name, arguments (required starred, with types), description', async () => {
    const io = fakeIo(false);
    const mcp = fakeMcp([SCOREBOARD_TOOL, SEARCH_TOOL]);
    await tools.run({}, fakeCtx(io, { format: 'tsv', mcp: open(mcp) }));
    expect(io.out()).toBe(
      'project_scoreboard\tproject_id*:string limit:integer\tRanked opportunities\n' +
        'search_keywords\tq*:string limit:integer tags:array\tSearch keywords\n',
    );
    expect(io.err()).toBe('');
    expect(mcp.closed()).toBe(true);
  });

  it('json: the tools as listed; table: the footer on stderr', async () => {
    const io = fakeIo(false);
    await tools.run({}, fakeCtx(io, { format: 'json', mcp: open(fakeMcp([SEARCH_TOOL])) }));
    expect(JSON.parse(io.out())).toEqual([SEARCH_TOOL]);
    const tty = fakeIo(true);
    await tools.run({}, fakeCtx(tty, { format: 'table', mcp: open(fakeMcp([SEARCH_TOOL])) }));
    expect(tty.err()).toBe('* required. Call one with `rsi mcp call <tool> --arg key=value`.\n');
  });

  it('a session that cannot open fails without output', async () => {
    const io = fakeIo(false);
    const refused = new ForbiddenError('not signed in to the MCP server');
    await expect(tools.run({}, fakeCtx(io, { format: 'tsv', mcp: () => Promise.reject(refused) }))).rejects.toBe(refused);
    expect(io.out()).toBe('');
  });
});

describe('mcp call: flags', () => {
  it.each([
    [['search_keywords'], { tool: 'search_keywords', args: [], input: undefined }],
    [
      [' search_keywords ', '--arg', 'q=egfr', '--arg', 'limit=5', '--input', '-'],
      { tool: 'search_keywords', args: ['q=egfr', 'limit=5'], input: '-' },
    ],
  ])('%j → options', async (argv, expected) => {
    expect(await parseFlags(call.build, argv)).toEqual(expected);
  });
  it.each([
    [[' '], /<tool> must not be empty/, UsageError],
    [[], /missing required argument 'tool'/, Error],
    [['t', '--arg'], /argument missing/, Error],
  ])('%j → usage error', async (argv, message, type) => {
    const error = await parseFlags(call.build, argv).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(type);
    expect((error as Error).message).toMatch(message);
  });
});

describe('mcp call: run', () => {
  const reply = { content: [{ type: 'text' as const, text: 'EGFR, KRAS' }], structuredContent: { hits: ['EGFR', 'KRAS'] } };

  it('arguments are typed by the input schema; the structured result is printed as JSON', async () => {
    const io = fakeIo(false);
    const mcp = fakeMcp([SEARCH_TOOL], () => reply);
    await call.run(
      { tool: 'search_keywords', args: ['q=egfr', 'limit=5', 'tags=a', 'tags=b'], input: undefined },
      fakeCtx(io, { format: 'tsv', mcp: open(mcp) }),
    );
    expect(mcp.calls).toEqual([{ name: 'search_keywords', args: { q: 'egfr', limit: 5, tags: ['a', 'b'] } }]);
    expect(JSON.parse(io.out())).toEqual({ hits: ['EGFR', 'KRAS'] });
    expect(io.err()).toBe('');
  });

  it('a text-only result: its text in tsv, the whole result in json', async () => {
    const io = fakeIo(false);
    const text = { content: [{ type: 'text' as const, text: 'EGFR, KRAS' }] };
    await call.run(
      { tool: 'search_keywords', args: ['q=x'], input: undefined },
      fakeCtx(io, { format: 'tsv', mcp: open(fakeMcp([SEARCH_TOOL], () => text)) }),
    );
    expect(io.out()).toBe('EGFR, KRAS\n');
    const json = fakeIo(false);
    await call.run(
      { tool: 'search_keywords', args: ['q=x'], input: undefined },
      fakeCtx(json, { format: 'json', mcp: open(fakeMcp([SEARCH_TOOL], () => text)) }),
    );
    expect(JSON.parse(json.out())).toEqual(text);
  });

  it('a missing required argument is a usage error and no tool is called', async () => {
    const io = fakeIo(false);
    const mcp = fakeMcp([SEARCH_TOOL]);
    const error = await call
      .run({ tool: 'search_keywords', args: ['limit=5'], input: undefined }, fakeCtx(io, { format: 'tsv', mcp: open(mcp) }))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(/\bq\b/);
    expect(mcp.calls).toEqual([]);
    expect(mcp.closed()).toBe(true);
  });

  it('an unknown tool names the ones there are', async () => {
    const io = fakeIo(false);
    const error = (await call
      .run({ tool: 'nope', args: [], input: undefined }, fakeCtx(io, { format: 'tsv', mcp: open(fakeMcp([SEARCH_TOOL])) }))
      .catch((e: unknown) => e)) as UsageError;
    expect(error).toBeInstanceOf(UsageError);
    expect(error.hint).toBe('its tools: search_keywords');
  });

  it('a tool error naming a scope is a ForbiddenError (exit 4)', async () => {
    const io = fakeIo(false);
    const denied = { isError: true, content: [{ type: 'text' as const, text: 'insufficient_scope: needs projects:write' }] };
    await expect(
      call.run(
        { tool: 'search_keywords', args: ['q=x'], input: undefined },
        fakeCtx(io, { format: 'tsv', mcp: open(fakeMcp([SEARCH_TOOL], () => denied)) }),
      ),
    ).rejects.toThrow(ForbiddenError);
    expect(io.out()).toBe('');
  });

  it('--input that is not an object fails before connecting', async () => {
    const io = fakeIo(false);
    io.stdinStream.end('[1, 2]');
    let opened = false;
    const error = await call
      .run(
        { tool: 't', args: [], input: '-' },
        fakeCtx(io, {
          format: 'tsv',
          mcp: async () => {
            opened = true;
            return fakeMcp([]);
          },
        }),
      )
      .catch((e: unknown) => e);
    expect((error as Error).message).toBe('--input: stdin must hold a JSON object of arguments');
    expect(opened).toBe(false);
  });
});

describe('mcp serve: flags', () => {
  it.each([
    [[], { allowWrite: false, confirmInChat: false, printConfig: undefined }],
    [['--allow-write', '--print-config', 'vscode'], { allowWrite: true, confirmInChat: false, printConfig: 'vscode' }],
    [['--allow-write', '--confirm-in-chat'], { allowWrite: true, confirmInChat: true, printConfig: undefined }],
  ])('%j → options', async (argv, expected) => {
    expect(await parseFlags(serve.build, argv)).toEqual(expected);
  });
  it('--confirm-in-chat only with --allow-write', async () => {
    const error = await parseFlags(serve.build, ['--confirm-in-chat']).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toBe('--confirm-in-chat only applies with --allow-write');
  });
  it('--print-config names the clients it knows', async () => {
    const error = await parseFlags(serve.build, ['--print-config', 'emacs']).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toBe('--print-config must be one of claude-desktop, claude-code, cursor, vscode (got "emacs")');
  });
});

describe('mcp serve: run (the parts that need no stdio server)', () => {
  it('--print-config claude-desktop: the JSON snippet on stdout pins the profile and base URL; where to put it on stderr', async () => {
    const io = fakeIo(false);
    const ctx = fakeCtx(io, { globals: { profile: 'work', baseUrl: 'https://rsi.example' } });
    await serve.run({ allowWrite: true, confirmInChat: false, printConfig: 'claude-desktop' }, ctx);
    expect(JSON.parse(io.out())).toEqual({
      mcpServers: {
        rsi: { command: 'rsi', args: ['--base-url', 'https://rsi.example', '--profile', 'work', 'mcp', 'serve', '--allow-write'] },
      },
    });
    expect(io.err()).toMatch(/^Add this to claude_desktop_config.json/);
  });

  it('--print-config claude-code: a shell command', async () => {
    const io = fakeIo(false);
    await serve.run({ allowWrite: false, confirmInChat: false, printConfig: 'claude-code' }, fakeCtx(io));
    expect(io.out()).toBe('claude mcp add rsi -- rsi mcp serve\n');
  });

  it('--json is refused: stdout carries JSON-RPC', async () => {
    const io = fakeIo(false);
    await expect(serve.run({ allowWrite: false, confirmInChat: false, printConfig: undefined }, fakeCtx(io, 'json'))).rejects.toThrow(
      /--json does not apply to `rsi mcp serve`/,
    );
    expect(io.out()).toBe('');
  });
});

describe('scoreboard: flags', () => {
  it.each([
    [['P'], { project: 'P', limit: undefined }],
    [[' P ', '--limit', '100'], { project: 'P', limit: 100 }],
  ])('%j → options', async (argv, expected) => {
    expect(await parseFlags(scoreboard.build, argv)).toEqual(expected);
  });
  it.each([
    [[' '], /<project> must not be empty/],
    [['P', '--limit', '0'], /--limit must be an integer from 1 to 100/],
    [['P', '--limit', '101'], /--limit must be an integer from 1 to 100/],
  ])('%j → UsageError', async (argv, message) => {
    const error = await parseFlags(scoreboard.build, argv).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(message);
  });
});

describe('scoreboard: run', () => {
  const PID = '11111111-1111-4111-8111-111111111111';
  const board = {
    project: { id: PID, name: 'KRAS inhibitors' },
    total: 4,
    scoreboard: [
      { rank: 1, name: 'KRAS', type: 'target', score: 82.456, momentum: 0.5, keyword_id: 'k1' },
      { rank: 2, name: 'SOS1', type: 'target', score: 40, keyword_id: 'k2' },
    ],
  };
  const answer = () => ({ content: [], structuredContent: board });

  it('a UUID goes straight to the tool (no API client); tsv and csv numbers exactly as in the JSON', async () => {
    const io = fakeIo(false);
    const mcp = fakeMcp([SCOREBOARD_TOOL], answer);
    await scoreboard.run({ project: PID, limit: 2 }, fakeCtx(io, { format: 'tsv', mcp: open(mcp) }));
    expect(mcp.calls).toEqual([{ name: 'project_scoreboard', args: { project_id: PID, limit: 2 } }]);
    expect(io.out()).toBe('1\tKRAS\ttarget\t82.456\t0.5\t\t\t\t\tk1\n2\tSOS1\ttarget\t40\t\t\t\t\t\tk2\n');
    expect(io.err()).toBe('');
    // 66 in JSON is 66 in csv, not 66.00.
    const csv = fakeIo(false);
    const sixtySix = () => ({
      content: [],
      structuredContent: { ...board, scoreboard: [{ rank: 1, name: 'KRAS', type: 'target', score: 66 }] },
    });
    await scoreboard.run(
      { project: PID, limit: undefined },
      fakeCtx(csv, { format: 'csv', mcp: open(fakeMcp([SCOREBOARD_TOOL], sixtySix)) }),
    );
    expect(csv.out().split('\r\n')[1]).toBe('1,KRAS,target,66,,,,,,');
  });

  it('an empty scoreboard says so on stderr in every format but json, never silence', async () => {
    const empty = () => ({ content: [], structuredContent: { ...board, total: 0, scoreboard: [] } });
    for (const format of ['tsv', 'csv', 'table', 'ndjson'] as const) {
      const io = fakeIo(format === 'table');
      await scoreboard.run({ project: PID, limit: undefined }, fakeCtx(io, { format, mcp: open(fakeMcp([SCOREBOARD_TOOL], empty)) }));
      expect(io.err(), format).toBe('No scored opportunities yet for "KRAS inhibitors": run analyses first (`rsi analyses run`).\n');
    }
  });

  it('a name is resolved through the API; table prints the count on stderr; json the reply', async () => {
    const io = fakeIo(true);
    const { client, calls } = fakeClient({
      listProjects: async () => ({ projects: [{ id: PID, name: 'KRAS inhibitors', role: 'owner' }] }),
    });
    await scoreboard.run(
      { project: 'KRAS inhibitors', limit: undefined },
      fakeCtx(io, { format: 'table', client, mcp: open(fakeMcp([SCOREBOARD_TOOL], answer)) }),
    );
    expect(calls.map((c) => c.method)).toEqual(['listProjects']);
    expect(io.err()).toBe('2 of 4 scored opportunities in "KRAS inhibitors"\n');
    const json = fakeIo(false);
    await scoreboard.run(
      { project: PID, limit: undefined },
      fakeCtx(json, { format: 'json', mcp: open(fakeMcp([SCOREBOARD_TOOL], answer)) }),
    );
    expect(JSON.parse(json.out())).toEqual(board);
  });

  it('a server without a scoreboard tool: an error naming the tools it has', async () => {
    const io = fakeIo(false);
    const error = (await scoreboard
      .run({ project: PID, limit: undefined }, fakeCtx(io, { format: 'tsv', mcp: open(fakeMcp([SEARCH_TOOL])) }))
      .catch((e: unknown) => e)) as Error & { hint?: string };
    expect(error.message).toMatch(/offers no scoreboard tool/);
    expect(error.hint).toMatch(/its tools: search_keywords/);
    expect(io.out()).toBe('');
  });
});

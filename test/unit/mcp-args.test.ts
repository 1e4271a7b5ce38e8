import { describe, expect, it } from 'vitest';
import { requireTool } from '../../src/ops/mcp-tools.js';
import { UnexpectedReplyError, UsageError } from '../../src/errors.js';
import { buildArguments, validateArguments } from '../../src/mcp/args.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { McpConnection } from '../../src/mcp/client.js';
import { mcpFailure } from '../../src/mcp/client.js';
import { toolFailure } from '../../src/ops/mcp-tools.js';

const tool = {
  name: 't',
  inputSchema: {
    type: 'object',
    properties: {
      text: { type: 'string' },
      n: { type: 'integer', minimum: 1, maximum: 10 },
      ratio: { type: 'number' },
      flag: { type: 'boolean' },
      tags: { type: 'array', items: { type: 'string' } },
      ids: { type: 'array', items: { type: 'integer' } },
      opts: { type: 'object' },
      either: { type: ['integer', 'string'] },
    },
    required: ['text'],
    additionalProperties: false,
  },
};

describe('buildArguments', () => {
  it('converts each value by the type the schema declares', () => {
    const args = buildArguments(
      tool,
      ['text=42', 'n=3', 'ratio=0.5', 'flag=yes', 'tags=a', 'tags=b', 'ids=[1,2]', 'opts={"k":1}', 'either=x', 'text=a=b'],
      undefined,
    );
    expect(args).toEqual({ text: 'a=b', n: 3, ratio: 0.5, flag: true, tags: ['a', 'b'], ids: [1, 2], opts: { k: 1 }, either: 'x' });
    expect(buildArguments(tool, ['text=x', 'either=7'], undefined).either).toBe(7);
  });

  it('merges over --input, --arg winning', () => {
    expect(buildArguments(tool, ['n=2'], { text: 'from file', n: 9 })).toEqual({ text: 'from file', n: 2 });
  });

  it.each([
    [['text=x', 'n=1.5'], /--arg n: expected an integer/],
    [['text=x', 'ratio=abc'], /--arg ratio: expected a number/],
    [['text=x', 'flag=maybe'], /--arg flag: expected true or false/],
    [['text=x', 'opts=[1]'], /--arg opts: expected a JSON object/],
    [['text=x', 'ids=[1'], /--arg ids: expected a JSON array/],
    [['text=x', 'nope=1'], /has no argument "nope"/],
    [['n=1'], /needs --arg text=/],
    [['=x'], /--arg must be KEY=VALUE/],
  ])('refuses %j with a usage error naming the argument', (pairs, message) => {
    expect(() => buildArguments(tool, pairs, undefined)).toThrow(message);
    expect(() => buildArguments(tool, pairs, undefined)).toThrow(UsageError);
  });

  it('validates the whole schema before sending', async () => {
    await expect(validateArguments(tool, { text: 'x', n: 11 })).rejects.toThrow(/invalid arguments for the tool t: n must be <= 10/);
    await expect(validateArguments(tool, { text: 'x', n: 10 })).resolves.toBeUndefined();
  });
});

describe('MCP failures', () => {
  const fake = (tools: Tool[]): McpConnection => ({
    server: undefined,
    listTools: async () => tools,
    callTool: async () => ({ content: [] }),
    close: async () => undefined,
  });

  it('a server without the feature tool is a clear error listing what it has', async () => {
    const err = await requireTool(fake([{ name: 'other', inputSchema: { type: 'object' } }]), ['project_scoreboard'], 'scoreboard').catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(UnexpectedReplyError);
    expect((err as Error).message).toBe("the service's MCP server offers no scoreboard tool (looked for project_scoreboard)");
    expect((err as UnexpectedReplyError).hint).toContain('its tools: other');
  });

  it('maps JSON-RPC errors and HTTP statuses to the contract exit codes', () => {
    const rpc = (code: number) => Object.assign(new Error(`MCP error ${code}: boom`), { name: 'McpError', code });
    expect(mcpFailure(rpc(-32602), 'tools/call t', 'u')).toMatchObject({ exitCode: 2 });
    expect(mcpFailure(rpc(-32603), 'tools/call t', 'u')).toMatchObject({ exitCode: 8 });
    expect(mcpFailure(rpc(-32001), 'tools/call t', 'u')).toMatchObject({ exitCode: 8 });
    expect(mcpFailure(rpc(-32601), 'tools/list', 'u')).toMatchObject({ exitCode: 1 });
    const http = (code: number) => Object.assign(new Error('x'), { name: 'StreamableHTTPError', code });
    expect(mcpFailure(http(404), 'initialize', 'u')).toMatchObject({ exitCode: 5 });
    expect(mcpFailure(http(403), 'initialize', 'u')).toMatchObject({ exitCode: 4 });
    expect(mcpFailure(http(503), 'initialize', 'u')).toMatchObject({ exitCode: 8 });
    const aborted = AbortSignal.abort();
    expect(mcpFailure(new Error('AbortError'), 'tools/call t', 'u', aborted)).toMatchObject({ exitCode: 130 });
  });

  it('maps isError results: a named missing scope is 4, anything else 1 with the text', () => {
    const text = (t: string) => ({ isError: true, content: [{ type: 'text' as const, text: t }] });
    expect(toolFailure('t', text('insufficient_scope: this call needs the projects:write scope'))).toMatchObject({
      exitCode: 4,
      scope: 'projects:write',
    });
    expect(toolFailure('t', text('something broke'))).toMatchObject({ exitCode: 1, message: 'the tool t failed: something broke' });
  });
});

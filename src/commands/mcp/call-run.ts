/** What `call` does; see call.ts for its flags. */
import type { Context } from '../../context.js';
import type { McpDeps } from './connect.js';
import type { CallOptions } from './call.js';
import { UsageError } from '../../errors.js';

export async function run(opts: CallOptions, ctx: Context, deps: McpDeps = {}): Promise<void> {
  const [
    { withMcp },
    { buildArguments, validateArguments },
    { toolFailure, toolText },
    { readInput, parseJsonInput },
    { printJson, printServiceText },
  ] = await Promise.all([
    import('./connect.js'),
    import('../../mcp/args.js'),
    import('../../mcp/client.js'),
    import('../shared/flags.js'),
    import('../../io/output.js'),
  ]);
  // Read and parse --input before connecting: a bad file costs no round trip.
  let input: Record<string, unknown> | undefined;
  if (opts.input !== undefined) {
    const source = opts.input === '-' ? 'stdin' : opts.input;
    const data = parseJsonInput('--input', await readInput('--input', opts.input, ctx), source);
    if (data === null || typeof data !== 'object' || Array.isArray(data))
      throw new UsageError(`--input: ${source} must hold a JSON object of arguments`);
    input = data as Record<string, unknown>;
  }
  // The session's opener: openMcp, or a fake connection in unit tests.
  const withSession = <T>(fn: Parameters<typeof withMcp<T>>[1]): Promise<T> => withMcp(ctx, fn, deps.open);
  const result = await withSession(async (mcp) => {
    const tools = await mcp.listTools();
    const tool = tools.find((t) => t.name === opts.tool);
    if (!tool) {
      const names = tools.map((t) => t.name);
      throw new UsageError(`the MCP server has no tool "${opts.tool}"`, {
        hint: names.length ? `its tools: ${names.join(', ')}` : 'it offers no tools',
      });
    }
    const args = buildArguments(tool as never, opts.args, input);
    await validateArguments(tool as never, args);
    return mcp.callTool(tool.name, args);
  });
  if (result.isError) {
    if (ctx.globals().format === 'json') await printJson(ctx.io, result);
    throw toolFailure(opts.tool, result);
  }
  if (result.structuredContent !== undefined) await printJson(ctx.io, result.structuredContent);
  else if (ctx.globals().format === 'json') await printJson(ctx.io, result);
  else {
    const text = toolText(result);
    if (text) await printServiceText(ctx.io, text);
  }
}

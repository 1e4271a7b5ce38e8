import { Command } from 'commander';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { HttpMethod } from '../../http/types.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

export interface ApiOptions {
  method: HttpMethod;
  path: string;
  fields: Array<[string, unknown]>;
  input: string | undefined;
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export function build(ctx: Context, runF: typeof run = run): Command {
  return new Command('api')
    .description('make an authenticated request to any API path and print the JSON reply')
    .argument('<method>', METHODS.join(', '))
    .argument('<path>', 'path under /api/v1, e.g. /keywords (the /api/v1 prefix is optional)')
    .option(
      '--field <key=value>',
      'a query parameter (GET, DELETE) or JSON body member (others), repeatable; numbers, true, false and null are typed',
      collect,
    )
    .option('--input <path>', 'JSON request body from a file, or - for stdin')
    .addHelpText(
      'after',
      `\nExamples:\n  rsi api GET /keywords --field q=egfr --field limit=5\n  rsi api POST /projects --field name="From the API"\n  echo '{"top":{"type":"target","limit":2}}' | rsi api POST /projects/ID/analyses --input -\n\nThe reply body is printed on stdout whatever the status; a non-2xx status also sets the exit code.`,
    )
    .action(async (method: string, path: string, flags: Record<string, unknown>) => {
      const upper = method.toUpperCase();
      if (!(METHODS as readonly string[]).includes(upper))
        throw new UsageError(`method must be one of ${METHODS.join(', ')} (got "${method}")`);
      if (!path.startsWith('/')) throw new UsageError(`path must start with / (got "${path}")`);
      if (/^\/\/|:\/\//.test(path)) throw new UsageError('path must be a path under the API, not a URL');
      const fields: Array<[string, unknown]> = [];
      for (const f of (flags.field as string[] | undefined) ?? []) {
        const eq = f.indexOf('=');
        if (eq <= 0) throw new UsageError(`--field must be KEY=VALUE (got "${f}")`);
        fields.push([f.slice(0, eq), typed(f.slice(eq + 1))]);
      }
      const input = flags.input === undefined ? undefined : String(flags.input);
      if (input !== undefined && (upper === 'GET' || upper === 'DELETE'))
        throw new UsageError(`--input sends a body, which ${upper} does not take`);
      if (input !== undefined && fields.length) throw new UsageError('--input and --field cannot be used together for a body');
      await runF({ method: upper as HttpMethod, path, fields, input }, ctx);
    });
}

/** Like gh api -F: numbers, booleans and null are typed; everything else is a string. */
function typed(value: string): unknown {
  if (value === 'true') return true;
  if (value === 'false') return false;
  if (value === 'null') return null;
  if (/^-?\d+(\.\d+)?$/.test(value) && value.length < 16) return Number(value);
  return value;
}

export async function run(opts: ApiOptions, ctx: Context): Promise<void> {
  const { readInput, parseJsonInput } = await import('../shared/flags.js');
  let body: unknown;
  if (opts.input !== undefined)
    body = parseJsonInput('--input', await readInput('--input', opts.input, ctx), opts.input === '-' ? 'stdin' : opts.input);
  else if (opts.method !== 'GET' && opts.method !== 'DELETE' && opts.fields.length) body = Object.fromEntries(opts.fields);
  const query =
    opts.method === 'GET' || opts.method === 'DELETE' ? Object.fromEntries(opts.fields.map(([k, v]) => [k, String(v)])) : undefined;
  const client = await ctx.client();
  const res = await client.raw({
    method: opts.method,
    path: opts.path,
    query,
    body,
    idempotent: opts.method === 'GET',
    signal: ctx.signal,
  });
  const { printJson, printServiceText } = await import('../../io/output.js');
  if (res.isJson) await printJson(ctx.io, res.json);
  else if (res.text && res.status >= 200 && res.status < 300) await printServiceText(ctx.io, res.text);
  if (res.status < 200 || res.status >= 300) throw client.errorFor(res, `${opts.method} ${opts.path}`);
}

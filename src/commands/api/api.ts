import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { notJsonError } from '../../client/not-json.js';
import type { HttpMethod, HttpResponse } from '../../http/types.js';
import { given, list, on, type OptionSpecs, parseOptions, withOptions } from '../shared/options.js';
import { printJson, printServiceText } from '../../io/output.js';
import { printsDocuments } from '../../io/replies.js';
import { parseJsonInput, readInput } from '../shared/flags.js';
import { type CommandDeclaration, commandFor } from '../declaration.js';
import { suggest } from '../../io/text.js';
import type { OutputFormat } from '../../formats.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

export interface ApiOptions {
  method: HttpMethod;
  path: string;
  fields: Array<[string, unknown]>;
  input: string | undefined;
  /** Extra request headers, `-H 'Name: value'` (never Authorization). */
  headers: Record<string, string>;
  /** `--paginate`: walk a paged endpoint to its end and print one merged document. */
  paginate: boolean;
  /** `-i`: the status line and response headers on stderr. */
  include: boolean;
  /** `--silent`: print no reply body. */
  silent: boolean;
  /**
   * The fields as typed (`-f q=egfr`) when they alone made the method POST (gh's rule): a 405 then
   * hints the same line with `-X GET`. Empty when the method was given.
   */
  postedFields: string[];
}

/** The two paged endpoints (service-api.md): search by `page`, relations by `offset`. */
const SEARCH_PATH = /^(?:\/api\/v1)?\/keywords\/?$/;
const RELATIONS_PATH = /^(?:\/api\/v1)?\/keywords\/[^/]+\/relations\/?$/;

/** Headers rsi sets itself: a user's value would break the request or the sign-in. */
const OWN_HEADERS = new Set(['authorization', 'host', 'content-length', 'transfer-encoding', 'connection']);

/** `-H 'Name: value'`: a header rsi does not set itself, its value one line of Latin-1 characters. */
function header(_flag: string, h: string): [string, string] {
  const colon = h.indexOf(':');
  const name = h.slice(0, colon).trim();
  if (colon <= 0 || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name))
    throw new UsageError(`--header must be "Name: value" (got ${JSON.stringify(h)})`);
  if (OWN_HEADERS.has(name.toLowerCase())) {
    throw new UsageError(`--header ${name} is set by rsi itself`, {
      hint:
        name.toLowerCase() === 'authorization' ? 'rsi signs every request with your sign-in; use RSI_TOKEN for another token' : undefined,
    });
  }
  const value = h.slice(colon + 1).trim();
  // HTTP forbids control characters in a value (tab aside): refused here as usage, not
  // later by Node's client as a network failure (exit 8).
  if (/[\u0000-\u0008\u000a-\u001f\u007f]/.test(value))
    throw new UsageError(`--header ${name}: the value has a control character (got ${JSON.stringify(value)})`);
  // A header carries bytes, one a character (Latin-1): "€" cannot travel in one.
  const wide = /[^\u0000-\u00ff]/.exec(value);
  if (wide)
    throw new UsageError(`--header ${name}: HTTP header values cannot carry "${wide[0]}" (only Latin-1 characters)`, {
      hint: 'percent-encode it, or send it in the body (--field, --input)',
    });
  return [name, value];
}

/** The options, as data: flags, help and parsers (src/commands/shared/options.ts). */
const OPTIONS = {
  method: { flags: '-X, --method <method>', description: 'the HTTP method (instead of the first argument)', parse: given() },
  header: {
    flags: '-H, --header <name: value>',
    description: 'an extra request header, repeatable (not Authorization: rsi signs the request)',
    parse: list({ item: header }),
  },
  paginate: {
    flags: '--paginate',
    description: 'follow the pages of /keywords and /keywords/ID/relations to the end: one document with every item',
    parse: on(),
  },
  include: { flags: '-i, --include', description: 'print the status line and the response headers on stderr', parse: on() },
  silent: { flags: '--silent', description: 'do not print the reply body (the exit code still tells the status)', parse: on() },
  field: {
    flags: '-F, --field <key=value>',
    description:
      'a query parameter (GET) or JSON body member (others), repeatable; numbers, true, false and null typed; @file reads a file (- stdin)',
    parse: list(),
  },
  rawField: { flags: '-f, --raw-field <key=value>', description: 'the same, always a string (as gh api -f)', parse: list() },
  input: { flags: '--input <path>', description: 'JSON request body from a file, or - for stdin', parse: given() },
} satisfies OptionSpecs;

export const command: CommandDeclaration = {
  path: 'api',
  description: 'make an authenticated request to any API path and print the JSON reply',
  examples: [
    'rsi api GET /keywords --field q=egfr --field limit=5',
    'rsi api POST /projects --field name="From the API"',
    'echo \'{"top":{"type":"target","limit":2}}\' | rsi api POST /projects/ID/analyses --input -',
  ],
};

export function build(ctx: Context, runF: typeof run = run): Command {
  const cmd = commandFor(command)
    // commander cannot take an optional argument before a required one: the first is the method
    // when a second follows, else the path (`rsi api /keywords`, as with gh).
    .usage('[options] [method] <path>')
    .argument('<method>', `${METHODS.join(', ')}, or leave it out: GET, or POST when a body is given (--field, --input)`)
    .argument('[path]', 'path under /api/v1, e.g. /keywords (the /api/v1 prefix is optional)');
  return withOptions(cmd, OPTIONS)
    .addHelpText('after', `\nThe reply body is printed on stdout whatever the status; a non-2xx status also sets the exit code.`)
    .action(async (first: string, second: string | undefined, flags: Record<string, unknown>, self: Command) => {
      const options = parseOptions(OPTIONS, flags);
      // The reply is printed as the service sent it: a table format cannot apply (JSON and NDJSON can).
      const asked = self.optsWithGlobals().format as OutputFormat | undefined;
      if (asked !== undefined && !printsDocuments({ format: asked })) {
        throw new UsageError(`rsi api prints the service's JSON reply as it is: --format ${asked} does not apply`, {
          hint: `pick members with --jq; for ${asked} rows, use the command for that data (rsi projects list --format ${asked})`,
        });
      }
      // `rsi api /keywords` (gh's habit) or `rsi api GET /keywords`.
      let [method, path] = second === undefined ? [options.method, first] : [first, second];
      if (second !== undefined && options.method !== undefined)
        throw new UsageError('give the method once: as the first argument or with --method');
      // Like gh: a body (--field, --input) means POST, unless --paginate says it is a GET of pages.
      const given = [...options.field.map((f) => ['--field', f] as const), ...options.rawField.map((f) => ['--raw-field', f] as const)];
      const hasBody = !options.paginate && (options.input !== undefined || given.length > 0);
      const upper = (method ?? (hasBody ? 'POST' : 'GET')).toUpperCase();
      if (!(METHODS as readonly string[]).includes(upper))
        throw new UsageError(`method must be one of ${METHODS.join(', ')} (got "${method}")`);
      if (/^\/\/|:\/\//.test(path) || /^[a-z][a-z0-9+.-]*:/i.test(path))
        throw new UsageError('path must be a path under the API, not a URL');
      // gh's `gh api repos/o/r`: a path without its leading slash is the same path.
      if (!path.startsWith('/')) path = `/${path}`;
      const fields: Array<[string, unknown]> = [];
      for (const [flag, f] of given) {
        const eq = f.indexOf('=');
        if (eq <= 0) throw new UsageError(`${flag} must be KEY=VALUE (got "${f}")`);
        const value = f.slice(eq + 1);
        // -F key=@file (gh's): the file's text, as a string; -f never reads a file.
        const read = flag === '--field' && value.startsWith('@') ? await readInput('--field', value.slice(1), ctx) : undefined;
        fields.push([f.slice(0, eq), read ?? (flag === '--field' ? typed(value) : value)]);
      }
      const { input, paginate } = options;
      if (input !== undefined && upper === 'GET') throw new UsageError(`--input sends a body, which ${upper} does not take`);
      if (input !== undefined && fields.length) throw new UsageError('--input and --field cannot be used together for a body');
      if (paginate && (upper !== 'GET' || !(SEARCH_PATH.test(path.split('?')[0]!) || RELATIONS_PATH.test(path.split('?')[0]!)))) {
        throw new UsageError('--paginate follows GET /keywords and GET /keywords/ID/relations only');
      }
      await runF(
        {
          method: upper as HttpMethod,
          path,
          fields,
          input,
          headers: Object.fromEntries(options.header),
          paginate,
          include: options.include,
          silent: options.silent,
          postedFields:
            method === undefined && hasBody && input === undefined
              ? given.flatMap(([flag, f]) => [flag === '--raw-field' ? '-f' : '-F', f])
              : [],
        },
        ctx,
      );
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
  let body: unknown;
  if (opts.input !== undefined)
    body = parseJsonInput('--input', await readInput('--input', opts.input, ctx), opts.input === '-' ? 'stdin' : opts.input);
  else if (opts.method !== 'GET' && opts.fields.length) body = Object.fromEntries(opts.fields);
  // As gh: fields are the query of a GET, the JSON body of every other method.
  const query = opts.method === 'GET' ? Object.fromEntries(opts.fields.map(([k, v]) => [k, String(v)])) : undefined;
  const client = await ctx.client();
  const send = (extra: Record<string, string> = {}) =>
    client.raw({
      method: opts.method,
      path: opts.path,
      query: Object.keys(extra).length > 0 ? { ...query, ...extra } : query,
      body,
      ...(Object.keys(opts.headers).length > 0 ? { headers: opts.headers } : {}),
      signal: ctx.signal,
    });
  // A bad RSI_MAX_PAGES is a usage error before any request (it matters to --paginate only).
  const cap = opts.paginate ? (await import('../../client/paging.js')).maxPages(ctx.env) : 0;
  // JSON is expected when a flag works on it: a text reply then is an error, not the output.
  const { fields, jq, format } = ctx.globals();
  const wantsJson = opts.paginate || fields !== undefined || jq !== undefined || printsDocuments({ format });
  let res = await send();
  if (opts.include) showHead(ctx, res);
  if (wantsJson) requireJson(res, `${opts.method} ${opts.path}`);
  let document = res.json;
  if (opts.paginate && res.isJson && res.status >= 200 && res.status < 300) {
    document = await walkPages(opts, query ?? {}, res.json, cap, async (extra) => {
      res = await send(extra);
      if (opts.include) showHead(ctx, res);
      if (res.status < 200 || res.status >= 300) throw client.errorFor(res, `${opts.method} ${opts.path}`);
      requireJson(res, `${opts.method} ${opts.path}`);
      return res.json;
    });
  }

  if (!opts.silent) {
    // The reply's own text when it is the document (not a merge of pages): --jq reads it as jq would.
    if (res.isJson) await printJson(ctx.output(), document, document === res.json ? res.text : undefined);
    else if (res.text && res.status >= 200 && res.status < 300) await printServiceText(ctx.io, res.text);
  }
  if (res.status < 200 || res.status >= 300) throw withMethodHint(client.errorFor(res, `${opts.method} ${opts.path}`), res, opts);
}

/** A 405 to a POST the fields alone chose (gh's rule): the same line with `-X GET` sends them as the query. */
function withMethodHint(error: Error, res: HttpResponse, opts: ApiOptions): Error {
  if (res.status !== 405 || opts.postedFields.length === 0) return error;
  const hint = `fields make rsi api send a POST (as gh api does); to send them as the query of a GET, run ${suggest(['rsi', 'api', '-X', 'GET', opts.path, ...opts.postedFields])}`;
  Object.defineProperty(error, 'hint', { value: hint, configurable: true });
  return error;
}

/**
 * `-i`: what curl -i and gh api -i show, on stderr so stdout stays the body; with a redirect rsi
 * followed, each reply on the way first, as `curl -iL` shows them.
 */
function showHead(ctx: Context, res: HttpResponse): void {
  for (const one of [...(res.redirects ?? []), res]) {
    const lines = [`HTTP ${one.status}`, ...Object.entries(one.headers).map(([k, v]) => `${k}: ${v}`)];
    ctx.io.stderr.write(`${lines.join('\n')}\n\n`);
  }
}

type Page = { data?: unknown[]; meta?: Record<string, unknown> } & Record<string, unknown>;

/**
 * `--paginate`: the rest of a paged endpoint, the way `--all` ends its walks (docs/scripting.md,
 * "Paging"): search by `page` until an empty page (a short page is not the end: issue 19),
 * relations by `offset`, stepping by the rows each page held, until an empty page. The result is
 * the first page with every page's `data` in it (one document, so `--jq` sees everything).
 */
async function walkPages(
  opts: ApiOptions,
  query: Record<string, string>,
  first: unknown,
  cap: number,
  next: (extra: Record<string, string>) => Promise<unknown>,
): Promise<unknown> {
  const page0 = first as Page;
  if (!Array.isArray(page0?.data)) return first;
  const { createHash } = await import('node:crypto');
  const { pageCapError } = await import('../../client/paging.js');
  const items = [...page0.data];
  const relations = RELATIONS_PATH.test(opts.path.split('?')[0]!);
  let page = page0;
  let number = Number(query.page ?? page0.meta?.page ?? 1);
  let offset = Number(query.offset ?? 0);
  // Digests, not the pages' text: what the walk keeps beside the items stays small.
  const seen = new Set<string>();
  let pages = page0.data.length > 0 ? 1 : 0;
  for (;;) {
    const rows = page.data ?? [];
    if (rows.length === 0) break;
    const extra: Record<string, string> = relations ? { offset: String((offset += rows.length)) } : { page: String(++number) };
    page = (await next(extra)) as Page;
    if (!Array.isArray(page?.data)) break;
    if (page.data.length === 0) break;
    // A service whose pages never end would walk forever: the cap stops it, with nothing printed.
    if (++pages > cap) throw pageCapError(`${opts.method} ${opts.path.split('?')[0]} --paginate`, cap);
    // A service that repeats a page would walk forever too: stop at the first repeat.
    const key = createHash('sha256').update(JSON.stringify(page.data)).digest('base64');
    if (seen.has(key)) break;
    seen.add(key);
    items.push(...page.data);
  }
  return { ...page0, data: items };
}

/**
 * A reply that must be JSON (a flag works on it): anything else is exit 1 naming its content type
 * and the start of the body, sanitised, and nothing reaches stdout or the jq engine.
 */
function requireJson(res: { status: number; isJson: boolean; text: string; headers: Record<string, string> }, what: string): void {
  // An error status has its own exit code; a 204 has no body by definition.
  if (res.isJson || res.status < 200 || res.status >= 300 || (res.status === 204 && res.text === '')) return;
  throw notJsonError(res, what);
}

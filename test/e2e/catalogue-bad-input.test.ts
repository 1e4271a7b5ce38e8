// The bad-input catalogue: every kind of wrong flag, argument, file and environment, each spawned
// as a real `bin/rsi.js` against a real sandbox. Each must give the contract's exit code, one
// `rsi:` line (plus at most one `hint:` line), nothing on stdout, no stack trace — and, for
// mistakes rsi can see itself, no request at all (counted at the sandbox).
import { chmodSync, mkdtempSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliResult } from '../support/cli.js';
import { sandboxStats } from '../support/sandbox.js';
import { obtainTokens } from '../support/oauth.js';
import { runCli, startSandbox, type InProcessSandbox } from '../support/inproc.js';

const dir = mkdtempSync(join(tmpdir(), 'rsi-catalogue-'));
const file = (name: string, content: string | Buffer): string => {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
};
const empty = file('empty.json', '');
// Root reads through any file mode, so "unreadable" is a path through a file (ENOTDIR).
const unreadable = join(empty, 'child.json');
const huge = file('huge.json', Buffer.alloc(12 * 1024 * 1024, 0x20));
const malformed = file('malformed.json', '[{"entity_id": "x",');
const notArray = file('object.json', '{"entity_id":"x","entity_type":"target"}');
const badItem = file('bad-item.json', '[{"entity_type":"target"}]');
const badSelections = file('bad-selections.json', '[{"keyword_id": 1}]');
const emptyBrief = file('empty-brief.md', '   \n');
const PROJECT = '49dbcd30-6d6d-5043-8f83-feb4b3ba6ca9';
const KEYWORD = 'eaac851b-b36e-58b8-bf99-a466c0daaf2b';

type Case = [name: string, args: string[], code: number, env?: Record<string, string>, input?: string];

/** Mistakes rsi must catch before sending anything. */
const CLIENT_SIDE: Case[] = [
  ['unknown command', ['frobnicate'], 2],
  ['unknown option', ['keywords', 'search', 'x', '--frob'], 2],
  ['unknown global option', ['--verbose', 'projects', 'list'], 2],
  ['missing search query', ['keywords', 'search'], 2],
  ['empty search query', ['keywords', 'search', '  '], 2],
  ['search --limit 0', ['keywords', 'search', 'x', '--limit', '0'], 2],
  ['search --limit 21', ['keywords', 'search', 'x', '--limit', '21'], 2],
  ['search --limit abc', ['keywords', 'search', 'x', '--limit', 'abc'], 2],
  ['search --limit 1.5', ['keywords', 'search', 'x', '--limit', '1.5'], 2],
  ['search --limit empty', ['keywords', 'search', 'x', '--limit', ''], 2],
  ['search --limit without value', ['keywords', 'search', 'x', '--limit'], 2],
  ['search --page 0', ['keywords', 'search', 'x', '--page', '0'], 2],
  ['search --page -1', ['keywords', 'search', 'x', '--page', '-1'], 2],
  ['search --all with --page', ['keywords', 'search', 'x', '--all', '--page', '2'], 2],
  ['get --include empty', ['keywords', 'get', KEYWORD, '--include', ''], 2],
  ['get --include bad chars', ['keywords', 'get', KEYWORD, '--include', 'a;b'], 2],
  ['relations without --relation', ['keywords', 'relations', KEYWORD], 2],
  ['relations --relation bogus', ['keywords', 'relations', KEYWORD, '--relation', 'bogus'], 2],
  ['relations sponsors without --activity', ['keywords', 'relations', KEYWORD, '--relation', 'sponsors'], 2],
  ['relations --activity bogus', ['keywords', 'relations', KEYWORD, '--relation', 'sponsors', '--activity', 'tweets'], 2],
  ['relations --limit 0', ['keywords', 'relations', KEYWORD, '--relation', 'assets', '--limit', '0'], 2],
  ['relations --limit 101', ['keywords', 'relations', KEYWORD, '--relation', 'assets', '--limit', '101'], 2],
  ['relations --offset -1', ['keywords', 'relations', KEYWORD, '--relation', 'assets', '--offset', '-1'], 2],
  ['relations --offset x', ['keywords', 'relations', KEYWORD, '--relation', 'assets', '--offset', 'x'], 2],
  ['relations --all with --limit', ['keywords', 'relations', KEYWORD, '--relation', 'assets', '--all', '--limit', '5'], 2],
  ['signals --limit 0', ['signals', PROJECT, '--limit', '0'], 2],
  ['signals --limit 501', ['signals', PROJECT, '--limit', '501'], 2],
  ['signals --analysis-mode bogus', ['signals', PROJECT, '--analysis-mode', 'best'], 2],
  ['signals --type empty', ['signals', PROJECT, '--type', ''], 2],
  ['signals without project', ['signals'], 2],
  ['status --interval 0', ['status', PROJECT, '--watch', '--interval', '0'], 2],
  ['status --timeout -1', ['status', PROJECT, '--watch', '--timeout', '-1'], 2],
  ['status --interval without --watch', ['status', PROJECT, '--interval', '5'], 2],
  ['analyses run without selection or top', ['analyses', 'run', PROJECT], 2],
  ['analyses run --top 0', ['analyses', 'run', PROJECT, '--top', '0', '--type', 'target'], 2],
  ['analyses run --top 101', ['analyses', 'run', PROJECT, '--top', '101', '--type', 'target'], 2],
  ['analyses run --top x', ['analyses', 'run', PROJECT, '--top', 'x', '--type', 'target'], 2],
  ['analyses run --top without --type', ['analyses', 'run', PROJECT, '--top', '3'], 2],
  ['analyses run --type bogus', ['analyses', 'run', PROJECT, '--top', '3', '--type', 'gene'], 2],
  ['analyses run --analysis-mode bogus', ['analyses', 'run', PROJECT, '--top', '3', '--type', 'target', '--analysis-mode', 'x'], 2],
  ['analyses run malformed --select', ['analyses', 'run', PROJECT, '--select', 'a:b:c'], 2],
  ['analyses run --select with --top', ['analyses', 'run', PROJECT, '--select', 'a:b', '--top', '3', '--type', 'target'], 2],
  ['analyses run --selections missing file', ['analyses', 'run', PROJECT, '--selections', join(dir, 'nope.json')], 2],
  ['analyses run --selections unreadable', ['analyses', 'run', PROJECT, '--selections', unreadable], 2],
  ['analyses run --selections empty', ['analyses', 'run', PROJECT, '--selections', empty], 2],
  ['analyses run --selections malformed', ['analyses', 'run', PROJECT, '--selections', malformed], 2],
  ['analyses run --selections wrong shape', ['analyses', 'run', PROJECT, '--selections', badSelections], 2],
  ['analyses run --selections - with junk stdin', ['analyses', 'run', PROJECT, '--selections', '-'], 2, {}, 'not json'],
  ['analyses run --wait --interval 0', ['analyses', 'run', PROJECT, '--top', '1', '--type', 'target', '--wait', '--interval', '0'], 2],
  ['projects create without --name', ['projects', 'create'], 2],
  ['projects create blank --name', ['projects', 'create', '--name', '   '], 2],
  ['projects create --operand xor', ['projects', 'create', '--name', 'x', '--operand', 'xor'], 2],
  ['projects create --goal bogus', ['projects', 'create', '--name', 'x', '--goal', 'profit'], 2],
  ['projects create --brief and --brief-file', ['projects', 'create', '--name', 'x', '--brief', 'a', '--brief-file', emptyBrief], 2],
  ['projects create --brief-file missing', ['projects', 'create', '--name', 'x', '--brief-file', join(dir, 'none.md')], 2],
  ['projects create --brief-file empty', ['projects', 'create', '--name', 'x', '--brief-file', emptyBrief], 2],
  ['projects create --watchlist-file unreadable', ['projects', 'create', '--name', 'x', '--watchlist-file', unreadable], 2],
  ['projects create --watchlist-file empty', ['projects', 'create', '--name', 'x', '--watchlist-file', empty], 2],
  ['projects create --watchlist-file huge', ['projects', 'create', '--name', 'x', '--watchlist-file', huge], 2],
  ['projects create --watchlist-file malformed', ['projects', 'create', '--name', 'x', '--watchlist-file', malformed], 2],
  ['projects create --watchlist-file not an array', ['projects', 'create', '--name', 'x', '--watchlist-file', notArray], 2],
  ['projects create --watchlist-file item without entity_id', ['projects', 'create', '--name', 'x', '--watchlist-file', badItem], 2],
  ['projects create --watchlist-file a directory', ['projects', 'create', '--name', 'x', '--watchlist-file', dir], 2],
  ['api bad method', ['api', 'FETCH', '/projects'], 2],
  // A path without its leading slash is gh's habit and accepted (issue 36); a scheme is not a path.
  ['api scheme as path', ['api', 'GET', 'javascript:alert(1)'], 2],
  ['api absolute URL', ['api', 'GET', 'http://evil.example/x'], 2],
  ['api malformed --field', ['api', 'GET', '/keywords', '--field', 'novalue'], 2],
  ['api --input with GET', ['api', 'GET', '/projects', '--input', empty], 2],
  ['api --input malformed', ['api', 'POST', '/projects', '--input', malformed], 2],
  ['completion unknown shell', ['completion', 'tcsh'], 2],
  ['unknown --format', ['--format', 'yaml', 'projects', 'list'], 2],
  ['--json with --format csv', ['--json', '--format', 'csv', 'projects', 'list'], 2],
  ['--http-timeout 0', ['--http-timeout', '0', 'projects', 'list'], 2],
  ['--http-timeout abc', ['--http-timeout', 'abc', 'projects', 'list'], 2],
  ['bad --profile name', ['--profile', '../etc', 'projects', 'list'], 2],
  ['login --port 70000', ['login', '--port', '70000'], 2],
  ['login --timeout 0', ['login', '--timeout', '0'], 2],
  ['sandbox --time-scale -1', ['sandbox', '--time-scale', '-1'], 2],
];

/** Bad environment and states the server must be asked about, or that fail before any request. */
const ENVIRONMENT: Array<[string, string[], number, (base: string, token: string) => Record<string, string>]> = [
  ['RSI_BASE_URL with ftp://', ['projects', 'list'], 2, (_b, t) => ({ RSI_BASE_URL: 'ftp://127.0.0.1:21', RSI_TOKEN: t })],
  [
    'RSI_BASE_URL http:// on a non-loopback host',
    ['projects', 'list'],
    2,
    (_b, t) => ({ RSI_BASE_URL: 'http://example.com', RSI_TOKEN: t }),
  ],
  ['RSI_BASE_URL not a URL', ['projects', 'list'], 2, (_b, t) => ({ RSI_BASE_URL: 'research service', RSI_TOKEN: t })],
  ['RSI_TOKEN with spaces', ['projects', 'list'], 2, (b) => ({ RSI_BASE_URL: b, RSI_TOKEN: 'two words' })],
  [
    'RSI_CREDENTIAL_STORE bogus',
    ['projects', 'list'],
    2,
    (b) => ({ RSI_BASE_URL: b, RSI_CREDENTIAL_STORE: 'vault', RSI_CONFIG_DIR: corruptless() }),
  ],
  ['no base URL and no login', ['projects', 'list'], 3, () => ({ RSI_CONFIG_DIR: corruptless() })],
  ['corrupt config file', ['projects', 'list'], 1, () => ({ RSI_CONFIG_DIR: corruptConfig('{ not json') })],
  [
    'config file of the wrong shape',
    ['projects', 'list'],
    1,
    () => ({ RSI_CONFIG_DIR: corruptConfig('{"version":1,"profiles":{"default":{"baseUrl":42}}}') }),
  ],
  [
    'unwritable config folder at login',
    ['login', '--insecure-storage', '--timeout', '2'],
    1,
    (b) => ({ RSI_BASE_URL: b, RSI_CONFIG_DIR: unwritableDir(), BROWSER: 'true' }),
  ],
];

function corruptless(): string {
  return mkdtempSync(join(dir, 'cfg-'));
}
function corruptConfig(text: string): string {
  const d = mkdtempSync(join(dir, 'corrupt-'));
  writeFileSync(join(d, 'config.json'), text);
  return d;
}
function unwritableDir(): string {
  const d = mkdtempSync(join(dir, 'ro-'));
  const inner = join(d, 'rsi');
  mkdirSync(inner);
  chmodSync(inner, 0o500);
  return inner;
}

const isRoot = process.getuid?.() === 0;

function expectOneLineError(r: CliResult, name: string): void {
  expect(r.stdout, `${name}: stdout`).toBe('');
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines[0], `${name}: ${r.stderr}`).toMatch(/^rsi: \S/);
  expect(lines.length, `${name}: ${r.stderr}`).toBeLessThanOrEqual(2);
  if (lines[1] !== undefined) expect(lines[1], name).toMatch(/^hint: \S/);
  expect(r.stderr, name).not.toMatch(/\n\s+at .*\(|\bat file:/);
}

/** `fn` over `items` with at most `limit` in flight, in order: a slot is refilled as soon as one ends. */
async function inPool<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

let sandbox: InProcessSandbox;
let token: string;
beforeAll(async () => {
  sandbox = await startSandbox(['--auto-approve', '--quiet']);
  token = (await obtainTokens(sandbox.url)).access_token;
});
afterAll(async () => {
  await sandbox?.stop();
});

describe('bad input: caught before any request', () => {
  it(`${CLIENT_SIDE.length} cases: exit code, one rsi: line, nothing on stdout, no request sent`, async () => {
    const before = await sandboxStats(sandbox.url);
    const env = { RSI_TOKEN: token, RSI_BASE_URL: sandbox.url, RSI_CONFIG_DIR: mkdtempSync(join(dir, 'cfg-')) };
    const results = await inPool(CLIENT_SIDE, 4, async ([name, args, code, extra, input]) => ({
      name,
      code,
      r: await runCli(args, { env: { ...env, ...extra }, input }),
    }));
    const wrong = results
      .filter(({ r, code }) => r.code !== code)
      .map(({ name, r, code }) => `${name}: expected ${code}, got ${r.code}: ${r.stderr.trim()}`);
    expect(wrong).toEqual([]);
    for (const { name, r } of results) expectOneLineError(r, name);
    const after = await sandboxStats(sandbox.url);
    expect(after.apiRequests - before.apiRequests, 'API requests sent by client-side errors').toBe(0);
  });
});

// Side by side: each case has its own config folder and none counts requests (the catalogue above
// does, so it runs alone).
describe.concurrent('bad environment', () => {
  it.for(ENVIRONMENT)('%s', async ([name, args, code, env], { expect }) => {
    if (name.startsWith('unwritable') && isRoot) {
      // root writes through 0500 folders; the permission case cannot be staged as root.
      return;
    }
    const r = await runCli(args, { env: env(sandbox.url, token) });
    expect(r.code, `${name}: ${r.stderr}`).toBe(code);
    expectOneLineError(r, name);
  });

  it('RSI_TOKEN garbage: the server says 401, rsi exits 3 saying to renew that variable', async ({ expect }) => {
    const r = await runCli(['projects', 'list'], {
      env: { RSI_TOKEN: 'garbage', RSI_BASE_URL: sandbox.url, RSI_CONFIG_DIR: corruptless() },
    });
    expect(r.code).toBe(3);
    expectOneLineError(r, 'garbage token');
    expect(r.stderr).toContain('hint: renew RSI_TOKEN');
  });

  it('unknown names: exit 2 listing candidates; unknown ids: exit 4 or 5 from the server', async ({ expect }) => {
    const env = { RSI_TOKEN: token, RSI_BASE_URL: sandbox.url, RSI_CONFIG_DIR: corruptless() };
    const cases: Array<[string[], number]> = [
      [['signals', 'No such project'], 2],
      [['keywords', 'get', 'no-such-keyword-anywhere'], 2],
      [['keywords', 'get', '00000000-0000-4000-8000-000000000000'], 5],
      [['status', '00000000-0000-4000-8000-000000000000'], 4],
    ];
    for (const [args, code] of cases) {
      const r = await runCli(args, { env });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(code);
      expectOneLineError(r, args.join(' '));
    }
  });
});

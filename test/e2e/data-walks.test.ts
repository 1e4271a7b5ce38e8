// Replies that are not what a script expects, from a foreign node:http server on loopback, through
// real `bin/rsi.js` processes (issue 30): a non-JSON 2xx where JSON is expected is exit 1 with
// nothing on stdout, and a server whose pages never end stops at the page cap (RSI_MAX_PAGES).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/inproc.js';
import { startStub, type StubServer } from '../support/stub-server.js';

// Each test starts several rsi processes on a machine that may be busy: generous bounds, which
// only a hang reaches (vitest's 300 s per test; runCli kills a child after 240 s).

let server: StubServer;
let base: string;
const asked = { search: 0, relations: 0 };
const KEYWORD = '00000000-0000-4000-8000-000000000001';

const HTML = '<html>\n<head><title>Sign in</title></head><body>\u001b[2JPlease sign in</body></html>';

beforeAll(async () => {
  server = await startStub((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname.replace(/^\/api\/v1/, '');
    const json = (body: unknown): void => void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (path === '/html') return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(HTML);
    if (path === '/nan') return void res.writeHead(200, { 'content-type': 'application/json' }).end('[NaN]');
    if (path === '/keywords' && url.searchParams.get('q') === 'html')
      return void res.writeHead(200, { 'content-type': 'text/html' }).end(HTML);
    if (path === '/keywords') {
      // Never ends: every page has a new row.
      const page = Number(url.searchParams.get('page') ?? '1');
      asked.search++;
      const id = `00000000-0000-4000-8000-${String(page).padStart(12, '0')}`;
      return json({ data: [{ id, name: `Hit ${page}`, type: 'target', synonyms: [] }], meta: { page, pageSize: 1 } });
    }
    if (path === `/keywords/${KEYWORD}/relations`) {
      const offset = Number(url.searchParams.get('offset') ?? '0');
      asked.relations++;
      const id = `00000000-0000-4000-8000-${String(offset).padStart(12, '0')}`;
      return json({
        data: [{ id, name: `Link ${offset}`, count: offset }],
        meta: { relation: 'indications', limit: 100, offset, total: 1 },
      });
    }
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Not found"}');
  });
  base = server.url;
});
afterAll(() => server?.close());

const env = (extra: Record<string, string> = {}) => ({
  RSI_TOKEN: 'data-walks-token',
  RSI_BASE_URL: base,
  RSI_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'rsi-walks-')),
  ...extra,
});

describe('a reply that is not JSON where JSON is expected (issue 30, item 4)', () => {
  it('rsi api --json, --fields-free --jq and --paginate: exit 1, one line with the type and the start of the body, nothing on stdout', async () => {
    for (const args of [
      ['api', '/html', '--json'],
      ['api', '/html', '--jq', '.id'],
      ['api', '/nan', '--json'],
      ['api', '/keywords', '--field', 'q=html', '--paginate'],
      ['keywords', 'search', 'html'],
      ['keywords', 'search', 'html', '--json'],
    ]) {
      const r = await runCli(args, { env: env() });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(1);
      expect(r.stdout, args.join(' ')).toBe('');
      const [line, hint] = r.stderr.split('\n');
      if (args[1] === '/nan')
        expect(line).toBe('rsi: unexpected reply from GET /nan: 200 application/json that does not parse as JSON: "[NaN]"');
      else
        expect(line).toMatch(
          /^rsi: unexpected reply from GET \/(html|keywords): 200 text\/html not JSON: "<html>\\n<head><title>Sign in<\/title><\/head><body>\\x1b\[2JPlease sign in<\/body><\/html>"$/,
        );
      expect(hint).toMatch(/^hint: /);
      // The escape sequence in the body never reaches the terminal raw.
      expect(r.stderr).not.toContain('\u001b');
    }
  });

  it('rsi api without a JSON flag still prints a text reply as it came', async () => {
    const r = await runCli(['api', '/html'], { env: env() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${HTML}\n`);
  });
});

describe('walks that end (issue 30, item 7)', () => {
  it('search --all stops at RSI_MAX_PAGES with exit 1 and a clear error; the rows before it streamed', async () => {
    asked.search = 0;
    const r = await runCli(['keywords', 'search', 'x', '--all', '--format', 'ndjson'], {
      env: env({ RSI_MAX_PAGES: '40' }),
    });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('rsi: GET /keywords: stopped after 40 pages, and the service was still sending rows');
    expect(r.stderr).toContain('RSI_MAX_PAGES');
    expect(r.stdout.trim().split('\n')).toHaveLength(40);
    // The cap and the one page that shows the walk goes on; never more.
    expect(asked.search).toBe(41);
  });

  it('relations --all stops at the cap too, whatever total the service declares', async () => {
    asked.relations = 0;
    const r = await runCli(['keywords', 'relations', KEYWORD, '--relation', 'indications', '--all', '--format', 'tsv'], {
      env: env({ RSI_MAX_PAGES: '25' }),
    });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain(`stopped after 25 pages`);
    expect(r.stdout.trim().split('\n')).toHaveLength(25);
    expect(asked.relations).toBe(26);
  });

  it('rsi api --paginate stops at the cap with nothing on stdout', async () => {
    asked.search = 0;
    const r = await runCli(['api', '/keywords', '--field', 'q=x', '--paginate'], { env: env({ RSI_MAX_PAGES: '30' }) });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('rsi: GET /keywords --paginate: stopped after 30 pages');
    expect(asked.search).toBe(31);
  });

  it('a bad RSI_MAX_PAGES is exit 2 before any request', async () => {
    asked.search = 0;
    const r = await runCli(['keywords', 'search', 'x', '--all'], { env: env({ RSI_MAX_PAGES: '0' }) });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('RSI_MAX_PAGES must be an integer from 1 to 1000000 (got "0")');
    expect(asked.search).toBe(0);
  });
});

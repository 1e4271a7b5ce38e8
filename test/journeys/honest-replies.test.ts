// Messages that say what came (issue 41.6), from real rsi processes against a loopback server that
// sends exactly the bytes a test gives it. A reply that is not JSON is quoted with its bytes
// escaped, never normalised: a byte-order mark before `{}` shows as `\ufeff{}` (it once showed as
// `"{}"`, which reads like valid JSON), whitespace is kept and escaped. A reply holding an unpaired
// surrogate makes `--jq` say so, instead of "the program stopped with halt_error", which the
// program never called.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { startStub, type StubServer } from '../support/stub-server.js';

/** Bodies by path under /api/v1, each sent as application/json. */
const BODIES: Record<string, string> = {
  '/api/v1/projects': '\ufeff{}',
  '/api/v1/keywords': '  <html>\n\t<p>  two  spaces</p>',
  '/api/v1/surrogate': '{"name":"a\\ud800b","pair":"\\ud83d\\ude00"}',
};
let server: StubServer;
let base: string;

beforeAll(async () => {
  server = await startStub((req, res) => {
    const body = BODIES[new URL(req.url ?? '/', 'http://x').pathname];
    res.writeHead(body === undefined ? 404 : 200, { 'content-type': 'application/json' }).end(body ?? '{"error":"not found"}');
  });
  base = server.url;
});
afterAll(() => server?.close());

const rsi = (args: string[]) =>
  runCli(args, { env: { RSI_TOKEN: 'a-token', RSI_BASE_URL: base, RSI_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'rsi-honest-')) } });

describe('replies quoted as they came', () => {
  it('a byte-order mark before {} is shown as \\ufeff, not hidden', async () => {
    const r = await rsi(['projects', 'list']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('rsi: unexpected reply from GET /projects: 200 application/json that does not parse as JSON: "\\ufeff{}"\n');
  });

  it('whitespace is kept and escaped, not squashed or trimmed', async () => {
    const r = await rsi(['keywords', 'search', 'egfr']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('does not parse as JSON: "  <html>\\n\\t<p>  two  spaces</p>"\n');
  });

  it('--jq on a reply with an unpaired surrogate says what it is; a proper pair is fine', async () => {
    const r = await rsi(['api', '/surrogate', '--jq', '.pair']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('rsi: --jq: the reply holds an unpaired UTF-16 high surrogate (\\ud800), which jq cannot read\n');
    expect(r.stderr).not.toContain('halt_error');
    expect(r.stdout).toBe('');
    const json = await rsi(['api', '/surrogate', '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect(json.stdout).toContain('\\ud800');
  });
});

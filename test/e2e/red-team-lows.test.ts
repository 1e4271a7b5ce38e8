// The red team's lows, in real processes: a prototype name is no profile, a header value HTTP
// cannot carry is a usage error (not "cannot reach the service"), a person's own secret header is
// redacted in --debug, and `rsi api` takes gh's -f/-F and a path without its leading slash.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { useSandbox } from '../support/e2e.js';
import { runCli } from '../support/inproc.js';

const e2e = useSandbox();
const dir = mkdtempSync(join(tmpdir(), 'rsi-lows-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the red team's lows", () => {
  it('rsi auth switch constructor: names inherited from Object.prototype are not profiles', async () => {
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ version: 1, profiles: { default: { baseUrl: e2e.url } } }), { mode: 0o600 });
    for (const name of ['constructor', 'toString', 'hasOwnProperty']) {
      const r = await runCli(['auth', 'switch', name], { env: { RSI_CONFIG_DIR: dir, RSI_CREDENTIAL_STORE: 'file' } });
      expect(r.code, name).toBe(2);
      expect(r.stderr).toBe(`rsi: no profile named "${name}"\nhint: your profiles: default\n`);
    }
  });

  it("rsi api -H 'X: é€' is a usage error naming the character", async () => {
    const r = await e2e.rsi(['api', '/keywords', '-H', 'X: é€']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'rsi: --header X: HTTP header values cannot carry "€" (only Latin-1 characters)\nhint: percent-encode it, or send it in the body (--field, --input)\n',
    );
  });

  it('a secret header of your own is redacted in --debug', async () => {
    const secrets = ['sekrit-api-key-1', 'sekrit-token-2', 'sekrit-cookie-3'];
    const r = await e2e.rsi([
      'api',
      'GET',
      'keywords',
      '-f',
      'q=egfr',
      '--debug',
      '-H',
      `X-Api-Key: ${secrets[0]}`,
      '-H',
      `X-Auth-Token: ${secrets[1]}`,
      '-H',
      `Cookie: ${secrets[2]}`,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/x-api-key: \[redacted\]/i);
    for (const s of secrets) expect(r.stderr).not.toContain(s);
    expect(JSON.parse(r.stdout)).toHaveProperty('data');
  });

  it('rsi api -F typed and -f raw: a JSON body for POST', async () => {
    const r = await e2e.rsi(['api', 'projects', '-f', 'name=12', '--json']);
    expect(r.code, r.stderr).toBe(0);
    // -f keeps "12" a string (the service would refuse a number as a name).
    expect(JSON.parse(r.stdout).name).toBe('12');
  });
});

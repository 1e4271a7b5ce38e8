// The secrets scan: a whole journey with --debug (login, commands, a refresh, logout), then a search
// of everything rsi printed and every file it wrote for each token, refresh token and
// authorization code of the journey. Only the 0600 credentials file may hold them.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expireTokens } from '../support/sandbox.js';
import { runCli, startSandbox, type InProcessSandbox } from '../support/inproc.js';

let sandbox: InProcessSandbox;
beforeAll(async () => {
  sandbox = await startSandbox(['--auto-approve', '--quiet', '--token-ttl', '4', '--time-scale', '100']);
});
afterAll(async () => {
  await sandbox?.stop();
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath ?? (e as unknown as { path: string }).path, e.name));
}

describe('secrets scan', () => {
  it('no token, refresh token, code or verifier in any output or file but the 0600 credentials file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rsi-secrets-'));
    const work = mkdtempSync(join(tmpdir(), 'rsi-secrets-work-'));
    const seen = join(work, 'redirects.txt');
    // A "browser" that records every redirect it follows, so the test knows the authorization code.
    const browser = join(work, 'browser.mjs');
    writeFileSync(
      browser,
      `import { appendFileSync } from 'node:fs';\nlet url = process.argv.at(-1);\nfor (let i = 0; i < 5 && url; i++) {\n  const res = await fetch(url, { redirect: 'manual' });\n  const next = res.headers.get('location');\n  if (!next) { await res.text(); break; }\n  appendFileSync(${JSON.stringify(seen)}, next + '\\n');\n  url = new URL(next, url).href;\n}\n`,
    );
    const env = { RSI_CONFIG_DIR: dir, RSI_CREDENTIAL_STORE: 'file', RSI_DEBUG: '1', BROWSER: `${process.execPath} ${browser}` };
    const outputs: string[] = [];
    const secrets = new Set<string>();
    const collect = (): void => {
      const file = join(dir, 'credentials.json');
      if (!existsSync(file)) return;
      for (const entry of Object.values(
        JSON.parse(readFileSync(file, 'utf8')) as Record<string, { accessToken: string; refreshToken?: string }>,
      )) {
        secrets.add(entry.accessToken);
        if (entry.refreshToken) secrets.add(entry.refreshToken);
      }
    };
    const step = async (args: string[], expected = 0): Promise<void> => {
      const r = await runCli(args, { env });
      outputs.push(r.stdout, r.stderr);
      expect(r.code, `${args.join(' ')}: ${r.stderr.slice(-500)}`).toBe(expected);
      collect();
    };

    await step(['login', '--base-url', sandbox.url]);
    await step(['keywords', 'search', 'egfr', '--json']);
    await step(['projects', 'create', '--name', 'Secrets scan']);
    await step(['analyses', 'run', 'KRAS inhibitors', '--top', '1', '--type', 'mechanism', '--yes']);
    // The access token expires (a clock jump, not a 4-second sleep): the next call refreshes. 420 s is
    // what the sleep moved the scaled scan clock (4.2 s × --time-scale 100), so the run has moved on too.
    await expireTokens(sandbox, dir, 420);
    await step(['status', 'KRAS inhibitors', '--json']);
    await step(['signals', 'KRAS inhibitors', '--limit', '3']);
    await step(['auth', 'status']);
    await step(['doctor']);
    await step(['logout']);

    const codes = readFileSync(seen, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((u) => new URL(u).searchParams.get('code'))
      .filter((c): c is string => !!c);
    expect(codes.length).toBeGreaterThan(0);
    expect(secrets.size).toBeGreaterThanOrEqual(4); // login pair + refreshed pair
    const all = [...secrets, ...codes];
    const printed = outputs.join('\n');
    expect(printed).toContain('[redacted]'); // the trace ran
    for (const secret of all) expect(printed.includes(secret), 'a secret was printed').toBe(false);
    expect(printed).not.toMatch(/code_verifier=(?!%5Bredacted%5D|\[redacted\])[A-Za-z0-9._~-]{20,}/);
    expect(printed).not.toMatch(/authorization: Bearer (?!\[redacted\])/i);
    for (const file of filesUnder(dir)) {
      const text = readFileSync(file, 'utf8');
      for (const secret of all) expect(text.includes(secret), `${file} holds a secret`).toBe(false);
    }
  });
});

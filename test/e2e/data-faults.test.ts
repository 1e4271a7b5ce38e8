// A proxy's 502 HTML page in front of the API: the data commands exit 8 and never print the page.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { obtainTokens } from '../support/oauth.js';
import { startSandbox, type SandboxProcess } from '../support/sandbox.js';

let sandbox: SandboxProcess;
let configDir: string;
let token: string;

beforeAll(async () => {
  sandbox = await startSandbox(['--auto-approve', '--fault', 'html-502']);
  token = (await obtainTokens(sandbox.url)).access_token;
  configDir = mkdtempSync(join(tmpdir(), 'rsi-e2e-faults-'));
});

afterAll(async () => {
  await sandbox?.stop();
  if (configDir) rmSync(configDir, { recursive: true, force: true });
});

const rsi = (args: string[]) => runCli(args, { env: { RSI_TOKEN: token, RSI_BASE_URL: sandbox.url, RSI_CONFIG_DIR: configDir } });

for (const args of [
  ['keywords', 'search', 'egfr'],
  ['projects', 'list', '--json'],
  ['keywords', 'relations', '00000000-0000-4000-8000-000000000000', '--relation', 'assets', '--all'],
]) {
  it(`${args.join(' ')} → exit 8 naming the 502, no HTML`, async () => {
    const r = await rsi(args);
    expect(r.code, r.stderr).toBe(8);
    expect(r.stderr).toMatch(/^rsi: .*502.*non-JSON/m);
    expect(r.stderr).not.toContain('<html>');
    expect(r.stdout).toBe('');
  });
}

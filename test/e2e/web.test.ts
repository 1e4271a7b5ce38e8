// `--web` on project commands opens the project's page in the browser ($BROWSER) and prints nothing
// on stdout; combining it with --watch is a usage error.
import { chmodSync, mkdtempSync, readFileSync, writeFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { obtainTokens } from '../support/oauth.js';
import { uuidFor } from '../../src/sandbox/data.js';
import { runCli, startSandbox, type InProcessSandbox } from '../support/inproc.js';

let sandbox: InProcessSandbox;
let env: Record<string, string>;
const dir = mkdtempSync(join(tmpdir(), 'rsi-web-'));
const opened = join(dir, 'opened.txt');

beforeAll(async () => {
  sandbox = await startSandbox(['--auto-approve', '--quiet']);
  const browser = join(dir, 'browser.sh');
  // A browser that only notes the URL it was asked to open.
  writeFileSync(browser, `#!/bin/sh\nprintf '%s\\n' "$1" > ${JSON.stringify(opened)}\n`);
  chmodSync(browser, 0o755);
  env = { RSI_TOKEN: (await obtainTokens(sandbox.url)).access_token, RSI_BASE_URL: sandbox.url, RSI_CONFIG_DIR: dir, BROWSER: browser };
});
afterAll(async () => {
  await sandbox?.stop();
});

/**
 * Waits for the browser's whole line (the shell creates the file before printf writes to it), with
 * an outer bound (120 s) a busy machine cannot trip.
 */
async function waitForFile(path: string): Promise<string> {
  const line = () => (existsSync(path) ? readFileSync(path, 'utf8') : '');
  const end = Date.now() + 120_000;
  while (!line().endsWith('\n') && Date.now() < end) await new Promise((r) => setTimeout(r, 25));
  return line().trim();
}

describe('--web', () => {
  for (const command of ['status', 'signals', 'opportunities']) {
    it(`${command} --web opens the project page`, async () => {
      rmSync(opened, { force: true });
      const r = await runCli([command, 'KRAS inhibitors', '--web'], { env });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe('');
      const url = `${sandbox.url}/projects/${uuidFor('project:KRAS inhibitors')}/overview`;
      expect(r.stderr).toBe(`Opening ${url}\n`);
      expect(await waitForFile(opened)).toBe(url);
    });
  }

  it('is not for --watch', async () => {
    const r = await runCli(['status', 'KRAS inhibitors', '--web', '--watch'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('rsi: --web cannot be used with --watch\n');
  });
});

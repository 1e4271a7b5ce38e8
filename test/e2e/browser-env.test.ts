// $BROWSER forms end to end: real `rsi login` processes open a fake browser that lives in a folder
// with a space, written as people write it — quoted with arguments and `%s`, after a missing
// program in a `:`-separated list. (The unquoted path is proven by test/journeys/install.test.ts.)
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startSandbox, type InProcessSandbox } from '../support/inproc.js';

let sandbox: InProcessSandbox;
let work: string;
let browser: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'rsi-browser-'));
  browser = join(work, 'My Browser', 'browser.mjs');
  mkdirSync(join(work, 'My Browser'));
  writeFileSync(browser, readFileSync(new URL('../support/fake-browser.mjs', import.meta.url)));
  chmodSync(browser, 0o755);
  sandbox = await startSandbox(['--auto-approve', '--quiet']);
});
afterAll(async () => {
  await sandbox?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('$BROWSER with a space in the path', () => {
  it.each([
    ['quoted, with an argument and %s', () => `"${browser}" --new-window %s`],
    ['after a missing program in a list', () => `rsi-no-such-browser:'${browser}'`],
  ])('%s: login opens it and signs in', async (_name, value) => {
    const config = mkdtempSync(join(work, 'config-'));
    const r = await runCli(['login', '--base-url', sandbox.url], {
      env: { RSI_CONFIG_DIR: config, RSI_CREDENTIAL_STORE: 'file', BROWSER: value() },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('Signed in to');
    expect(r.stderr).toContain('Opening your browser');
  });
});

// `rsi login` with a real browser: headless Chromium opens the authorization URL rsi prints,
// clicks Approve (or Deny) on the consent page, and the redirect reaches rsi's loopback listener.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RSI_BIN, cleanEnv } from '../support/cli.js';
import { chromiumPart, skipWithout, launchChromium } from '../support/system.js';
import { startSandbox, type InProcessSandbox } from '../support/inproc.js';

const skip = skipWithout(chromiumPart());

describe.skipIf(skip)('login in headless Chromium', () => {
  let sandbox: InProcessSandbox;
  let profile: string;
  let context: import('playwright-core').BrowserContext;

  beforeAll(async () => {
    sandbox = await startSandbox([]);
    profile = mkdtempSync(join(tmpdir(), 'rsi-chromium-login-'));
    context = await launchChromium(profile);
  });
  afterAll(async () => {
    await context?.close();
    await sandbox?.stop();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  async function loginWith(button: 'Approve' | 'Deny'): Promise<{ code: number | null; stderr: string; dir: string; pageText: string }> {
    const dir = mkdtempSync(join(tmpdir(), 'rsi-browser-login-'));
    // BROWSER=true: rsi "opens" nothing; the test plays the browser with the URL rsi prints.
    const child = spawn(process.execPath, [RSI_BIN, 'login', '--base-url', sandbox.url], {
      env: cleanEnv({ RSI_CONFIG_DIR: dir, RSI_CREDENTIAL_STORE: 'file', BROWSER: 'true' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr.setEncoding('utf8').on('data', (c: string) => {
        stderr += c;
        const m = /(http:\/\/\S+\/oauth\/authorize\?\S+)/.exec(stderr);
        if (m) resolve(m[1]!);
      });
      child.once('exit', () => reject(new Error(stderr)));
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const page = await context.newPage();
    await page.goto(url);
    await page.getByRole('button', { name: button }).click();
    await page.waitForURL(/127\.0\.0\.1:\d+\/callback/);
    const pageText = await page.locator('body').innerText();
    await page.close();
    return { code: await exited, stderr, dir, pageText };
  }

  it('Approve: rsi signs in and the browser tab says so', async () => {
    const r = await loginWith('Approve');
    expect(r.code, r.stderr).toBe(0);
    expect(r.pageText).toContain('Signed in to rsi');
    expect(existsSync(join(r.dir, 'credentials.json'))).toBe(true);
  });

  it('Deny: exit 3, the tab says it failed, nothing stored', async () => {
    const r = await loginWith('Deny');
    expect(r.code).toBe(3);
    expect(r.pageText).toContain('Sign-in failed');
    expect(existsSync(join(r.dir, 'credentials.json'))).toBe(false);
  });
});

// `rsi login` with a real browser: headless Chromium opens the authorization URL rsi prints,
// clicks Approve (or Deny) on the consent page, and the redirect reaches rsi's loopback listener.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLogin } from '../support/login.js';
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
    const login = startLogin(['--base-url', sandbox.url], { RSI_CONFIG_DIR: dir, RSI_CREDENTIAL_STORE: 'file', BROWSER: 'true' });
    login.child.stdin.end();
    const url = await login.url;
    const page = await context.newPage();
    await page.goto(url);
    await page.getByRole('button', { name: button }).click();
    await page.waitForURL(/127\.0\.0\.1:\d+\/callback/);
    const pageText = await page.locator('body').innerText();
    await page.close();
    const { code, stderr } = await login.done;
    return { code, stderr, dir, pageText };
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

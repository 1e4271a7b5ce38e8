// The consent and setup pages in a real browser (headless Chromium driven by playwright-core):
// they are plain HTML forms, so they must work with JavaScript disabled.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { chromiumPart, skipWithout, launchChromium } from '../support/system.js';
import { obtainTokens } from '../support/oauth.js';

const skip = skipWithout(chromiumPart());
const REDIRECT = 'http://127.0.0.1:9/callback';

describe.skipIf(skip)('consent and setup pages in Chromium', () => {
  let sb: Sandbox;

  let profile: string;
  let context: import('playwright-core').BrowserContext;

  beforeAll(async () => {
    sb = await startSandbox({ timeScale: 1000 });

    profile = mkdtempSync(join(tmpdir(), 'rsi-chromium-'));
    context = await launchChromium(profile, { javaScriptEnabled: false });
  });

  afterAll(async () => {
    await context?.close();
    await sb?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  async function consentUrl(): Promise<string> {
    const reg = await (
      await fetch(`${sb.url}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'rsi (browser test)', redirect_uris: [REDIRECT] }),
      })
    )
      .json()
      .then((b): any => b);
    const verifier = randomBytes(32).toString('base64url');
    const u = new URL(`${sb.url}/oauth/authorize`);
    u.search = new URLSearchParams({
      response_type: 'code',
      client_id: reg.client_id,
      redirect_uri: REDIRECT,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      resource: `${sb.url}/api/v1`,
      scope: 'service:read analyses:run',
      state: 'browser-state',
    }).toString();
    return u.toString();
  }

  /** Clicks a button and returns the URL the form redirected to (the callback is not served). */
  async function clickAndCatchRedirect(page: import('playwright-core').Page, button: string): Promise<URL> {
    const redirected = new Promise<URL>((resolve) => {
      page.on('request', (req) => {
        if (req.url().startsWith(REDIRECT)) resolve(new URL(req.url()));
      });
    });
    await page.route(`${REDIRECT}**`, (route) => route.fulfill({ status: 200, body: 'callback reached' }));
    await page.getByRole('button', { name: button }).click();
    return redirected;
  }

  it('shows the client, scopes and resource; Approve redirects with code, state and iss', async () => {
    const page = await context.newPage();
    await page.goto(await consentUrl());
    const text = await page.locator('body').innerText();
    expect(text).toContain('rsi (browser test)');
    expect(text).toContain('service:read');
    expect(text).toContain('analyses:run');
    expect(text).not.toContain('projects:write');
    expect(text).toContain(`${sb.url}/api/v1`);
    expect(text).toContain('127.0.0.1:9'); // where the code goes, not only the client's chosen name
    const back = await clickAndCatchRedirect(page, 'Approve');
    expect(back.searchParams.get('code')).toBeTruthy();
    expect(back.searchParams.get('state')).toBe('browser-state');
    expect(back.searchParams.get('iss')).toBe(sb.url);
    await page.close();
  });

  it('Deny redirects with error=access_denied', async () => {
    const page = await context.newPage();
    await page.goto(await consentUrl());
    const back = await clickAndCatchRedirect(page, 'Deny');
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('code')).toBeNull();
    await page.close();
  });

  it('the setup page button finishes scoring setup', async () => {
    const auto2 = await startSandbox({ autoApprove: true, timeScale: 1000 });
    try {
      const token = (await obtainTokens(auto2.url)).access_token;
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      const created = await (await fetch(`${auto2.url}/api/v1/projects`, { method: 'POST', headers, body: '{"name":"Browser setup"}' }))
        .json()
        .then((b): any => b);
      const run = () =>
        fetch(`${auto2.url}/api/v1/projects/${created.id}/analyses`, {
          method: 'POST',
          headers,
          body: '{"top":{"type":"target","limit":1}}',
        });
      auto2.advance(31); // the scan is finished; only setup is missing
      const missing = await run();
      expect(missing.status).toBe(409);
      expect((await missing.json().then((b): any => b)).error).toContain(created.setup_url);
      const page = await context.newPage();
      await page.goto(created.setup_url);
      expect(await page.locator('h1').innerText()).toBe('Browser setup');
      await page.getByRole('button', { name: 'Finish scoring setup' }).click();
      await page.waitForURL(/setup=done/);
      expect(await page.locator('body').innerText()).toContain('Scoring setup is finished');
      expect((await run()).status).toBe(202);
      await page.close();
    } finally {
      await auto2.close();
    }
  });
});

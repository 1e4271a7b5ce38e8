import { describe, expect, it } from 'vitest';
import type { Credentials } from '../../../src/auth/credentials.js';
import { openSetupPage } from '../../../src/commands/shared/open-setup.js';
import { type Browser, createBrowser } from '../../../src/io/browser.js';
import { fakeCredentials } from '../../support/commands.js';
import { fakeCtx, fakeIo } from '../../support/fakes.js';

/** A browser that records what it was asked and opens nothing. */
function recordingBrowser(result: 'opened' | 'failed' | 'refused'): Browser & { asked: string[][] } {
  const asked: string[][] = [];
  return {
    asked,
    launch: async () => ({ opened: false, reason: 'not in a unit test' }),
    openService: async (url, origin, what) => {
      asked.push([url, origin, what]);
      return result;
    },
  };
}

describe('--open-setup through the Context’s browser', () => {
  const credentials = fakeCredentials({ baseUrl: 'https://rsi.example' }) as Credentials;

  it('asks the browser for the setup page on the base URL’s origin, and says it opens it', async () => {
    const io = fakeIo(false);
    const browser = recordingBrowser('opened');
    await openSetupPage(fakeCtx(io, { credentials, browser }), 'https://rsi.example/projects/p/overview');
    expect(browser.asked).toEqual([['https://rsi.example/projects/p/overview', 'https://rsi.example', 'the setup page']]);
    expect(io.err()).toBe('Opening https://rsi.example/projects/p/overview\n');
  });

  it('a browser that cannot start: the URL to open by hand', async () => {
    const io = fakeIo(false);
    await openSetupPage(fakeCtx(io, { credentials, browser: recordingBrowser('failed') }), 'https://rsi.example/x');
    expect(io.err()).toContain('Could not open a browser; open https://rsi.example/x yourself.');
  });

  it('the real browser refuses a setup_url on another origin with one warning line, and nothing is started', async () => {
    const io = fakeIo(false);
    const lines: string[] = [];
    const browser = createBrowser({ BROWSER: '/nonexistent/should-not-run' }, (line) => lines.push(line));
    await openSetupPage(fakeCtx(io, { credentials, browser }), 'file:///etc/passwd');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^warning: not opening the setup page the service sent \(its scheme is file:/);
    expect(io.err()).toBe('');
  });
});

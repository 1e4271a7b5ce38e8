/**
 * `--open-setup` (projects create, also with --from-brief): the service's `setup_url` is opened
 * only under the URL policy of src/io/browser.ts (https, or http on loopback, on the configured
 * base URL's origin); otherwise it is only printed, with a warning.
 */
import type { Context } from '../../context.js';

export async function openSetupPage(ctx: Context, setupUrl: string): Promise<void> {
  const [creds, browser] = await Promise.all([ctx.credentials(), ctx.browser()]);
  const err = ctx.io.stderr;
  const result = await browser.openService(setupUrl, creds.requireBaseUrl(), 'the setup page');
  if (result === 'opened') err.write(`Opening ${setupUrl}\n`);
  else if (result === 'failed') err.write(`Could not open a browser; open ${setupUrl} yourself.\n`);
}

/**
 * `--web` on project commands (like `gh … --web`): open the project's page in the browser instead
 * of printing it. The URL is always printed too, since `open` resolves silently without a browser.
 */
import type { Context } from '../../context.js';

export async function openProjectPage(ctx: Context, ref: string): Promise<void> {
  const [client, creds, { resolveProject }, browser] = await Promise.all([
    ctx.client(),
    ctx.credentials(),
    import('../../ops/resolve.js'),
    ctx.browser(),
  ]);
  const project = await resolveProject(client, ref, ctx.signal);
  const url = `${creds.requireBaseUrl()}/projects/${encodeURIComponent(project.id)}/overview`;
  // Built by rsi on the base URL, so the policy passes it; checked all the same (one rule).
  const opened = (await browser.openService(url, creds.requireBaseUrl(), 'the project page')) === 'opened';
  ctx.io.stderr.write(`${opened ? 'Opening' : 'Could not open a browser; open'} ${url}\n`);
}

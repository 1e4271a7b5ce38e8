/**
 * `--web` on project commands (like `gh … --web`): open the project's page in the browser instead
 * of printing it. The URL is always printed too, since `open` resolves silently without a browser.
 */
import type { Context } from '../../context.js';

export async function openProjectPage(ctx: Context, ref: string): Promise<void> {
  const [client, creds, { resolveProject }, { openBrowser }] = await Promise.all([
    ctx.client(),
    ctx.credentials(),
    import('./resolve.js'),
    import('../../io/browser.js'),
  ]);
  const project = await resolveProject(client, ref, ctx.signal);
  const url = `${creds.requireBaseUrl()}/projects/${encodeURIComponent(project.id)}/overview`;
  const opened = await openBrowser(url, { env: ctx.env });
  ctx.io.stderr.write(`${opened ? 'Opening' : 'Could not open a browser; open'} ${url}\n`);
}

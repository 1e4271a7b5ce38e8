/**
 * Opens a URL in the user's browser: the command in $BROWSER if set (split on spaces, `%s` replaced
 * by the URL, else the URL appended), otherwise the OS default through `open`. Callers always print
 * the URL too: `open` resolves silently on machines without a browser.
 */
import { spawn } from 'node:child_process';

export async function openBrowser(url: string, opts: { env: Readonly<Record<string, string | undefined>> }): Promise<boolean> {
  const browser = opts.env.BROWSER?.trim();
  if (browser) {
    const parts = browser.split(/\s+/);
    const args = parts.slice(1).map((a) => a.replaceAll('%s', url));
    if (!parts.slice(1).some((a) => a.includes('%s'))) args.push(url);
    return new Promise((resolve) => {
      const child = spawn(parts[0]!, args, { stdio: 'ignore', detached: false, env: { ...opts.env } as NodeJS.ProcessEnv });
      child.once('error', () => resolve(false));
      child.once('spawn', () => resolve(true));
      child.unref();
    });
  }
  try {
    const { default: open } = await import('open');
    const child = await open(url, { wait: false });
    child.once('error', () => undefined);
    child.unref();
    return true;
  } catch {
    return false;
  }
}

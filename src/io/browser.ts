/**
 * Opens a URL in the user's browser: the command in $BROWSER if set, otherwise the OS default
 * through `open`. Callers always print the URL too: `open` resolves silently on machines without a
 * browser.
 *
 * $BROWSER follows the conventions of xdg-open and Python's webbrowser (docs/auth.md):
 * - a list of commands separated by `:` (`;` on Windows) outside quotes, tried in order until one
 *   starts;
 * - each command is a program with arguments, split like a shell splits words: whitespace
 *   separates, single or double quotes group (`"/opt/My Browser/bin/browser" --new-window`), and
 *   outside Windows a backslash escapes the next character; nothing is expanded and no shell runs;
 * - a command written as a path that, whole, names an existing file is that program even with
 *   unquoted spaces (`/opt/My Browser/bin/browser`), as Python's webbrowser reads it;
 * - `%s` in an argument is replaced by the URL; without `%s` the URL is appended.
 */
import { spawn as nodeSpawn } from 'node:child_process';
import { statSync } from 'node:fs';

/** The slice of `child_process.spawn` this module uses, so tests can inject one. */
export type SpawnFn = (
  command: string,
  args: readonly string[],
  options: { stdio: 'ignore'; detached: boolean; env: NodeJS.ProcessEnv },
) => { once(event: 'error' | 'spawn' | 'exit', listener: (...args: any[]) => void): unknown; unref(): void };

export interface OpenBrowserOptions {
  env: Readonly<Record<string, string | undefined>>;
  spawn?: SpawnFn;
  platform?: NodeJS.Platform;
  isFile?: (path: string) => boolean;
}

export interface BrowserCommand {
  command: string;
  args: string[];
}

/** Whether a browser was started; if not, why. */
export type BrowserLaunch =
  | {
      opened: true;
      /**
       * Settles with a reason if the opener then fails (exits with a non-zero status, as xdg-open
       * does when it finds no browser); never settles while it works.
       */
      failed: Promise<string>;
    }
  | { opened: false; reason: string };
/**
 * The one rule for a URL rsi hands to a browser (issue 20). A URL from the service (a project's
 * `setup_url`, the sign-in page) is opened only if it is `https:` (or `http:` on a loopback host,
 * where the sandbox runs) AND on the origin rsi already trusts for it: the configured base URL
 * for service pages, the discovered issuer for the sign-in page. Anything else (`file:`,
 * `javascript:`, `data:`, `vscode:`, `ms-msdt:`, another host, a "URL" that is really a flag such
 * as `--help`, one carrying a user name or password) is not opened; the caller prints it
 * sanitised with a one-line warning instead.
 */
export function checkServiceUrl(raw: string, trustedOrigin: string): { ok: true; href: string } | { ok: false; why: string } {
  let url: URL;
  let trusted: URL;
  try {
    url = new URL(raw);
    trusted = new URL(trustedOrigin);
  } catch {
    return { ok: false, why: 'it is not a URL' };
  }
  // `new URL` accepts leading spaces and control characters and strips them: what was checked must
  // be what is opened, so anything it would change is refused.
  if (raw !== raw.trim() || /[\u0000-\u0020\u007f-\u009f]/.test(raw)) return { ok: false, why: 'it holds spaces or control characters' };
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopback(url.hostname)))
    return {
      ok: false,
      why: url.protocol === 'http:' ? 'it is plain http to a host that is not loopback' : `its scheme is ${url.protocol}, not https:`,
    };
  if (url.username || url.password) return { ok: false, why: 'it carries a user name or password' };
  if (url.origin !== trusted.origin) return { ok: false, why: `it is not on ${trusted.origin}` };
  return { ok: true, href: url.href };
}

function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

export interface OpenServiceUrlOptions extends OpenBrowserOptions {
  /** The origin the URL must be on (the base URL, or the issuer for sign-in). */
  trustedOrigin: string;
  /** What the URL is, for the warning ("the setup page"). */
  what: string;
  /** Writes one line for a person (stderr, sanitised). */
  say: (line: string) => void;
  /** Opens a checked URL; openBrowser unless a test injects one. */
  open?: (url: string, opts: OpenBrowserOptions) => Promise<boolean>;
}

/**
 * Opens a URL from the service if `checkServiceUrl` allows it; otherwise says why (one line) and
 * does not open it. The caller prints the URL (sanitised) in every case.
 */
export async function openServiceUrl(raw: string, opts: OpenServiceUrlOptions): Promise<'opened' | 'failed' | 'refused'> {
  const verdict = checkServiceUrl(raw, opts.trustedOrigin);
  if (!verdict.ok) {
    opts.say(`warning: not opening ${opts.what} the service sent (${verdict.why}); open it yourself only if you trust it`);
    return 'refused';
  }
  return (await (opts.open ?? openBrowser)(verdict.href, opts)) ? 'opened' : 'failed';
}

/**
 * The browser as commands see it (`ctx.browser()`): the environment and the person's stderr are
 * bound once, so a command says what to open and on which origin, and tests inject their own.
 */
export interface Browser {
  /** Starts the browser on a URL rsi built or checked itself (the sign-in page). */
  launch(url: string): Promise<BrowserLaunch>;
  /** A URL from the service, opened only under `checkServiceUrl`; a refusal is said on stderr. */
  openService(url: string, trustedOrigin: string, what: string): Promise<'opened' | 'failed' | 'refused'>;
}

export function createBrowser(env: Readonly<Record<string, string | undefined>>, say: (line: string) => void): Browser {
  return {
    launch: (url) => launchBrowser(url, { env }),
    openService: (url, trustedOrigin, what) => openServiceUrl(url, { env, trustedOrigin, what, say }),
  };
}

export async function openBrowser(url: string, opts: OpenBrowserOptions): Promise<boolean> {
  return (await launchBrowser(url, opts)).opened;
}

/**
 * Starts the browser on `url`, or says why none can be: no display on Linux, an SSH session (a
 * browser would open on the remote machine, not in front of the person), or an opener that fails.
 * An explicit $BROWSER is always tried: the person chose it.
 */
export async function launchBrowser(url: string, opts: OpenBrowserOptions): Promise<BrowserLaunch> {
  const value = opts.env.BROWSER?.trim();
  if (value) {
    const spawn = opts.spawn ?? (nodeSpawn as unknown as SpawnFn);
    for (const entry of parseBrowserVariable(value, { platform: opts.platform, isFile: opts.isFile })) {
      const { command, args } = browserCommandLine(entry, url);
      const launched = await started(spawn, command, args, opts.env);
      if (launched) return { opened: true, failed: launched.failed };
    }
    return { opened: false, reason: 'no command in $BROWSER could be started' };
  }
  const headless = headlessReason(opts.env, opts.platform ?? process.platform);
  if (headless) return { opened: false, reason: headless };
  try {
    const { default: open } = await import('open');
    const child = await open(url, { wait: false });
    child.once('error', () => undefined);
    const failed = new Promise<string>((resolve) =>
      child.once('exit', (code) => {
        if (code) resolve(`the system's browser opener exited with status ${code}`);
      }),
    );
    child.unref();
    return { opened: true, failed };
  } catch (error) {
    return { opened: false, reason: `the system's browser opener failed (${(error as Error).message})` };
  }
}

/** Why the OS default browser cannot open in front of the person here, if it cannot. */
export function headlessReason(env: Readonly<Record<string, string | undefined>>, platform: NodeJS.Platform): string | undefined {
  if (env.SSH_CONNECTION || env.SSH_CLIENT || env.SSH_TTY) return 'this is an SSH session, so a browser would not open on your screen';
  // WSL opens the Windows browser without a Linux display.
  if (platform === 'linux' && !env.DISPLAY && !env.WAYLAND_DISPLAY && !env.WSL_DISTRO_NAME) {
    return 'there is no display (DISPLAY and WAYLAND_DISPLAY are unset)';
  }
  return undefined;
}

/** The commands in a $BROWSER value, in the order they are tried. Empty entries are skipped. */
export function parseBrowserVariable(
  value: string,
  opts: { platform?: NodeJS.Platform; isFile?: (path: string) => boolean } = {},
): BrowserCommand[] {
  const platform = opts.platform ?? process.platform;
  const exists = opts.isFile ?? fileExists;
  // Only something written as a path is looked up, so a file in the working folder named like a
  // word of the command changes nothing.
  const isFile = (entry: string) => (entry.includes('/') || (platform === 'win32' && entry.includes('\\'))) && exists(entry);
  // A whole value naming a file wins before any splitting: a path may hold spaces or a colon.
  const whole = value.trim();
  if (isFile(whole)) return [{ command: whole, args: [] }];
  const commands: BrowserCommand[] = [];
  for (const raw of splitList(whole, platform === 'win32' ? ';' : ':', platform !== 'win32')) {
    const entry = raw.trim();
    if (!entry) continue;
    if (isFile(entry)) {
      commands.push({ command: entry, args: [] });
      continue;
    }
    const words = splitWords(entry, platform !== 'win32');
    if (words.length > 0) commands.push({ command: words[0]!, args: words.slice(1) });
  }
  return commands;
}

/** The program and arguments to run for one $BROWSER command: `%s` → URL, else URL appended. */
export function browserCommandLine(entry: BrowserCommand, url: string): BrowserCommand {
  const templated = entry.args.some((a) => a.includes('%s'));
  const args = entry.args.map((a) => a.replaceAll('%s', url));
  return { command: entry.command, args: templated ? args : [...args, url] };
}

/**
 * Shell-like word splitting without expansion: quotes group, a backslash escapes outside single
 * quotes (only when `backslashEscapes`: on Windows it is the path separator).
 */
export function splitWords(text: string, backslashEscapes: boolean): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === '\\' && quote === '"' && backslashEscapes && (text[i + 1] === '"' || text[i + 1] === '\\')) word += text[++i];
      else word += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      inWord = true;
    } else if (c === '\\' && backslashEscapes && i + 1 < text.length) {
      word += text[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}

/** Splits the list on `separator` outside quotes, so a quoted argument may hold one. */
function splitList(text: string, separator: string, backslashEscapes: boolean): string[] {
  const entries: string[] = [];
  let start = 0;
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\\' && backslashEscapes && quote !== "'") i++;
    else if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === separator) {
      entries.push(text.slice(start, i));
      start = i + 1;
    }
  }
  entries.push(text.slice(start));
  return entries;
}

/** Undefined when the command cannot start; else `failed`, settling if it exits non-zero (wrapped: a resolved promise would be awaited). */
function started(
  spawn: SpawnFn,
  command: string,
  args: string[],
  env: OpenBrowserOptions['env'],
): Promise<{ failed: Promise<string> } | undefined> {
  return new Promise((resolve) => {
    try {
      const child = spawn(command, args, { stdio: 'ignore', detached: false, env: { ...env } as NodeJS.ProcessEnv });
      const failed = new Promise<string>((fail) =>
        child.once('exit', (code: number | null, signal: string | null) => {
          if (code) fail(`the browser command ${command} exited with status ${code}`);
          else if (signal) fail(`the browser command ${command} was stopped by ${signal}`);
        }),
      );
      child.once('error', () => resolve(undefined));
      child.once('spawn', () => resolve({ failed }));
      child.unref();
    } catch {
      // spawn throws synchronously on arguments it cannot pass (a NUL byte, say).
      resolve(undefined);
    }
  });
}

function fileExists(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

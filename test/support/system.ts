import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/**
 * System parts (real keychain, Chromium, tmux) are used for real. Where one is missing the tests
 * that need it skip with a clear message, unless RSI_REQUIRE_SYSTEM_TESTS=1 (set by .ci/run), where
 * the missing part is a failure.
 */
export const requireSystemTests = process.env.RSI_REQUIRE_SYSTEM_TESTS === '1';

export interface SystemPart {
  name: string;
  available: boolean;
  reason: string;
}

function commandExists(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

export function chromiumPart(): SystemPart {
  const path = '/usr/bin/chromium';
  return { name: 'chromium', available: existsSync(path), reason: `${path} not found (apt-get install chromium)` };
}

export function tmuxPart(): SystemPart {
  return { name: 'tmux', available: commandExists('tmux'), reason: 'tmux not found (apt-get install tmux)' };
}

/** A shell the completion scripts are run in for real (bash, zsh, fish). */
export function shellPart(shell: 'bash' | 'zsh' | 'fish'): SystemPart {
  return { name: shell, available: commandExists(shell), reason: `${shell} not found (apt-get install ${shell})` };
}

export function keyringPart(): SystemPart {
  const ok = commandExists('gnome-keyring-daemon') && commandExists('dbus-daemon');
  return {
    name: 'gnome-keyring',
    available: ok,
    reason: 'gnome-keyring-daemon or dbus-daemon not found (apt-get install dbus gnome-keyring)',
  };
}

/** A UTS namespace of its own, to run rsi under another host name (`unshare --uts`: root, or a user namespace). */
export function utsNamespacePart(): SystemPart {
  const ok = commandExists('unshare') && spawnSync('unshare', ['--uts', 'hostname', 'rsi-probe.test'], { stdio: 'ignore' }).status === 0;
  return {
    name: 'a UTS namespace',
    available: ok,
    reason: '`unshare --uts` is not allowed here (run the tests as root, or where user namespaces are on)',
  };
}

/** Files of another user (the tests make them with chown, which only root may do). */
export function otherUserPart(): SystemPart {
  return {
    name: 'another user’s files',
    available: process.getuid?.() === 0,
    reason: 'only root can make files another user owns (chown)',
  };
}

/**
 * Returns true when tests needing `part` should be skipped, printing why. Throws when the part is
 * missing and RSI_REQUIRE_SYSTEM_TESTS=1, so CI can never silently skip.
 */
export function skipWithout(part: SystemPart): boolean {
  if (part.available) return false;
  if (requireSystemTests) {
    throw new Error(`RSI_REQUIRE_SYSTEM_TESTS=1 but ${part.name} is missing: ${part.reason}`);
  }
  console.warn(`[skip] ${part.name} tests skipped: ${part.reason}`);
  return true;
}

/**
 * Journeys whose subject does not run on the line's Node (the single executables embed their own
 * Node) run once per CI run, not once per Node line: .ci/run sets RSI_NODE_INDEPENDENT_DONE on every
 * line after the first, naming the line that ran them. Returns true (skip, with the reason) there;
 * a deliberate skip, so RSI_REQUIRE_SYSTEM_TESTS=1 does not turn it into a failure.
 */
export function ranOnceThisRun(what: string): boolean {
  const done = process.env.RSI_NODE_INDEPENDENT_DONE;
  if (!done) return false;
  console.warn(`[skip] ${what}: independent of the Node line, already run in this CI run on ${done}`);
  return true;
}

/**
 * Headless Chromium on a fresh profile folder, as shared/system-tests.md measured it: without the
 * background-networking flags Chromium keeps dialling hosts this closed network refuses.
 */
export async function launchChromium(profile: string, options: { javaScriptEnabled?: boolean } = {}) {
  const { chromium } = await import('playwright-core');
  return chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    ...options,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * A suite another project wrote (jq's tests, curl's and Go's proxy tables), unpacked by
 * test/outside/fetch.sh into test/outside/vendor/NAME. Returns its folder, or a part that is
 * missing with the command that fetches it.
 */
export function outsideSuitePart(name: string): SystemPart & { dir: string } {
  const dir = new URL(`../outside/vendor/${name}/`, import.meta.url).pathname;
  return {
    name: `outside suite ${name}`,
    dir,
    available: existsSync(`${dir}.complete`),
    reason: `${dir} not found (run test/outside/fetch.sh, which downloads it from Debian's source archive)`,
  };
}

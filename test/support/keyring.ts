import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface PrivateKeyring {
  /** DBUS_SESSION_BUS_ADDRESS of the private bus that holds the Secret Service. */
  address: string;
  env: Record<string, string>;
  /** The private HOME the bus and the daemon run in; its XDG_DATA_HOME holds their keyrings. */
  home: string;
  dataHome: string;
  stop(): Promise<void>;
}

/**
 * A real Secret Service for one test file: a private D-Bus session bus and an unlocked
 * gnome-keyring on it, so tests never touch the developer's own keychain. Recipe and pitfalls in
 * shared/system-tests.md (non-empty password; poll for the bus name; probe before trusting).
 * gnome-keyring writes its collections under $XDG_DATA_HOME/keyrings (default ~/.local/share): the
 * bus and the daemon get their own HOME, XDG_DATA_HOME and XDG_RUNTIME_DIR in a temporary folder,
 * or a test run would rewrite the person's real login.keyring.
 */
export async function startPrivateKeyring(): Promise<PrivateKeyring> {
  const home = mkdtempSync(join(tmpdir(), 'rsi-keyring-home-'));
  const dataHome = join(home, '.local', 'share');
  const runtime = join(home, 'run');
  mkdirSync(dataHome, { recursive: true, mode: 0o700 });
  mkdirSync(runtime, { mode: 0o700 });
  const isolated = {
    HOME: home,
    XDG_DATA_HOME: dataHome,
    XDG_RUNTIME_DIR: runtime,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
  };
  const bus = spawn('dbus-daemon', ['--session', '--nofork', '--print-address=1'], {
    env: { ...process.env, ...isolated },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const address = await new Promise<string>((resolve, reject) => {
    let out = '';
    bus.stdout!.setEncoding('utf8').on('data', (c: string) => {
      out += c;
      const line = out.split('\n')[0];
      if (out.includes('\n') && line) resolve(line.trim());
    });
    bus.once('exit', (code) => reject(new Error(`dbus-daemon exited with ${code}`)));
    // An outer bound only: the address is an event, and a busy machine prints it late.
    setTimeout(() => reject(new Error('dbus-daemon printed no address within 120 s')), 120_000).unref();
  });
  const env = { ...process.env, ...isolated, DBUS_SESSION_BUS_ADDRESS: address } as NodeJS.ProcessEnv;
  const daemon: ChildProcess = spawn('gnome-keyring-daemon', ['--unlock', '--components=secrets'], {
    env,
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  daemon.stdin!.end('rsi-test-password');
  await new Promise<void>((resolve) => daemon.once('exit', () => resolve()));
  // The bus name is taken a moment after --unlock returns: poll for it, with an outer bound only.
  const deadline = Date.now() + 120_000;
  for (;;) {
    const owned = spawnSync(
      'dbus-send',
      [
        '--session',
        '--print-reply',
        '--dest=org.freedesktop.DBus',
        '/org/freedesktop/DBus',
        'org.freedesktop.DBus.NameHasOwner',
        'string:org.freedesktop.secrets',
      ],
      { env, encoding: 'utf8' },
    );
    if (owned.stdout?.includes('boolean true')) break;
    if (Date.now() > deadline) throw new Error('gnome-keyring never took org.freedesktop.secrets on the private bus');
    await new Promise((r) => setTimeout(r, 100));
  }
  // Probe with a real store/lookup/clear before trusting it.
  const store = spawnSync('secret-tool', ['store', '--label=rsi-probe', 'rsi-probe', 'x'], { env, input: 'probe', encoding: 'utf8' });
  const lookup = spawnSync('secret-tool', ['lookup', 'rsi-probe', 'x'], { env, encoding: 'utf8' });
  spawnSync('secret-tool', ['clear', 'rsi-probe', 'x'], { env });
  if (store.status !== 0 || lookup.stdout !== 'probe')
    throw new Error(`the private keyring does not work: ${store.stderr}${lookup.stderr}`);
  return {
    address,
    env: { DBUS_SESSION_BUS_ADDRESS: address },
    home,
    dataHome,
    stop: async () => {
      // Only our daemon: the process that owns the Secret Service name on our private bus.
      const pid = spawnSync(
        'dbus-send',
        [
          '--session',
          '--print-reply',
          '--dest=org.freedesktop.DBus',
          '/org/freedesktop/DBus',
          'org.freedesktop.DBus.GetConnectionUnixProcessID',
          'string:org.freedesktop.secrets',
        ],
        { env, encoding: 'utf8' },
      );
      const match = /uint32 (\d+)/.exec(pid.stdout ?? '');
      if (match) {
        try {
          process.kill(Number(match[1]), 'SIGTERM');
        } catch {
          // already gone
        }
      }
      // The bus's exit, not a fixed pause, says its socket under `home` is no longer in use.
      const gone = bus.exitCode !== null || bus.signalCode !== null ? Promise.resolve() : new Promise((r) => bus.once('exit', r));
      bus.kill('SIGTERM');
      await gone;
      rmSync(home, { recursive: true, force: true });
    },
  };
}

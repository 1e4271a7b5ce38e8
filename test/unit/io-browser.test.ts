// $BROWSER as xdg-open and Python's webbrowser read it: a program with arguments, quotes, a path with
// spaces, `%s`, and a `:`-separated list tried in order. spawn is injected: nothing is started.
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { headlessReason, launchBrowser, openBrowser, parseBrowserVariable, splitWords, type SpawnFn } from '../../src/io/browser.js';

const URL_ = 'http://127.0.0.1:4000/oauth/authorize?a=1&b=2';

/** A spawn that records each call and "starts" only the programs in `installed`. */
function fakeSpawn(installed: readonly string[]) {
  const calls: { command: string; args: readonly string[] }[] = [];
  const spawn: SpawnFn = (command, args) => {
    calls.push({ command, args });
    const child = Object.assign(new EventEmitter(), { unref: () => undefined });
    queueMicrotask(() => {
      if (installed.includes(command)) child.emit('spawn');
      else child.emit('error', Object.assign(new Error(`spawn ${command} ENOENT`), { code: 'ENOENT' }));
    });
    return child;
  };
  return { spawn, calls };
}

async function open(browser: string, installed: readonly string[], files: readonly string[] = [], platform: NodeJS.Platform = 'linux') {
  const fake = fakeSpawn(installed);
  const ok = await openBrowser(URL_, { env: { BROWSER: browser }, spawn: fake.spawn, platform, isFile: (p) => files.includes(p) });
  return { ok, calls: fake.calls };
}

describe('$BROWSER', () => {
  it('a plain program gets the URL as its one argument', async () => {
    expect(await open('firefox', ['firefox'])).toEqual({ ok: true, calls: [{ command: 'firefox', args: [URL_] }] });
  });

  it('a command with arguments keeps them and appends the URL', async () => {
    const r = await open('  chromium --new-window  --incognito ', ['chromium']);
    expect(r.calls).toEqual([{ command: 'chromium', args: ['--new-window', '--incognito', URL_] }]);
  });

  it('%s is replaced by the URL wherever it stands, and then nothing is appended', async () => {
    const r = await open('lynx -dump %s --title=open:%s', ['lynx']);
    // An unquoted `:` splits the list, as in xdg-open; quoted, it stays in the argument.
    expect(r.calls[0]).toEqual({ command: 'lynx', args: ['-dump', URL_, '--title=open'] });
    const q = await open(`lynx -dump %s '--title=open:%s'`, ['lynx']);
    expect(q.calls).toEqual([{ command: 'lynx', args: ['-dump', URL_, `--title=open:${URL_}`] }]);
  });

  it('a path with spaces is one program when the whole value names a file', async () => {
    const path = '/opt/My Browser/bin/browser';
    expect(await open(path, [path], [path])).toEqual({ ok: true, calls: [{ command: path, args: [URL_] }] });
  });

  it('a path with spaces and arguments needs quotes or backslashes, as in a shell', async () => {
    const path = '/opt/My Browser/bin/browser';
    expect((await open(`"${path}" --new-tab`, [path])).calls).toEqual([{ command: path, args: ['--new-tab', URL_] }]);
    expect((await open(`'${path}' %s`, [path])).calls).toEqual([{ command: path, args: [URL_] }]);
    expect((await open('/opt/My\\ Browser/bin/browser --new-tab', [path])).calls).toEqual([{ command: path, args: ['--new-tab', URL_] }]);
  });

  it('a `:`-separated list is tried in order until one program starts', async () => {
    const r = await open('missing-one:/usr/bin/also-missing --x:xdg-open:firefox', ['xdg-open', 'firefox']);
    expect(r.ok).toBe(true);
    expect(r.calls.map((c) => c.command)).toEqual(['missing-one', '/usr/bin/also-missing', 'xdg-open']);
    expect(r.calls[2]!.args).toEqual([URL_]);
  });

  it('reports false when no entry starts, so the caller says to open the URL by hand', async () => {
    expect((await open('nope:also-nope', [])).ok).toBe(false);
    expect((await open(' : ', [])).calls).toEqual([]);
  });

  it('on Windows the list separator is `;` and backslashes are path separators', async () => {
    const exe = 'C:\\Program Files\\Mozilla Firefox\\firefox.exe';
    const whole = await open(exe, [exe], [exe], 'win32');
    expect(whole.calls).toEqual([{ command: exe, args: [URL_] }]);
    const quoted = await open(`nope;"${exe}" -new-tab`, [exe], [], 'win32');
    expect(quoted.calls.at(-1)).toEqual({ command: exe, args: ['-new-tab', URL_] });
  });

  it('a word of the command that names a file in the working folder is not mistaken for a path', () => {
    expect(parseBrowserVariable('my browser', { platform: 'linux', isFile: () => true })).toEqual([{ command: 'my', args: ['browser'] }]);
  });

  it('a spawn that throws synchronously counts as not started', async () => {
    const spawn: SpawnFn = () => {
      throw new TypeError('The argument contains null bytes');
    };
    expect(await openBrowser(URL_, { env: { BROWSER: 'firefox' }, spawn, platform: 'linux', isFile: () => false })).toBe(false);
  });
});

describe('splitWords', () => {
  it('groups quotes, honours escapes outside single quotes, and expands nothing', () => {
    expect(splitWords(`a "b c" 'd "e"' f\\ g "h\\"i" $HOME ''`, true)).toEqual(['a', 'b c', 'd "e"', 'f g', 'h"i', '$HOME', '']);
    expect(splitWords('C:\\x\\y "C:\\Program Files\\z"', false)).toEqual(['C:\\x\\y', 'C:\\Program Files\\z']);
  });
});

describe('when no browser can open', () => {
  it.each([
    [{}, 'linux', 'there is no display (DISPLAY and WAYLAND_DISPLAY are unset)'],
    [{ DISPLAY: ':0' }, 'linux', undefined],
    [{ WAYLAND_DISPLAY: 'wayland-0' }, 'linux', undefined],
    [{ WSL_DISTRO_NAME: 'Ubuntu' }, 'linux', undefined],
    [{}, 'darwin', undefined],
    [{}, 'win32', undefined],
    [{ DISPLAY: ':0', SSH_CONNECTION: '1 2 3 4' }, 'linux', 'this is an SSH session, so a browser would not open on your screen'],
    [{ SSH_TTY: '/dev/pts/1' }, 'darwin', 'this is an SSH session, so a browser would not open on your screen'],
  ] as const)('%j on %s → %s', (env, platform, reason) => {
    expect(headlessReason(env, platform)).toBe(reason);
  });

  it('without $BROWSER and without a display, says why instead of calling the opener', async () => {
    const r = await launchBrowser(URL_, { env: {}, platform: 'linux' });
    expect(r).toEqual({ opened: false, reason: 'there is no display (DISPLAY and WAYLAND_DISPLAY are unset)' });
  });

  it('a $BROWSER command that starts and then exits non-zero settles `failed` with its status', async () => {
    const spawn: SpawnFn = () => {
      const child = Object.assign(new EventEmitter(), { unref: () => undefined });
      queueMicrotask(() => {
        child.emit('spawn');
        queueMicrotask(() => child.emit('exit', 3, null));
      });
      return child;
    };
    const r = await launchBrowser(URL_, { env: { BROWSER: 'xdg-open' }, spawn, platform: 'linux', isFile: () => false });
    expect(r.opened).toBe(true);
    if (r.opened) expect(await r.failed).toBe('the browser command xdg-open exited with status 3');
  });

  it('no $BROWSER command starting gives a reason', async () => {
    const fake = fakeSpawn([]);
    expect(await launchBrowser(URL_, { env: { BROWSER: 'a:b' }, spawn: fake.spawn, platform: 'linux', isFile: () => false })).toEqual({
      opened: false,
      reason: 'no command in $BROWSER could be started',
    });
  });
});

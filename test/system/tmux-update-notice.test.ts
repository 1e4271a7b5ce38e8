// The update notice in a real terminal (tmux), for a release install (a copy of the package laid
// out as `npm install -g` lays it, <prefix>/lib/node_modules/<name>), against a stub npm registry
// on loopback that the user's ~/.npmrc names: the first run prints nothing and starts the check in
// the background; the stub is asked for nothing but the package's dist-tags; the next run shows
// the notice with `npm install -g <name>@latest`, once; a later run that day is quiet and asks
// nothing. With CI, --json, RSI_NO_UPDATE_NOTIFIER=1, NO_UPDATE_NOTIFIER, stdout redirected, a
// pipe, or from the checkout there is no notice and no request; a link planted as the state file
// is replaced, never written through; a cache folder others can write is refused with its fix.
// (test/support/cli.ts turns the notifier off for every other test: here an empty
// RSI_NO_UPDATE_NOTIFIER turns it back on.)
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { skipWithout, tmuxPart } from '../support/system.js';
import { privateTmux } from '../support/tmux.js';
import { releaseInstall } from '../support/release-install.js';
import { startStub, type StubRequest, type StubServer } from '../support/stub-server.js';

const skip = skipWithout(tmuxPart());
const term = privateTmux('update');
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };
const NOTICE = new RegExp(`A new release of ${PKG.name} is available: (\\S+) → 9\\.9\\.9`);
const DIST_TAGS = `/-/package/${PKG.name.replace('/', '%2f')}/dist-tags`;

let server: StubServer;
let requests: StubRequest[] = [];
let requested: () => void = () => {};
/** What the stub registry says is the latest version. */
let latest = '9.9.9';
let work: string;
let cache: string;
let env: Record<string, string>;
/** bin/rsi.js of the release install. */
let installed: string;
let session = 0;

const stateFile = () => join(cache, 'rsi', 'update-check.json');
const start = (args: string[], extra: Record<string, string> = {}, options: { bin?: string; stdoutTo?: string } = {}) =>
  term.start(`u${++session}`, args, {
    width: 120,
    height: 30,
    env: { ...env, ...extra },
    bin: options.bin ?? installed,
    ...(options.stdoutTo ? { stdoutTo: options.stdoutTo } : {}),
  });
/** Runs `rsi args` in a new window and returns its screen once the shell has printed the exit status. */
async function run(args: string[], extra: Record<string, string> = {}, options: { bin?: string; stdoutTo?: string } = {}): Promise<string> {
  const name = start(args, extra, options);
  return term.waitFor(name, /EXIT=\d+/);
}
/**
 * Polls a condition (the background check writes a file; there is no event to wait on from here),
 * with an outer bound a busy machine cannot trip.
 */
async function until(test: () => boolean, what: string): Promise<void> {
  const end = Date.now() + 120_000;
  while (!test()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.skipIf(skip)('the update notice in a terminal (tmux), with a stub registry', () => {
  beforeAll(async () => {
    term.tmux('new-session', '-d', '-s', 'keeper', 'sleep 3600');
    server = await startStub((req, res) => {
      requested();
      if (req.url === DIST_TAGS) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ latest, next: '10.0.0-rc.1' }));
      } else {
        res.writeHead(404).end();
      }
    });
    requests = server.requests;
    work = realpathSync(mkdtempSync(join(tmpdir(), 'rsi-update-')));
    cache = join(work, 'cache');
    installed = releaseInstall(join(work, 'prefix'));
    // The registry as a user sets it: in ~/.npmrc (npm's own configuration, not a variable of rsi's).
    const home = join(work, 'home');
    mkdirSync(home);
    writeFileSync(join(home, '.npmrc'), `registry=${server.url}/\n`);
    env = {
      HOME: home,
      XDG_CACHE_HOME: cache,
      RSI_CONFIG_DIR: join(work, 'config'),
      // On: the notifier's switches, and CI's variables, which a CI machine sets for the whole run.
      RSI_NO_UPDATE_NOTIFIER: '',
      NO_UPDATE_NOTIFIER: '',
      CI: '',
      BUILD_NUMBER: '',
      RUN_ID: '',
      LANG: 'C.UTF-8',
      TERM: 'xterm-256color',
    };
  });

  afterAll(async () => {
    term.killServer();
    await server?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  beforeEach(() => {
    requests.length = 0;
  });

  it('first run: no notice, and the check runs in the background (GET <registry>/-/package/<name>/dist-tags, nothing else)', async () => {
    const asked = new Promise<void>((resolve) => (requested = resolve));
    const screen = await run(['config', 'list']);
    expect(screen).toMatch(/EXIT=0/);
    expect(screen).not.toMatch(NOTICE);
    await asked;
    await until(() => existsSync(stateFile()) && JSON.parse(readFileSync(stateFile(), 'utf8')).latest === '9.9.9', 'the cached answer');
    expect(requests.map((r) => `${r.method} ${r.url}`)).toEqual([`GET ${DIST_TAGS}`]);
    expect(lstatSync(join(cache, 'rsi')).mode & 0o777).toBe(0o700);
    // Nothing about the person or the machine: no token, cookie, user or path.
    const headers = requests[0]!.headers;
    expect(Object.keys(headers).filter((h) => !['host', 'accept', 'connection', 'accept-encoding'].includes(h))).toEqual([]);
  });

  it('the next run shows the notice on stderr after the command, with the way to update; the run after that does not', async () => {
    const screen = await run(['config', 'list']);
    expect(screen).toMatch(NOTICE);
    expect(screen.match(NOTICE)![1]).toBe(PKG.version);
    // A global npm install: the update line is npm's.
    expect(screen).toContain(`To update: npm install -g ${PKG.name}@latest`);
    expect(screen.indexOf('A new release')).toBeLessThan(screen.indexOf('EXIT=0'));

    const again = await run(['config', 'list']);
    expect(again).toMatch(/EXIT=0/);
    expect(again).not.toMatch(NOTICE);
    // Checked today already: no second request.
    expect(requests).toEqual([]);
  });

  it('a day later the notice shows again, and the registry is asked again', async () => {
    const dayAgo = Date.now() - 25 * 60 * 60 * 1000;
    writeFileSync(stateFile(), JSON.stringify({ checkedAt: dayAgo, latest: '9.9.9', shownAt: dayAgo }));
    latest = '9.9.10';
    expect(await run(['config', 'list'])).toMatch(NOTICE);
    // The background check's answer replaces the cached one (and its write is over before the next test).
    await until(() => JSON.parse(readFileSync(stateFile(), 'utf8')).latest === '9.9.10', 'the new cached answer');
    expect(requests.map((r) => r.url)).toEqual([DIST_TAGS]);
  });

  describe('never', () => {
    beforeEach(() => {
      // A newer version known, never shown, checked long ago: any run allowed to would show it and ask.
      mkdirSync(join(cache, 'rsi'), { recursive: true });
      writeFileSync(stateFile(), JSON.stringify({ checkedAt: 0, latest: '9.9.9' }));
    });

    const cases: [string, string[], Record<string, string>][] = [
      ['with --json', ['config', 'list', '--json'], {}],
      ['with --jq', ['config', 'list', '--jq', '.'], {}],
      ['in CI (CI=true)', ['config', 'list'], { CI: 'true' }],
      ['with RSI_NO_UPDATE_NOTIFIER=1', ['config', 'list'], { RSI_NO_UPDATE_NOTIFIER: '1' }],
      ['with NO_UPDATE_NOTIFIER=1', ['config', 'list'], { NO_UPDATE_NOTIFIER: '1' }],
    ];
    for (const [label, args, extra] of cases) {
      it(`${label}: no notice, no check`, async () => {
        const screen = await run(args, extra);
        expect(screen).toMatch(/EXIT=0/);
        expect(screen).not.toMatch(NOTICE);
        expect(JSON.parse(readFileSync(stateFile(), 'utf8'))).toEqual({ checkedAt: 0, latest: '9.9.9' });
        expect(requests).toEqual([]);
      });
    }

    it('when stdout is redirected to a file (stderr still a terminal): no notice, no check', async () => {
      const screen = await run(['config', 'list'], {}, { stdoutTo: join(work, 'out.txt') });
      expect(screen).toMatch(/EXIT=0/);
      expect(screen).not.toMatch(NOTICE);
      expect(JSON.parse(readFileSync(stateFile(), 'utf8'))).toEqual({ checkedAt: 0, latest: '9.9.9' });
      expect(requests).toEqual([]);
    });

    it('from the checkout (not a release: it updates with git): no notice, no check', async () => {
      const screen = await run(['config', 'list'], {}, { bin: join(ROOT, 'bin', 'rsi.js') });
      expect(screen).toMatch(/EXIT=0/);
      expect(screen).not.toMatch(/A new release/);
      expect(JSON.parse(readFileSync(stateFile(), 'utf8'))).toEqual({ checkedAt: 0, latest: '9.9.9' });
      expect(requests).toEqual([]);
    });

    it('when stderr is a pipe: no notice, no check', async () => {
      const r = await runCli(['config', 'list'], { bin: installed, env: { ...env, RSI_NO_UPDATE_NOTIFIER: undefined } });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).not.toMatch(NOTICE);
      expect(JSON.parse(readFileSync(stateFile(), 'utf8'))).toEqual({ checkedAt: 0, latest: '9.9.9' });
      expect(requests).toEqual([]);
    });
  });
  describe('the state file and its folder (issue 41)', () => {
    it('a link planted as the state file is replaced, and the file it pointed at is untouched', async () => {
      rmSync(join(cache, 'rsi'), { recursive: true, force: true });
      mkdirSync(join(cache, 'rsi'), { recursive: true, mode: 0o700 });
      const victim = join(work, 'victim.txt');
      writeFileSync(victim, 'precious\n');
      symlinkSync(victim, stateFile());
      const screen = await run(['config', 'list']);
      expect(screen).toMatch(/EXIT=0/);
      await until(() => !lstatSync(stateFile()).isSymbolicLink(), 'the state file replacing the link');
      expect(readFileSync(victim, 'utf8')).toBe('precious\n');
      await until(() => JSON.parse(readFileSync(stateFile(), 'utf8')).latest !== undefined, 'the check writing its answer');
      expect(readFileSync(victim, 'utf8')).toBe('precious\n');
    });

    it.skipIf(process.getuid?.() !== 0)(
      "another user's cache folder holding a planted link is refused; the link's target is untouched",
      async () => {
        // As root (CI): the folder belongs to uid 4242, as one planted in a shared XDG_CACHE_HOME would.
        rmSync(join(cache, 'rsi'), { recursive: true, force: true });
        mkdirSync(join(cache, 'rsi'), { recursive: true, mode: 0o755 });
        const victim = join(work, 'victim2.txt');
        writeFileSync(victim, 'precious\n');
        symlinkSync(victim, stateFile());
        chownSync(join(cache, 'rsi'), 4242, 4242);
        const screen = await run(['config', 'list']);
        expect(screen).toMatch(/EXIT=0/);
        expect(screen.replace(/\n/g, '')).toContain(`refusing to use ${join(cache, 'rsi')}: it is owned by another user (uid 4242)`);
        expect(readFileSync(victim, 'utf8')).toBe('precious\n');
        expect(lstatSync(stateFile()).isSymbolicLink()).toBe(true);
        expect(requests).toEqual([]);
      },
    );

    it('a cache folder others can write is refused, with the fix, and nothing is written or asked', async () => {
      rmSync(join(cache, 'rsi'), { recursive: true, force: true });
      mkdirSync(join(cache, 'rsi'), { recursive: true });
      chmodSync(join(cache, 'rsi'), 0o777);
      const screen = await run(['config', 'list']);
      expect(screen).toMatch(/EXIT=0/);
      expect(screen.replace(/\n/g, '')).toContain(
        `refusing to use ${join(cache, 'rsi')}: it can be written by other users (mode 777); fix: chmod 700 ${join(cache, 'rsi')}`,
      );
      expect(existsSync(stateFile())).toBe(false);
      expect(requests).toEqual([]);
    });
  });
});

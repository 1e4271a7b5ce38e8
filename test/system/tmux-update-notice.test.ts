// The update notice in a real terminal (tmux), against a stub npm registry on loopback
// (npm_config_registry): the first run prints nothing and starts the check in the background; the
// stub is asked for nothing but /rsi/latest; the next run shows the notice, once; a later run that
// day is quiet and asks nothing. With CI, --json, RSI_NO_UPDATE_NOTIFIER=1, NO_UPDATE_NOTIFIER or a
// pipe there is no notice and no request. (test/support/cli.ts turns the notifier off for every
// other test: here it is turned back on with an empty RSI_NO_UPDATE_NOTIFIER.)
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { skipWithout, tmuxPart } from '../support/system.js';
import { privateTmux } from '../support/tmux.js';

const skip = skipWithout(tmuxPart());
const term = privateTmux('update');
const PKG = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
const NOTICE = /A new release of rsi is available: (\S+) → 9\.9\.9/;

let server: Server;
let requests: { method: string; url: string; headers: IncomingHttpHeaders }[] = [];
let requested: () => void = () => {};
/** What the stub registry says is the latest version. */
let latest = '9.9.9';
let work: string;
let cache: string;
let env: Record<string, string>;
let session = 0;

const stateFile = () => join(cache, 'rsi', 'update-check.json');
const start = (args: string[], extra: Record<string, string> = {}) =>
  term.start(`u${++session}`, args, { width: 120, height: 30, env: { ...env, ...extra } });
/** Runs `rsi args` in a new window and returns its screen once the shell has printed the exit status. */
async function run(args: string[], extra: Record<string, string> = {}): Promise<string> {
  const name = start(args, extra);
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
    server = createServer((req, res) => {
      requests.push({ method: req.method!, url: req.url!, headers: req.headers });
      requested();
      if (req.url === '/rsi/latest') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ name: 'rsi', version: latest, dist: { tarball: 'http://registry.test/rsi-9.9.9.tgz' } }));
      } else {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    work = mkdtempSync(join(tmpdir(), 'rsi-update-'));
    cache = join(work, 'cache');
    env = {
      XDG_CACHE_HOME: cache,
      RSI_CONFIG_DIR: join(work, 'config'),
      npm_config_registry: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
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
    await new Promise((r) => server?.close(r));
    if (work) rmSync(work, { recursive: true, force: true });
  });

  beforeEach(() => {
    requests = [];
  });

  it('first run: no notice, and the check runs in the background (GET /rsi/latest, nothing else)', async () => {
    const asked = new Promise<void>((resolve) => (requested = resolve));
    const screen = await run(['config', 'list']);
    expect(screen).toMatch(/EXIT=0/);
    expect(screen).not.toMatch(NOTICE);
    await asked;
    await until(() => existsSync(stateFile()) && JSON.parse(readFileSync(stateFile(), 'utf8')).latest === '9.9.9', 'the cached answer');
    expect(requests.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /rsi/latest']);
    // Nothing about the person or the machine: no token, cookie, user or path.
    const headers = requests[0]!.headers;
    expect(Object.keys(headers).filter((h) => !['host', 'accept', 'connection', 'accept-encoding'].includes(h))).toEqual([]);
  });

  it('the next run shows the notice on stderr after the command, with the way to update; the run after that does not', async () => {
    const screen = await run(['config', 'list']);
    expect(screen).toMatch(NOTICE);
    expect(screen.match(NOTICE)![1]).toBe(PKG.version);
    // Run from the checkout here: the update line says how to update that.
    expect(screen).toMatch(/To update this checkout: git pull && npm install && npm run build/);
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
    expect(requests.map((r) => r.url)).toEqual(['/rsi/latest']);
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

    it('when stderr is a pipe: no notice, no check', async () => {
      const r = await runCli(['config', 'list'], { env: { ...env, RSI_NO_UPDATE_NOTIFIER: undefined } });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).not.toMatch(NOTICE);
      expect(JSON.parse(readFileSync(stateFile(), 'utf8'))).toEqual({ checkedAt: 0, latest: '9.9.9' });
      expect(requests).toEqual([]);
    });
  });
});

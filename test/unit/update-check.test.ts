// The update check's rules (src/update/check.ts, registry.ts, io/installation.ts): which installs
// ask at all, which registry npm's own configuration names, what the one request is, and that its
// state is written with no link followed (storage/state.ts). A stub registry on loopback.
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { classify } from '../../src/io/installation.js';
import { PACKAGE_NAME } from '../../src/release.js';
import { runUpdateCheck } from '../../src/update/check.js';
import { DEFAULT_REGISTRY, distTagsUrl, type NpmHost, npmRegistry, parseNpmrc } from '../../src/update/registry.js';
import { startStub, type StubRequest, type StubServer } from '../support/stub-server.js';

let server: StubServer;
let base: string;
let requests: StubRequest[] = [];
let work: string;

beforeAll(async () => {
  server = await startStub((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ latest: '9.9.9', next: '10.0.0-rc.1' }));
  });
  base = server.url;
  requests = server.requests;
});
afterAll(() => server?.close());
beforeEach(() => {
  requests.length = 0;
  work = realpathSync(mkdtempSync(join(tmpdir(), 'rsi-update-check-')));
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

/** A package folder as npm lays it out, holding a package.json with `name`. */
function packageAt(dir: string, name: string): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version: '0.1.0' }));
  return dir;
}

function host(files: Record<string, string> = {}, execPath = '/opt/node/bin/node'): NpmHost {
  return { platform: 'linux', home: '/h', execPath, readFile: (path) => files[path] };
}

describe('which installation is a release', () => {
  it('a global, a project and an npx install under its own name are; a checkout, a link, a renamed copy are not', () => {
    const global = packageAt(join(work, 'prefix', 'lib', 'node_modules', ...PACKAGE_NAME.split('/')), PACKAGE_NAME);
    expect(classify(global, PACKAGE_NAME)).toEqual({ kind: 'npm', npm: 'global', path: global, release: true });

    const project = join(work, 'app');
    packageAt(project, 'app');
    const local = packageAt(join(project, 'node_modules', ...PACKAGE_NAME.split('/')), PACKAGE_NAME);
    expect(classify(local, PACKAGE_NAME)).toEqual({ kind: 'npm', npm: 'local', project, path: local, release: true });

    const npx = packageAt(join(work, '.npm', '_npx', 'ab12', 'node_modules', ...PACKAGE_NAME.split('/')), PACKAGE_NAME);
    packageAt(join(work, '.npm', '_npx', 'ab12'), 'npx');
    expect(classify(npx, PACKAGE_NAME)).toMatchObject({ npm: 'npx', release: true });

    const checkout = packageAt(join(work, 'src', 'rsi'), PACKAGE_NAME);
    expect(classify(checkout, PACKAGE_NAME)).toEqual({ kind: 'checkout', path: checkout, release: false });

    // An alias install (`npm i -g rsi@npm:…`), or a fork's renamed build: not the published name.
    const alias = packageAt(join(work, 'p2', 'lib', 'node_modules', 'rsi'), PACKAGE_NAME);
    expect(classify(alias, PACKAGE_NAME).release).toBe(false);
    const renamed = packageAt(join(work, 'p3', 'lib', 'node_modules', ...PACKAGE_NAME.split('/')), '@someone/rsi');
    expect(classify(renamed, PACKAGE_NAME).release).toBe(false);

    // `npm link` / `npm install -g <folder>`: the package folder is a link to a clone.
    const linkedAt = join(work, 'p4', 'lib', 'node_modules', ...PACKAGE_NAME.split('/'));
    mkdirSync(join(linkedAt, '..'), { recursive: true });
    symlinkSync(checkout, linkedAt, 'dir');
    expect(classify(linkedAt, PACKAGE_NAME).release).toBe(false);
    // A clone that kept its .git, copied into a node_modules folder.
    const cloned = packageAt(join(work, 'p5', 'lib', 'node_modules', ...PACKAGE_NAME.split('/')), PACKAGE_NAME);
    mkdirSync(join(cloned, '.git'));
    expect(classify(cloned, PACKAGE_NAME).release).toBe(false);
  });
});

describe("the registry, from npm's own configuration", () => {
  const name = '@rsi-cli/rsi';
  it("default: npm's own registry; the one request is the dist-tags of this name, escaped as npm does", () => {
    expect(npmRegistry({}, name, host())).toEqual({ url: DEFAULT_REGISTRY, from: "npm's default" });
    // Nothing is fetched here; the check's requests in tests go to names under .test only.
    expect(distTagsUrl('https://registry.test/', name)?.href).toBe('https://registry.test/-/package/@rsi-cli%2frsi/dist-tags');
    expect(distTagsUrl('https://npm.corp.test/api/npm/npm/', 'plain')?.href).toBe(
      'https://npm.corp.test/api/npm/npm/-/package/plain/dist-tags',
    );
    expect(distTagsUrl('file:///etc/', name)).toBeUndefined();
  });
  it('environment over the user npmrc over the global npmrc; a scope registry over the plain one, at any level', () => {
    const files = {
      '/h/.npmrc': 'registry=https://user.test/\n',
      '/opt/node/etc/npmrc': 'registry=https://global.test\n@rsi-cli:registry=https://scoped-global.test/\n',
    };
    expect(npmRegistry({}, 'plain', host(files)).url).toBe('https://user.test/');
    expect(npmRegistry({}, name, host(files))).toEqual({ url: 'https://scoped-global.test/', from: '/opt/node/etc/npmrc' });
    expect(npmRegistry({ NPM_CONFIG_REGISTRY: 'https://env.test' }, 'plain', host(files)).url).toBe('https://env.test/');
    expect(npmRegistry({ 'npm_config_@rsi-cli:registry': 'https://env-scope.test/' }, name, host(files)).url).toBe(
      'https://env-scope.test/',
    );
    expect(npmRegistry({}, 'plain', host({ '/opt/node/etc/npmrc': 'registry=https://global.test' })).url).toBe('https://global.test/');
  });
  it('npm_config_userconfig, npm_config_globalconfig and the prefix move the files', () => {
    const files = {
      '/u/rc': 'registry = "https://u.test/"',
      '/g/rc': 'registry=https://g.test/',
      '/p/etc/npmrc': 'registry=https://p.test/',
    };
    expect(npmRegistry({ npm_config_userconfig: '/u/rc' }, 'x', host(files)).url).toBe('https://u.test/');
    expect(npmRegistry({ npm_config_globalconfig: '/g/rc' }, 'x', host(files)).url).toBe('https://g.test/');
    expect(npmRegistry({ npm_config_prefix: '/p' }, 'x', host(files)).url).toBe('https://p.test/');
  });
  it('npmrc syntax: comments, spaces, quotes and ${VAR}', () => {
    const rc = parseNpmrc('; a comment\n# another\n registry = ${REG}/npm/ \n//r.test/:_authToken=${TOKEN}\nx=${UNSET?}\n', {
      REG: 'https://r.test',
      TOKEN: 's3cret',
    });
    expect(rc.get('registry')).toBe('https://r.test/npm/');
    expect(rc.get('x')).toBe('');
  });
});

describe('runUpdateCheck', () => {
  const cleanEnv = (extra: Record<string, string> = {}) => ({ XDG_CACHE_HOME: join(work, 'cache'), ...extra });

  it('a checkout asks nothing', async () => {
    const home = join(work, 'home');
    mkdirSync(home);
    writeFileSync(join(home, '.npmrc'), `registry=${base}/\n`);
    const sent = await runUpdateCheck({ env: cleanEnv(), now: () => 1, home, install: { kind: 'checkout', path: work, release: false } });
    expect(sent).toBe(false);
    expect(requests).toEqual([]);
  });

  it("a release install: one request, for its own name's dist-tags, at the registry the user's .npmrc names, with nothing about the user", async () => {
    const home = join(work, 'home');
    mkdirSync(home);
    writeFileSync(join(home, '.npmrc'), `registry=${base}/\n//127.0.0.1/:_authToken=never-sent\n`);
    const install = { kind: 'npm', npm: 'global', path: '/x', release: true } as const;
    const sent = await runUpdateCheck({
      env: cleanEnv(),
      now: () => 42,
      home,
      install,
      npmHost: { ...host(), home, readFile: (p) => (p === join(home, '.npmrc') ? readFileSync(p, 'utf8') : undefined) },
    });
    expect(sent).toBe(true);
    expect(requests.map((r) => r.url)).toEqual([`/-/package/${PACKAGE_NAME.replace('/', '%2f')}/dist-tags`]);
    expect(Object.keys(requests[0]!.headers).filter((h) => !['host', 'accept', 'connection', 'accept-encoding'].includes(h))).toEqual([]);
    const state = JSON.parse(readFileSync(join(work, 'cache', 'rsi', 'update-check.json'), 'utf8'));
    expect(state).toEqual({ checkedAt: 42, latest: '9.9.9' });
  });
});

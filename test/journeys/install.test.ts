// An installed rsi, as a user gets it: `npm pack` (prepack included, in a copy of the checkout so
// the dist/ other tests run from is never removed), `npm install -g` of the tarball into a clean
// prefix, then the installed `rsi` runs from another folder: --version, sandbox, login through a
// $BROWSER whose path holds a space, and a read command. Also proves what the tarball holds and
// that the start-up compile cache (Node ≥ 22.1) is used where it exists and silent where it fails.
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { startSandbox, type SandboxProcess } from '../support/sandbox.js';
import { skipWithout } from '../support/system.js';
import { startStub, type StubRequest, type StubServer } from '../support/stub-server.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };
/** What a published tarball may hold: npm always adds package.json, README and LICENSE. */
const ALLOWED = /^(bin\/rsi\.js|bin\/package\.json|dist\/.+|package\.json|README\.md|LICEN[CS]E(\.\w+)?)$/;
/** The test's own Node first on PATH, so npm and the installed `#!/usr/bin/env node` use it too. */
const PATH = `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`;
/** Whether man-db's `man` is here, for `rsi help <command> --man` (.ci/run installs man-db). */
const hasMan = spawnSync('sh', ['-c', 'command -v man'], { stdio: 'ignore' }).status === 0;

/**
 * npm 10, 11 and 12 from the registry, installed by .ci/run into $RSI_NPM_MAJORS/npm<N>, with an npm
 * cache in $RSI_NPM_MAJORS/cache that already holds rsi's runtime dependencies: the installs below
 * run --offline, as tests never reach beyond loopback.
 */
const NPM_MAJORS_DIR = process.env.RSI_NPM_MAJORS;
const NPM_MAJORS = [10, 11, 12] as const;
const npmCli = (major: number): string => join(NPM_MAJORS_DIR ?? '', `npm${major}`, 'node_modules', 'npm', 'bin', 'npm-cli.js');
const skipMajors = skipWithout({
  name: 'npm 10, 11 and 12 ($RSI_NPM_MAJORS)',
  available: !!NPM_MAJORS_DIR && NPM_MAJORS.every((m) => existsSync(npmCli(m))) && existsSync(join(NPM_MAJORS_DIR, 'cache')),
  reason: NPM_MAJORS_DIR
    ? `${NPM_MAJORS_DIR} lacks npm<N>/node_modules/npm or cache/ (.ci/run installs them)`
    : 'RSI_NPM_MAJORS is not set (.ci/run installs npm@10, @11 and @12 there and warms its cache)',
});

/**
 * npm pack runs prepack, a whole build, and the install unpacks and links: measured at over 300 s
 * (vitest's bound) with two suites and other work on 2 cores. An outer bound only.
 */
const PACK_BOUND_MS = 900_000;

let work: string;
let rsi: string;
/** Any folder other than the checkout: the installed rsi must not depend on where it runs. */
let elsewhere: string;
let copy: string;
let packed: { filename: string; files: { path: string }[] };
let sandbox: SandboxProcess | undefined;

interface NpmResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs npm with the test's Node and without the npm_* settings an outer `npm test` passes down. */
function npm(args: readonly string[], cwd: string): Promise<NpmResult> {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!/^npm_/i.test(key) && !key.startsWith('VITEST')) env[key] = value;
  env.PATH = PATH;
  return collect('npm', [...args, '--no-audit', '--no-fund', '--no-update-notifier'], cwd, env);
}

function collect(command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv): Promise<NpmResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** `npm … --json` may print lifecycle banners before the document: parse from the first `[`. */
function jsonOf(r: NpmResult): any {
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout.slice(r.stdout.search(/^\[/m)));
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'rsi-install-'));
  elsewhere = join(work, 'elsewhere');
  mkdirSync(elsewhere);
  // A copy of what the build needs; node_modules is linked, not installed again.
  copy = join(work, 'checkout');
  mkdirSync(copy);
  for (const name of ['package.json', 'README.md', 'LICENSE', 'tsconfig.json']) {
    if (existsSync(join(ROOT, name))) copyFileSync(join(ROOT, name), join(copy, name));
  }
  cpSync(join(ROOT, 'bin'), join(copy, 'bin'), { recursive: true });
  cpSync(join(ROOT, 'src'), join(copy, 'src'), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'), 'dir');

  [packed] = jsonOf(await npm(['pack', '--json', '--pack-destination', work], copy));
  const tarball = join(work, packed.filename);
  // Runtime dependencies come from npm's cache when it has them, else from the registry.
  const install = await npm(['install', '-g', '--prefix', join(work, 'prefix'), '--prefer-offline', tarball], elsewhere);
  expect(install.code, install.stderr).toBe(0);
  rsi = join(work, 'prefix', 'bin', 'rsi');
}, PACK_BOUND_MS);

afterAll(async () => {
  await sandbox?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

function env(extra: Record<string, string> = {}): Record<string, string> {
  return { PATH, XDG_CACHE_HOME: join(work, 'cache'), ...extra };
}

describe('the packed tarball', () => {
  it('holds bin/rsi.js, dist/ with its third-party notices and SBOM, package.json, README.md and LICENSE, and nothing from src/ or test/', async () => {
    // The real checkout, as `npm publish` would see it (scripts skipped: dist/ is already built and
    // other tests run from it).
    const [dry] = jsonOf(await npm(['pack', '--dry-run', '--json', '--ignore-scripts'], ROOT)) as [typeof packed];
    for (const files of [dry.files, packed.files]) {
      const paths = files.map((f) => f.path);
      expect(paths.filter((p) => !ALLOWED.test(p))).toEqual([]);
      expect(paths).toEqual(
        expect.arrayContaining(['bin/rsi.js', 'bin/package.json', 'dist/boot.cjs', 'dist/rsi.cjs', 'package.json', 'README.md', 'LICENSE']),
      );
      // bin/rsi.js loads dist/boot.cjs, which compiles dist/rsi.cjs: the ES module build is gone.
      expect(paths.filter((p) => p === 'dist/main.js' || p.startsWith('dist/chunks/'))).toEqual([]);
      // The licences of what the bundle holds travel with it (test/unit/notices.test.ts checks the text).
      expect(paths).toContain('dist/THIRD-PARTY-NOTICES.txt');
      // And the same list for scanners (test/unit/sbom.test.ts checks it against the notices).
      expect(paths).toContain('dist/sbom.cdx.json');
    }
  });

  // npm pack runs prepack, a whole build: minutes on a busy machine.
  it('never holds the single executables of dist/exe, and prepack keeps them', { timeout: PACK_BOUND_MS }, async () => {
    // A built binary beside the bundle, as `npm run build:exe` leaves it (a stand-in: only its path matters).
    mkdirSync(join(copy, 'dist', 'exe'), { recursive: true });
    writeFileSync(join(copy, 'dist', 'exe', 'rsi-linux-x64'), 'not really a binary');
    writeFileSync(join(copy, 'dist', 'exe', 'SHA256SUMS'), '');
    const [again] = jsonOf(await npm(['pack', '--json', '--dry-run'], copy)) as [typeof packed];
    const paths = again.files.map((f) => f.path);
    expect(paths.filter((p) => p.startsWith('dist/exe'))).toEqual([]);
    expect(paths).toContain('dist/rsi.cjs');
    expect(existsSync(join(copy, 'dist', 'exe', 'rsi-linux-x64'))).toBe(true);
  });
});

describe.skipIf(skipMajors)('installing the tarball with each npm major', () => {
  // npm 11.19 warned "install scripts not yet covered by allowScripts: rsi@0.1.0 (prepare: npm run
  // build)" and npm 12 "blocked": the published manifest must hold no script npm asks about (dist/
  // ships built). The user's own npmrc is left out: its warnings are not rsi's.
  for (const major of NPM_MAJORS) {
    it(`npm ${major}: installs with nothing on stderr, and the installed rsi runs`, async (t) => {
      const cli = npmCli(major);
      const version = JSON.parse(readFileSync(join(dirname(cli), '..', 'package.json'), 'utf8')).version as string;
      expect(version.split('.')[0]).toBe(String(major));
      const [userRc, globalRc] = [join(work, 'empty-user-npmrc'), join(work, 'empty-global-npmrc')];
      for (const rc of [userRc, globalRc]) writeFileSync(rc, '');
      const npmEnv: NodeJS.ProcessEnv = { PATH, HOME: process.env.HOME, npm_config_userconfig: userRc, npm_config_globalconfig: globalRc };
      const prefix = join(work, `prefix-npm${major}`);
      const args = ['install', '-g', '--prefix', prefix, '--offline', '--cache', join(NPM_MAJORS_DIR!, 'cache')];
      const r = await collect(
        process.execPath,
        [cli, ...args, '--no-audit', '--no-fund', '--no-update-notifier', join(work, packed.filename)],
        elsewhere,
        npmEnv,
      );
      // npm 12 needs Node ^22.22.2, ^24.15 or ≥ 26: on an older Node it says so, which is npm's matter.
      if (/does not support Node\.js/.test(r.stderr)) return t.skip(`npm ${version} does not run on Node ${process.version}`);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe('');
      const installed = await runCli(['--version'], { bin: join(prefix, 'bin', 'rsi'), cwd: elsewhere, env: env() });
      expect(installed).toMatchObject({ code: 0, stdout: `${PKG.version}\n`, stderr: '' });
      // npm 12 links no man pages of a global package (npm 10 and 11 do: `man rsi` works there);
      // the manual is one command away on every install, shown by the system's man.
      const linked = existsSync(join(prefix, 'share', 'man', 'man1', 'rsi.1'));
      expect(linked, `npm ${major} ${linked ? 'linked' : 'did not link'} the man pages`).toBe(major < 12);
      if (!hasMan) return;
      const manual = await runCli(['help', 'keywords', 'search', '--man'], {
        bin: join(prefix, 'bin', 'rsi'),
        cwd: elsewhere,
        env: env({ MANPAGER: 'cat', MANWIDTH: '100', LC_ALL: 'C.UTF-8' }),
      });
      expect(manual.code, manual.stderr).toBe(0);
      expect(manual.stdout).toMatch(/^NAME\n\s+rsi-keywords-search - search keywords/m);
      expect(manual.stdout).toMatch(/^SYNOPSIS\n\s+rsi keywords search \[options\] <query>/m);
    });
  }

  it('the published manifest has no script npm runs on install', () => {
    const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(Object.keys(scripts).filter((name) => /^(pre|post)?(install|prepare)$/.test(name))).toEqual([]);
  });
});

describe('an installed rsi, run from another folder', () => {
  it('--version is the package version, answered by the installed copy', async () => {
    expect(realpathSync(rsi)).toBe(join(realpathSync(work), 'prefix', 'lib', 'node_modules', PKG.name, 'bin', 'rsi.js'));
    const r = await runCli(['--version'], { bin: rsi, cwd: elsewhere, env: env() });
    expect(r).toMatchObject({ code: 0, stdout: `${PKG.version}\n`, stderr: '' });
  });

  it('has its man pages where man finds them (prefix/share/man/man1), from package.json `man`', () => {
    const manDir = join(work, 'prefix', 'share', 'man', 'man1');
    const pages = readdirSync(manDir).sort();
    expect(pages).toContain('rsi.1');
    expect(pages).toContain('rsi-keywords-search.1');
    const page = readFileSync(join(manDir, 'rsi.1'), 'utf8');
    expect(page).toMatch(/^\.TH RSI 1 /);
    // The package's name, from package.json, where man shows it: the footer and how to install it.
    expect(page).toContain(`"${PKG.name.replaceAll('-', '\\-')} ${PKG.version}"`);
    expect(page).toContain(`npm install \\-g ${PKG.name.replaceAll('-', '\\-')}`);
  });

  it('doctor says it is the npm package, where it is, and which Node runs it', async () => {
    const r = await runCli(['doctor', '--json'], { bin: rsi, cwd: elsewhere, env: env({ RSI_CONFIG_DIR: join(work, 'doctor-config') }) });
    const [about, node] = JSON.parse(r.stdout) as { name: string; detail: string }[];
    const folder = join(realpathSync(work), 'prefix', 'lib', 'node_modules', PKG.name);
    expect(about).toEqual({ name: 'rsi', ok: true, detail: `${PKG.name} ${PKG.version}, npm package (global) in ${folder}` });
    expect(node).toEqual({ name: 'Node.js', ok: true, detail: `${process.version} (${process.execPath})` });
  });

  it('runs a sandbox, signs in to it through a $BROWSER in a folder with a space, and reads', async () => {
    sandbox = await startSandbox(['--auto-approve', '--quiet'], { bin: rsi, cwd: elsewhere, env: env() });
    expect(sandbox.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    // Written unquoted, as people set it: the whole value names the program.
    const browser = join(work, 'My Browser', 'browser.mjs');
    mkdirSync(dirname(browser));
    writeFileSync(browser, readFileSync(join(ROOT, 'test', 'support', 'fake-browser.mjs')));
    chmodSync(browser, 0o755);
    const config = join(work, 'config');
    const login = await runCli(['login', '--base-url', sandbox.url], {
      bin: rsi,
      cwd: elsewhere,
      env: env({ RSI_CONFIG_DIR: config, RSI_CREDENTIAL_STORE: 'file', BROWSER: browser }),
    });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stderr).toContain('Signed in to');

    const search = await runCli(['keywords', 'search', 'egfr', '--json'], {
      bin: rsi,
      cwd: elsewhere,
      env: env({ RSI_CONFIG_DIR: config }),
    });
    expect(search.code, search.stderr).toBe(0);
    expect(JSON.stringify(JSON.parse(search.stdout))).toMatch(/egfr/i);
  });
});

describe("the update check of an install from the tarball (npm's registry setting, one request)", () => {
  let server: StubServer;
  let requests: StubRequest[] = [];
  let registry: string;
  beforeAll(async () => {
    server = await startStub((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ latest: '9.9.9' }));
    });
    requests = server.requests;
    registry = `${server.url}/`;
  });
  afterAll(() => server?.close());

  /** A home whose ~/.npmrc names the stub registry: npm's own configuration, nothing of rsi's. */
  function home(name: string): string {
    const dir = join(work, name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, '.npmrc'), `registry=${registry}\n`);
    return dir;
  }

  it('the installed package asks once, for its own name, at the registry ~/.npmrc names', async () => {
    requests.length = 0;
    const cache = join(work, 'cache-update');
    const r = await runCli(['__update-check'], {
      bin: rsi,
      cwd: elsewhere,
      env: env({ HOME: home('home-installed'), XDG_CACHE_HOME: cache }),
    });
    expect(r).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(requests.map((q) => q.url)).toEqual([`/-/package/${PKG.name.replace('/', '%2f')}/dist-tags`]);
    expect(JSON.parse(readFileSync(join(cache, 'rsi', 'update-check.json'), 'utf8'))).toMatchObject({ latest: '9.9.9' });
  });

  it('through a proxy that closes every connection, the check still ends: its process is stopped at its budget', async () => {
    let connections = 0;
    const closing = createNetServer((socket) => {
      connections++;
      socket.once('data', () => socket.destroy());
    });
    await new Promise<void>((resolve) => closing.listen(0, '127.0.0.1', resolve));
    try {
      const home = join(work, 'home-closing');
      mkdirSync(home, { recursive: true });
      writeFileSync(join(home, '.npmrc'), 'registry=https://registry.test/\n');
      const started = Date.now();
      const r = await runCli(['__update-check'], {
        bin: rsi,
        cwd: elsewhere,
        env: env({
          HOME: home,
          XDG_CACHE_HOME: join(work, 'cache-closing'),
          HTTPS_PROXY: `http://127.0.0.1:${(closing.address() as AddressInfo).port}`,
        }),
      });
      expect(r).toMatchObject({ code: 0, stdout: '', stderr: '' });
      expect(connections).toBeGreaterThan(0);
      // BUDGET_MS (5 s) after start-up, whatever the network does; the bound only absorbs a busy machine.
      expect(Date.now() - started).toBeLessThan(60_000);
    } finally {
      await new Promise((resolve) => closing.close(resolve));
    }
  });

  it('the checkout asks nothing', async () => {
    requests.length = 0;
    const r = await runCli(['__update-check'], {
      cwd: elsewhere,
      env: env({ HOME: home('home-checkout'), XDG_CACHE_HOME: join(work, 'cache-checkout') }),
    });
    expect(r).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(requests).toEqual([]);
    expect(existsSync(join(work, 'cache-checkout', 'rsi', 'update-check.json'))).toBe(false);
  });
});

describe('the start-up compile cache', () => {
  // A command's help loads the bundle (the root's screen does not: dist/root-help.cjs answers it),
  // and the npm loader writes V8's code cache after it (src/exe/npm.ts).
  it('is written under $XDG_CACHE_HOME/rsi', async () => {
    const cache = join(work, 'cache-used');
    const r = await runCli(['help', 'keywords'], { bin: rsi, cwd: elsewhere, env: env({ XDG_CACHE_HOME: cache }) });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(readdirSync(join(cache, 'rsi', 'compile'), { recursive: true }).length).toBeGreaterThan(0);
  });

  it('a cache folder that cannot be made costs nothing visible: same output, exit 0', async () => {
    const blocker = join(work, 'not-a-folder');
    writeFileSync(blocker, '');
    const reference = await runCli(['help', 'keywords'], {
      bin: rsi,
      cwd: elsewhere,
      env: env({ XDG_CACHE_HOME: join(work, 'cache-ref') }),
    });
    const r = await runCli(['help', 'keywords'], { bin: rsi, cwd: elsewhere, env: env({ XDG_CACHE_HOME: blocker }) });
    expect(r).toMatchObject({ code: 0, stdout: reference.stdout, stderr: '' });
  });

  it('NODE_DISABLE_COMPILE_CACHE keeps its Node meaning', async () => {
    const cache = join(work, 'cache-disabled');
    const r = await runCli(['help', 'keywords'], {
      bin: rsi,
      cwd: elsewhere,
      env: env({ XDG_CACHE_HOME: cache, NODE_DISABLE_COMPILE_CACHE: '1' }),
    });
    expect(r.code).toBe(0);
    expect(existsSync(join(cache, 'rsi', 'compile'))).toBe(false);
  });
});

describe('--help', () => {
  // There was a help-screen cache in this folder; it followed symlinks and deleted "older builds"
  // in a folder another user could control (issue 20). `--help` now writes nothing to disk: only
  // Node's own compile cache may appear.
  it('writes nothing to disk but Node’s compile cache', async () => {
    const cache = join(work, 'cache-help');
    for (const args of [['--help'], ['keywords', 'search', '--help'], ['help', 'analyses', 'run']]) {
      const r = await runCli(args, { bin: rsi, cwd: elsewhere, env: env({ XDG_CACHE_HOME: cache }) });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^Usage: rsi/);
      expect(r.stderr).toBe('');
    }
    const left = existsSync(join(cache, 'rsi')) ? readdirSync(join(cache, 'rsi')) : [];
    expect(left.filter((name) => name !== 'compile')).toEqual([]);
  });
});

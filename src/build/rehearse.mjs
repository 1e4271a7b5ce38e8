#!/usr/bin/env node
/**
 * `npm run release:rehearse`: the release, end to end, on a real registry on loopback, the steps of
 * docs/release.md and .github/workflows/release.yml with a local registry in npmjs.org's place:
 *
 * 1. the README's first install path, as written, in a fresh clone of this repository's HEAD
 *    (`git clone … && cd rsi`, `npm install && npm run build && npm link`, `rsi --version`), into a
 *    prefix of its own;
 * 2. Verdaccio (a real npm registry, pinned below) on 127.0.0.1, proxying the public registry for
 *    rsi's dependencies only: `@rsi-cli/*` exists only there;
 * 3. `npm pack` in that clone and `npm publish <tarball>` as a maintainer (a token of the local
 *    registry's; no provenance: that is the workflow's, on GitHub's OIDC);
 * 4. `npm install -g @rsi-cli/rsi` by its name, as a user whose ~/.npmrc names that registry, into a
 *    fresh prefix; the installed rsi is a release (doctor says so);
 * 5. the next patch version (`npm version patch` in the clone), packed and published;
 * 6. the installed rsi, at a terminal (`script`), checks once in the background and then announces
 *    the new version with its release notes and the command that updates it;
 * 7. that very command, run as printed, upgrades it: `rsi --version` is the new one, and the notice
 *    is gone.
 *
 * Needs git, npm, `script` (util-linux) and the npm registry (the clone's `npm install`, Verdaccio's
 * uplink, and Verdaccio itself, installed once into node_modules/.cache/rsi-rehearse). Prints each
 * step with its time; exits 1 naming the step that failed. `--keep` leaves the work folder.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, watch, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(fileURLToPath(import.meta.url), '..', '..', '..');
/** The registry the rehearsal runs: pinned, and installed once into the checkout's cache folder. */
export const VERDACCIO = 'verdaccio@6.10.4';
const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
/** Each step's bound (an install through the proxy on a busy machine is slow; a hang is a failure). */
const STEP_MS = 600_000;

/** The README's first install block: the indented lines of the first code block under `## Install`. */
export function readmeInstall(markdown) {
  const start = markdown.indexOf('\n## Install\n');
  if (start < 0) throw new Error('README.md has no "## Install" section');
  const end = markdown.indexOf('\n## ', start + 1);
  const lines = [];
  for (const line of markdown.slice(start, end < 0 ? undefined : end).split('\n')) {
    if (line.startsWith('    ')) lines.push(line.slice(4));
    else if (lines.length && line.trim() === '') break;
  }
  return lines;
}

/** The notice's own update command, from what the terminal showed. */
export function updateCommand(screen) {
  return /^To update: (npm install -g \S+)\s*$/m.exec(screen)?.[1];
}

/** Environment without CI markers and npm's per-run settings: what a person at a terminal has. */
function personEnv(extra) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(npm_|VITEST|CI$|BUILD_NUMBER$|RUN_ID$|GITHUB_|RSI_)/i.test(k)) continue;
    env[k] = v;
  }
  return { ...env, ...extra };
}

function run(command, args, { cwd, env, input, allowFail = false } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), STEP_MS);
    child.stdout.setEncoding('utf8').on('data', (c) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0 || allowFail) resolve({ code, stdout, stderr });
      else reject(new Error(`${command} ${args.join(' ')} exited ${code ?? signal}\n${stdout}${stderr}`.trim()));
    });
    child.stdin.end(input ?? '');
  });
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Verdaccio's bin, installed once under node_modules/.cache (about 320 packages, 65 MB, 30 s). */
async function verdaccioBin() {
  const prefix = join(ROOT, 'node_modules', '.cache', 'rsi-rehearse', VERDACCIO.replace('@', '-'));
  const bin = join(prefix, 'node_modules', '.bin', 'verdaccio');
  if (!existsSync(bin)) {
    mkdirSync(prefix, { recursive: true });
    await run('npm', ['install', '--prefix', prefix, '--no-save', '--no-audit', '--no-fund', '--no-package-lock', VERDACCIO], {
      env: personEnv({}),
    });
  }
  return bin;
}

/** Starts Verdaccio on `port` with `config`; resolves when it answers, rejects when it exits first. */
function startRegistry(bin, config, port) {
  const child = spawn(process.execPath, [bin, '--config', config, '--listen', `127.0.0.1:${port}`], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: personEnv({}),
  });
  let log = '';
  child.stdout.setEncoding('utf8').on('data', (c) => (log += c));
  child.stderr.setEncoding('utf8').on('data', (c) => (log += c));
  const url = `http://127.0.0.1:${port}/`;
  const ready = new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`verdaccio exited ${code} before it answered:\n${log}`)));
    // It logs its address once it listens ("http address"); the ping then proves it serves.
    const onData = async () => {
      if (!/http address/.test(log)) return;
      child.stdout.off('data', onData);
      try {
        const res = await fetch(new URL('-/ping', url));
        if (!res.ok) throw new Error(`ping: ${res.status}`);
        resolve();
      } catch (error) {
        reject(error);
      }
    };
    child.stdout.on('data', onData);
  });
  return { child, url, ready, log: () => log };
}

async function main() {
  const keep = process.argv.includes('--keep');
  const work = mkdtempSync(join(tmpdir(), 'rsi-rehearse-'));
  const started = Date.now();
  let registry;
  const steps = [];
  const step = async (name, fn) => {
    const t = Date.now();
    process.stderr.write(`== ${name}\n`);
    try {
      const result = await fn();
      steps.push(`${((Date.now() - t) / 1000).toFixed(1).padStart(6)} s  ${name}`);
      return result;
    } catch (error) {
      throw new Error(`${name}: ${error.message}`);
    }
  };
  try {
    const nodeBin = dirname(process.execPath);
    // 1. The README's first install path, in a fresh clone, as written (only the clone's URL is this
    // checkout), with npm's global prefix in the work folder.
    const linkPrefix = join(work, 'link-prefix');
    const clone = join(work, 'rsi');
    await step("the README's install from a fresh clone (git clone, npm install, build, link)", async () => {
      const lines = readmeInstall(readFileSync(join(ROOT, 'README.md'), 'utf8'));
      const url = `${PKG.repository.url.replace(/^git\+/, '')}`;
      if (!lines[0]?.startsWith(`git clone ${url}`))
        throw new Error(`the README's install does not start with git clone ${url}: ${lines[0]}`);
      // A bare copy of this checkout's HEAD named as the repository is (…/rsi.git), so `git clone`
      // makes the folder the README's `cd rsi` enters.
      const origin = join(work, 'origin', url.split('/').at(-1));
      await run('git', ['clone', '--quiet', '--bare', ROOT, origin]);
      const script = ['set -euo pipefail', ...lines.map((l) => l.replace(url, origin))].join('\n');
      const env = personEnv({
        PATH: `${join(linkPrefix, 'bin')}${delimiter}${nodeBin}${delimiter}${process.env.PATH}`,
        npm_config_prefix: linkPrefix,
      });
      const { stdout } = await run('bash', ['-c', script], { cwd: work, env });
      if (!stdout.trim().endsWith(PKG.version))
        throw new Error(`rsi --version printed ${JSON.stringify(stdout.trim().split('\n').at(-1))}, not ${PKG.version}`);
    });

    // 2. The registry: @rsi-cli/* only here, everything else proxied from the public registry.
    const upstream = execFileSync('npm', ['config', 'get', 'registry'], { encoding: 'utf8', env: personEnv({}) }).trim();
    registry = await step(`a real registry on loopback (${VERDACCIO}, proxying ${upstream} for dependencies)`, async () => {
      const bin = await verdaccioBin();
      const config = join(work, 'verdaccio.yaml');
      writeFileSync(
        config,
        [
          `storage: ${JSON.stringify(join(work, 'storage'))}`,
          'auth:',
          '  htpasswd:',
          `    file: ${JSON.stringify(join(work, 'htpasswd'))}`,
          '    max_users: 1',
          'uplinks:',
          '  npmjs:',
          `    url: ${JSON.stringify(upstream)}`,
          'packages:',
          `  '${PKG.name.split('/')[0]}/*':`,
          '    access: $all',
          '    publish: $authenticated',
          "  '**':",
          '    access: $all',
          '    proxy: npmjs',
          'log: { type: stdout, format: pretty, level: info }',
          '',
        ].join('\n'),
      );
      const r = startRegistry(bin, config, await freePort());
      await r.ready;
      return r;
    });

    // The maintainer: a user of the local registry, its token in a userconfig of its own.
    const maintainerRc = join(work, 'maintainer.npmrc');
    await step('a maintainer signs in to it (a token of its own, in a userconfig of its own)', async () => {
      const res = await fetch(new URL('-/user/org.couchdb.user:maintainer', registry.url), {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'maintainer', password: `rehearsal-${process.pid}-${Date.now()}` }),
      });
      const { token } = await res.json();
      if (!res.ok || !token) throw new Error(`adduser: ${res.status}`);
      const host = registry.url.replace(/^http:/, '');
      writeFileSync(maintainerRc, `registry=${registry.url}\n${host}:_authToken=${token}\n`, { mode: 0o600 });
    });
    const maintainer = (args) =>
      run('npm', [...args, '--no-audit', '--no-fund', '--no-update-notifier'], {
        cwd: clone,
        env: personEnv({
          PATH: `${nodeBin}${delimiter}${process.env.PATH}`,
          npm_config_userconfig: maintainerRc,
          npm_config_cache: join(work, 'npm-cache-maintainer'),
        }),
      });

    // 3. Pack and publish, as docs/release.md's steps do (the workflow adds --provenance).
    const publish = async (version) => {
      const { stdout } = await maintainer(['pack', '--json', '--pack-destination', work]);
      const [packed] = JSON.parse(stdout.slice(stdout.search(/^\[/m)));
      if (packed.version !== version) throw new Error(`packed ${packed.version}, not ${version}`);
      await maintainer(['publish', join(work, packed.filename), '--access', 'public']);
      const view = await maintainer(['view', PKG.name, 'dist-tags.latest']);
      if (view.stdout.trim() !== version) throw new Error(`the registry's latest is ${view.stdout.trim()}, not ${version}`);
    };
    await step(`npm pack and npm publish ${PKG.name}@${PKG.version}`, () => publish(PKG.version));

    // 4. A user installs it by name: ~/.npmrc names the registry (npm reads it, and so does rsi's
    // update check), npm's global prefix is a fresh folder.
    const home = join(work, 'home');
    const prefix = join(work, 'prefix');
    mkdirSync(home);
    writeFileSync(join(home, '.npmrc'), `registry=${registry.url}\n`);
    const user = personEnv({
      HOME: home,
      PATH: `${join(prefix, 'bin')}${delimiter}${nodeBin}${delimiter}${process.env.PATH}`,
      npm_config_prefix: prefix,
      npm_config_cache: join(work, 'npm-cache-user'),
      XDG_CACHE_HOME: join(work, 'cache'),
      RSI_CONFIG_DIR: join(work, 'config'),
      TERM: 'xterm',
    });
    const rsi = (args, options = {}) => run(join(prefix, 'bin', 'rsi'), args, { cwd: home, env: user, ...options });
    await step(`npm install -g ${PKG.name} (by its name, from the registry, into a fresh prefix)`, async () => {
      await run('npm', ['install', '-g', PKG.name, '--no-audit', '--no-fund'], { cwd: home, env: user });
      const { stdout } = await rsi(['--version']);
      if (stdout.trim() !== PKG.version) throw new Error(`rsi --version: ${stdout.trim()}`);
      // doctor fails its service checks (no service here); its first line is what matters.
      const [about] = JSON.parse((await rsi(['doctor', '--json'], { allowFail: true })).stdout);
      if (!about?.detail?.includes('npm package (global)')) throw new Error(`doctor: ${JSON.stringify(about)}`);
    });

    // 5. The next patch version, from the same clone.
    const next = PKG.version.replace(/(\d+)$/, (n) => String(Number(n) + 1));
    await step(`npm version patch, npm pack and npm publish ${PKG.name}@${next}`, async () => {
      await maintainer(['version', 'patch', '--no-git-tag-version']);
      await publish(next);
    });

    // 6. At a terminal (script gives rsi a pty on stdout and stderr): the first run starts the
    // background check, which records the registry's answer; the next run announces it.
    const atTerminal = (args) =>
      run('script', ['-qec', [join(prefix, 'bin', 'rsi'), ...args, '; echo EXIT=$?'].join(' '), '/dev/null'], { cwd: home, env: user });
    const state = join(work, 'cache', 'rsi', 'update-check.json');
    const screen = await step(`the installed ${PKG.version}, at a terminal, checks once, then announces ${next}`, async () => {
      const recorded = new Promise((resolve, reject) => {
        mkdirSync(dirname(state), { recursive: true, mode: 0o700 });
        const seen = () => existsSync(state) && JSON.parse(readFileSync(state, 'utf8')).latest === next;
        const watcher = watch(dirname(state), () => seen() && (watcher.close(), clearTimeout(timer), resolve()));
        const timer = setTimeout(() => (watcher.close(), reject(new Error(`no answer recorded in ${state} within 60 s`))), 60_000);
        if (seen()) watcher.close(), clearTimeout(timer), resolve();
      });
      const first = await atTerminal(['help', 'environment']);
      if (/A new release/.test(first.stdout)) throw new Error(`the first run announced before any check:\n${first.stdout}`);
      await recorded;
      const { stdout } = await atTerminal(['help', 'environment']);
      for (const expected of [
        `A new release of ${PKG.name} is available: ${PKG.version} → ${next}`,
        `To update: npm install -g ${PKG.name}@latest`,
        `Release notes: ${PKG.repository.url.replace(/^git\+/, '').replace(/\.git$/, '')}/releases/tag/v${next}`,
      ]) {
        if (!stdout.includes(expected)) throw new Error(`the terminal did not show "${expected}":\n${stdout}`);
      }
      return stdout;
    });

    // 7. The notice's own command, as printed, upgrades it.
    await step("the notice's own command upgrades it, and the notice is gone", async () => {
      const command = updateCommand(screen.replace(/\r/g, ''));
      if (!command) throw new Error(`no "To update:" command on the screen:\n${screen}`);
      await run('bash', ['-c', `${command} --no-audit --no-fund`], { cwd: home, env: user });
      const { stdout } = await rsi(['--version']);
      if (stdout.trim() !== next) throw new Error(`after "${command}", rsi --version is ${stdout.trim()}, not ${next}`);
      const after = await atTerminal(['help', 'environment']);
      if (/A new release/.test(after.stdout)) throw new Error(`still announced after the upgrade:\n${after.stdout}`);
    });

    process.stderr.write(`\nrelease rehearsal passed in ${((Date.now() - started) / 1000).toFixed(0)} s:\n${steps.join('\n')}\n`);
  } finally {
    registry?.child.kill();
    if (keep) process.stderr.write(`work folder kept: ${work}\n`);
    else rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((error) => {
    process.stderr.write(`release rehearsal failed: ${error.message}\n`);
    process.exitCode = 1;
  });
}

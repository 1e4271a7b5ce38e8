// What rsi is published as comes from package.json alone (src/release.ts): the install lines of the
// README and docs, the notice, the man pages and doctor use that name; CI runs the exact oldest
// Node `engines` allows; the release files exist and agree with package.json.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readmeInstall, updateCommand, VERDACCIO } from '../../src/build/rehearse.mjs';
import { BUGS_URL, INSTALL_COMMAND, MIN_NODE, minimumOf, nodeSupported, PACKAGE_NAME, REPOSITORY_URL, VERSION } from '../../src/release.js';
import { noticeText } from '../../src/update/notice.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const PKG = JSON.parse(read('package.json'));

describe('the name', () => {
  it('is scoped (an npm organisation the project owns), and everything reads it from package.json', () => {
    expect(PACKAGE_NAME).toBe(PKG.name);
    expect(PACKAGE_NAME).toMatch(/^@[a-z0-9-]+\/rsi$/);
    expect(INSTALL_COMMAND).toBe(`npm install -g ${PKG.name}`);
    expect(VERSION).toBe(PKG.version);
    // The command stays `rsi`.
    expect(PKG.bin).toEqual({ rsi: 'bin/rsi.js' });
  });

  it('the README and the docs install the published name, never a bare `rsi` someone else could publish', () => {
    for (const file of ['README.md', 'docs/install.md', 'docs/release.md']) {
      const text = read(file);
      expect(text, file).toContain(INSTALL_COMMAND);
      // `npm install -g rsi`, `rsi@latest`, `npx rsi`: a name nobody here owns.
      expect(text.match(/npm (?:install|i) (?:-g )?rsi\b(?!-)|(?<![\w/@-])rsi@latest|npx rsi\b/g), file).toBeNull();
    }
  });

  it('repository, bugs and homepage are set (npm provenance needs repository), and agree', () => {
    expect(PKG.repository.url).toBe(`git+${REPOSITORY_URL}.git`);
    expect(BUGS_URL).toBe(`${REPOSITORY_URL}/issues`);
    expect(PKG.homepage).toBe(`${REPOSITORY_URL}#readme`);
    // Provenance is the release workflow's (`npm publish --provenance`): set here, it makes every
    // publish outside a CI provider fail ("Automatic provenance generation not supported for
    // provider: null"), the rehearsal's on a local registry included.
    expect(PKG.publishConfig).toEqual({ access: 'public' });
    expect(read('.github/workflows/release.yml')).toMatch(/npm publish .*--provenance/);
  });
});

describe('versions', () => {
  /** The tags this clone knows (none in a clone without tags, or outside git). */
  function tags(): string[] {
    try {
      return execFileSync('git', ['tag', '--list', 'v*'], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter(Boolean);
    } catch {
      return [];
    }
  }

  it('CHANGELOG.md (Keep a Changelog): Unreleased first, and a version dated only when its tag exists', () => {
    const changelog = read('CHANGELOG.md');
    expect(changelog).toMatch(/keepachangelog\.com/);
    const headings = [...changelog.matchAll(/^## (.+)$/gm)].map((m) => m[1]!);
    expect(headings[0]).toBe('[Unreleased]');
    const known = tags();
    for (const heading of headings.slice(1)) {
      // `[x.y.z] - YYYY-MM-DD` only: a version without a date, or a date on an untagged version, says
      // something was published that was not (0.1.0 was once dated and "published" with no tag).
      const m = /^\[(\d+\.\d+\.\d+(?:-[\w.]+)?)\] - \d{4}-\d{2}-\d{2}$/.exec(heading);
      expect(m, heading).not.toBeNull();
      expect(known, `CHANGELOG dates ${heading}, but this clone has no tag v${m![1]}`).toContain(`v${m![1]}`);
      expect(changelog).toContain(`[${m![1]}]: ${REPOSITORY_URL}/releases/tag/v${m![1]}`);
    }
    // package.json's version is either released (its dated entry above) or the next one, under Unreleased.
    if (!known.includes(`v${VERSION}`))
      expect(headings).not.toContain(expect.stringMatching(new RegExp(`^\\[${VERSION.replaceAll('.', '\\.')}\\]`)));
    expect(read('docs/release.md')).toMatch(/npm publish\s+rsi-cli-rsi-x\.y\.z\.tgz --provenance --access public/);
  });

  it('the README does not say rsi is published while no version is tagged', () => {
    const readme = read('README.md');
    if (!tags().length) {
      expect(readme).toMatch(/No version of rsi is on the npm registry yet/);
      expect(readme).not.toMatch(/\b(?:package is|was|been) published\b/);
      // The first install path is the clone's; the registry line comes after it, marked as the one once released.
      const install = readme.slice(readme.indexOf('## Install'));
      expect(install.indexOf('npm link')).toBeGreaterThan(0);
      expect(install.indexOf('npm link')).toBeLessThan(install.indexOf(INSTALL_COMMAND));
      expect(install.slice(0, install.indexOf(INSTALL_COMMAND))).toMatch(/Once a release is published/);
    }
  });
});

describe('the oldest Node', () => {
  it('engines: the lowest version a range allows, and which versions it takes', () => {
    expect(minimumOf('^22.13.0 || >=24')).toEqual([22, 13, 0]);
    expect(minimumOf('>=22.12')).toEqual([22, 12, 0]);
    expect(nodeSupported('22.13.0', '^22.13.0 || >=24')).toBe(true);
    expect(nodeSupported('22.12.9', '^22.13.0 || >=24')).toBe(false);
    expect(nodeSupported('23.11.0', '^22.13.0 || >=24')).toBe(false);
    expect(nodeSupported('26.1.0', '^22.13.0 || >=24')).toBe(true);
    expect(nodeSupported(process.versions.node)).toBe(true);
  });

  it('is at least what every bundled dependency declares (@inquirer: ^22.13.0 on the 22 line)', () => {
    for (const dep of ['@inquirer/core', 'commander', 'string-width', 'chalk', 'zod', 'oauth4webapi']) {
      const range = (JSON.parse(read(`node_modules/${dep}/package.json`)) as { engines?: { node?: string } }).engines?.node;
      if (!range) continue;
      // The dependency must accept rsi's minimum (ranges of `^x.y.z`, `>=x.y.z` joined by `||`).
      expect(nodeSupported(MIN_NODE.join('.'), range.replace(/\s+/g, ' ')), `${dep} ${range}`).toBe(true);
    }
  });

  it("CI's default Node list is the newest 22, 24 and 26, and the exact engines minimum", () => {
    const ci = read('.ci/run');
    const line = /^engines_min=\$\(node -p "(.+)"\)$/m.exec(ci);
    expect(line, 'engines_min in .ci/run').not.toBeNull();
    // The very expression CI runs, run here: it must agree with src/release.ts's own reading.
    const min = execFileSync(process.execPath, ['-p', line![1]!.replaceAll('\\\\', '\\')], { cwd: ROOT, encoding: 'utf8' }).trim();
    expect(min).toBe(MIN_NODE.join('.'));
    expect(ci).toContain('read -ra lines <<<"${RSI_CI_NODE_LINES:-22 24 26 $engines_min}"');
    // An exact version is accepted as the line it asked for.
    expect(ci).toContain('"v$line" | "v$line".*) ;;');
  });
});

describe('the release rehearsal (npm run release:rehearse, src/build/rehearse.mjs)', () => {
  it("runs the README's first install block, which starts from a fresh clone of the repository and ends with rsi --version", () => {
    const lines = readmeInstall(read('README.md'));
    expect(lines[0]).toBe(`git clone ${REPOSITORY_URL}.git && cd rsi`);
    expect(lines[1]).toMatch(/^npm install && npm run build && npm link\b/);
    expect(lines.at(-1)).toBe('rsi --version');
  });

  it("runs the notice's own update command, as the notice prints it", () => {
    const install = { kind: 'npm', npm: 'global', path: '/p/lib/node_modules/@rsi-cli/rsi', release: true } as const;
    expect(updateCommand(noticeText(PACKAGE_NAME, '0.1.0', '0.1.1', install))).toBe(`${INSTALL_COMMAND}@latest`);
    expect(updateCommand('nothing here')).toBeUndefined();
  });

  it('runs once per CI run, in its own delimited block of .ci/run before the per-line loop, with the advisory check', () => {
    const ci = read('.ci/run');
    const block = ci.slice(ci.indexOf('# ---- release checks'), ci.indexOf('# ---- end of the release checks'));
    expect(block).toContain('if [[ "${RSI_CI_RELEASE_STEPS:-1}" != 0 ]]; then');
    expect(block).toContain('npm run audit:bundled');
    expect(block).toContain('npm run release:rehearse');
    expect(ci.indexOf('# ---- end of the release checks')).toBeLessThan(
      ci.indexOf('for line in "${lines[@]}"; do\n  bin=${node_bin[$line]}'),
    );
    expect(PKG.scripts['release:rehearse']).toBe('node src/build/rehearse.mjs');
    expect(PKG.scripts['audit:bundled']).toBe('node src/build/audit.mjs');
    // Verdaccio is pinned in one place, and is not a devDependency (it is installed once, on demand).
    expect(VERDACCIO).toMatch(/^verdaccio@\d+\.\d+\.\d+$/);
    expect(PKG.devDependencies.verdaccio).toBeUndefined();
    expect(read('docs/release.md')).toContain(VERDACCIO.replace('verdaccio@', 'Verdaccio '));
  });
});

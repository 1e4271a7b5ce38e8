// What rsi is published as comes from package.json alone (src/release.ts): the install lines of the
// README and docs, the notice, the man pages and doctor use that name; CI runs the exact oldest
// Node `engines` allows; the release files exist and agree with package.json.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BUGS_URL, INSTALL_COMMAND, MIN_NODE, minimumOf, nodeSupported, PACKAGE_NAME, REPOSITORY_URL, VERSION } from '../../src/release.js';

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
    expect(PKG.publishConfig).toEqual({ access: 'public', provenance: true });
  });
});

describe('versions', () => {
  it('CHANGELOG.md (Keep a Changelog) has an entry for the current version, and docs/release.md exists', () => {
    const changelog = read('CHANGELOG.md');
    expect(changelog).toMatch(/keepachangelog\.com/);
    expect(changelog).toMatch(/^## \[Unreleased\]$/m);
    expect(changelog).toMatch(new RegExp(`^## \\[${VERSION.replaceAll('.', '\\.')}\\] - \\d{4}-\\d{2}-\\d{2}$`, 'm'));
    expect(read('docs/release.md')).toContain('npm publish --provenance');
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
    for (const dep of ['@inquirer/core', 'commander', 'string-width', 'chalk', 'undici', 'zod', 'oauth4webapi']) {
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

